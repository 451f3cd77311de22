// The subcommands of the cuzarr tool. Each add_*_command registers its subcommand and options on
// the application; after parsing, main() runs the one the user chose.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>

namespace cuzarr::cli {

class Command {
 public:
  explicit Command(CLI::App* subcommand) : subcommand_(subcommand) {}
  virtual ~Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  /// True when the user chose this subcommand.
  bool chosen() const { return subcommand_->parsed(); }
  /// Does the work; returns the process exit status. Throws cuzarr::Error on failure.
  virtual int run() = 0;

 protected:
  CLI::App* subcommand_;
};

/// `cuzarr info PATH [--json]`: metadata and storage statistics of an array or group.
std::unique_ptr<Command> add_info_command(CLI::App& app);
/// `cuzarr ls PATH`: the hierarchy below a group as a tree.
std::unique_ptr<Command> add_ls_command(CLI::App& app);
/// `cuzarr cat PATH [--select S] [--npy OUT]`: prints or exports (part of) an array.
std::unique_ptr<Command> add_cat_command(CLI::App& app);
/// `cuzarr import IN.npy PATH [...]`: writes a .npy file as a new Zarr array (v3 or v2).
std::unique_ptr<Command> add_import_command(CLI::App& app);
/// `cuzarr cp SRC DST [...]`: copies an array or hierarchy, converting, rechunking, recompressing.
std::unique_ptr<Command> add_cp_command(CLI::App& app);
/// `cuzarr verify PATH`: decodes every stored chunk and reports those that fail.
std::unique_ptr<Command> add_verify_command(CLI::App& app);
/// `cuzarr consolidate PATH`: writes the consolidated metadata of a group's hierarchy.
std::unique_ptr<Command> add_consolidate_command(CLI::App& app);
/// `cuzarr compress IN OUT [...]`: compresses a file with the standalone Compressor.
std::unique_ptr<Command> add_compress_command(CLI::App& app);
/// `cuzarr decompress IN OUT [...]`: decompresses a file the Compressor wrote.
std::unique_ptr<Command> add_decompress_command(CLI::App& app);
/// `cuzarr bench read|write|roundtrip ...`: times reads and writes (seconds, GB/s, peak RSS).
std::unique_ptr<Command> add_bench_command(CLI::App& app);

}  // namespace cuzarr::cli
