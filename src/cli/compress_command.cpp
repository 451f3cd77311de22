// `cuzarr compress IN OUT`: compresses a file with the standalone Compressor.
#include <fmt/format.h>

#include "binary_file.hpp"
#include "command.hpp"
#include "compressor_cli_options.hpp"
#include "cuzarr/api/compressor.hpp"

namespace cuzarr::cli {
namespace {

class CompressCommand final : public Command {
 public:
  explicit CompressCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "compress",
            "Compress a file in independent chunks (native framing, or raw standard streams)")) {
    subcommand_->add_option("input", input_, "File to compress")->required();
    subcommand_->add_option("output", output_, "File to write")->required();
    options_.add_to(*subcommand_);
  }

  int run() override {
    const Compressor compressor(options_.to_options());
    const CompressResult result = compressor.compress(read_binary_file(input_));
    write_binary_file(output_, result.output);
    fmt::print("{} -> {}: {}\n", input_, output_, describe_stats(result.stats, true));
    return 0;
  }

 private:
  std::string input_;
  std::string output_;
  CompressorCliOptions options_;
};

}  // namespace

std::unique_ptr<Command> add_compress_command(CLI::App& app) {
  return std::make_unique<CompressCommand>(app);
}

}  // namespace cuzarr::cli
