// `cuzarr cp`: copies an array or a whole hierarchy, converting the format, rechunking and
// recompressing on the way, with a progress bar on a terminal and a summary at the end.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "codec_option.hpp"
#include "command.hpp"
#include "cuzarr/api/copy.hpp"
#include "cuzarr/cuzarr.hpp"
#include "node_location.hpp"
#include "staged_replacement.hpp"

namespace cuzarr::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

std::string human_bytes(uint64_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

/// Draws "[#####.....]  42%  420/1000 chunks  1.2 GiB" on one terminal line, at most 10 times a
/// second.
class ProgressBar {
 public:
  void update(const CopyProgress& p) {
    if (p.seconds - last_draw_ < 0.1 && p.chunks_done != p.chunks_total) return;
    last_draw_ = p.seconds;
    const double fraction =
        p.chunks_total > 0 ? static_cast<double>(p.chunks_done) / p.chunks_total : 1.0;
    constexpr int width = 30;
    const int filled = static_cast<int>(fraction * width);
    fmt::print(stderr, "\r[{}{}] {:3.0f}%  {}/{} chunks  {}  ", std::string(filled, '#'),
               std::string(width - filled, '.'), fraction * 100, p.chunks_done, p.chunks_total,
               human_bytes(p.decoded_bytes));
    drawn_ = true;
  }
  void finish() {
    if (drawn_) fmt::print(stderr, "\n");
  }

 private:
  double last_draw_ = -1;
  bool drawn_ = false;
};

/// The path as an absolute, normalised one without a trailing separator.
std::filesystem::path comparable_path(const std::string& path) {
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path));
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

/// True when `inner` is `outer` or lies inside it.
bool within(const std::filesystem::path& inner, const std::filesystem::path& outer) {
  auto o = outer.begin();
  for (auto i = inner.begin(); o != outer.end(); ++o, ++i) {
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

/// A copy reads SOURCE while it writes (and with --overwrite first erases) DESTINATION: the two
/// must not overlap.
void refuse_overlapping_paths(const std::string& source, const std::string& destination) {
  const auto s = comparable_path(source), d = comparable_path(destination);
  const char* how = s == d ? "is" : within(d, s) ? "lies inside" : within(s, d) ? "holds" : nullptr;
  if (how == nullptr) return;
  throw InvalidArgumentError(
      fmt::format("destination {} {} the source {}: a copy cannot write where it reads",
                  destination, how, source));
}

class CpCommand final : public Command {
 public:
  explicit CpCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "cp",
            "Copy an array or a whole hierarchy, optionally converting the Zarr format, "
            "rechunking and recompressing")) {
    subcommand_->add_option("source", source_, "Directory of the Zarr array or group to copy")
        ->required();
    subcommand_->add_option("destination", destination_, "Directory to write the copy to")
        ->required();
    subcommand_->add_option("--zarr-format", zarr_format_, "Format of the copy: 2 or 3")
        ->check(CLI::IsMember({2, 3}));
    subcommand_->add_option("--chunks", chunks_, "Chunk shape of every array, e.g. 64,64")
        ->delimiter(',')
        ->allow_extra_args(false);
    subcommand_->add_option("--shards", shards_, "Shard shape of every array, e.g. 256,256")
        ->delimiter(',')
        ->allow_extra_args(false);
    subcommand_->add_flag("--no-shards", no_shards_, "Store the copy without sharding");
    subcommand_
        ->add_option("--codec", codecs_,
                     "A codec of the copy, in order (repeat the option); same forms as "
                     "`cuzarr import --codec`. Default: the source's codecs")
        ->allow_extra_args(false);
    subcommand_
        ->add_option("--batch-mb", batch_mb_,
                     "Array data read and written per step, in MiB (bounds the memory used)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    subcommand_->add_flag("--overwrite", overwrite_, "Replace nodes that exist in DESTINATION");
    subcommand_->add_flag("--quiet", quiet_, "No progress bar");
  }

  int run() override {
    NodeLocation source = open_node(source_);
    refuse_overlapping_paths(source_, destination_);
    CopyOptions options;
    options.zarr_format = zarr_format_;
    if (!chunks_.empty()) options.chunk_shape = chunks_;
    if (!shards_.empty()) options.shard_shape = shards_;
    options.no_shards = no_shards_;
    if (!codecs_.empty()) {
      std::vector<CodecSpec> specs;
      for (const auto& text : codecs_) specs.push_back(parse_codec_option(text));
      options.codecs_for = [specs](const DataType& dtype) {
        return complete_codec_list(specs, dtype);
      };
    }
    options.overwrite = overwrite_;
    options.step_bytes = static_cast<uint64_t>(batch_mb_) << 20;
    options.cancel = &g_interrupted;
    // With --overwrite, an existing node is replaced only by a finished copy.
    StagedReplacement target(destination_, overwrite_);
    auto destination = open_store(target.write_path(), /*create=*/true);

    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    struct sigaction old_int {
    }, old_term{};
    sigaction(SIGINT, &action, &old_int);
    sigaction(SIGTERM, &action, &old_term);

    ProgressBar bar;
    const bool show_bar = !quiet_ && isatty(STDERR_FILENO);
    CopyProgress result;
    try {
      result = copy_node(source.store, "", destination, "", options, [&](const CopyProgress& p) {
        if (show_bar) bar.update(p);
      });
    } catch (...) {
      bar.finish();
      sigaction(SIGINT, &old_int, nullptr);
      sigaction(SIGTERM, &old_term, nullptr);
      throw;
    }
    bar.finish();
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (!result.cancelled) target.commit();

    const double ratio =
        result.bytes_out > 0 ? static_cast<double>(result.bytes_in) / result.bytes_out : 0.0;
    fmt::print(
        "{}: {} array{}, {} group{}, {}/{} chunks copied ({} stored), {} in, {} out, ratio "
        "{:.2f}, {:.2f} s\n",
        result.cancelled ? "INTERRUPTED" : "copied", result.arrays, result.arrays == 1 ? "" : "s",
        result.groups, result.groups == 1 ? "" : "s", result.chunks_done, result.chunks_total,
        result.chunks_written, human_bytes(result.bytes_in), human_bytes(result.bytes_out), ratio,
        result.seconds);
    if (result.cancelled && target.staged())
      fmt::print("{} was left as it was: the unfinished copy is removed\n", destination_);
    return result.cancelled ? 130 : 0;
  }

 private:
  std::string source_;
  std::string destination_;
  std::optional<int> zarr_format_;
  std::vector<int64_t> chunks_;
  std::vector<int64_t> shards_;
  bool no_shards_ = false;
  std::vector<std::string> codecs_;
  int64_t batch_mb_ = 64;
  bool overwrite_ = false;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> add_cp_command(CLI::App& app) { return std::make_unique<CpCommand>(app); }

}  // namespace cuzarr::cli
