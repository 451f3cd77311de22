// `cuzarr decompress IN OUT`: decompresses a file the Compressor (or, for raw formats, the
// algorithm's reference library) wrote.
#include <fmt/format.h>

#include <optional>

#include "binary_file.hpp"
#include "byte_size.hpp"
#include "command.hpp"
#include "compressor_cli_options.hpp"
#include "cuzarr/api/compressor.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {
namespace {

class DecompressCommand final : public Command {
 public:
  explicit DecompressCommand(CLI::App& app)
      : Command(app.add_subcommand(
            "decompress",
            "Decompress a file: native files describe themselves; raw files need --algorithm, "
            "--chunk-size and --size")) {
    subcommand_->add_option("input", input_, "File to decompress")->required();
    subcommand_->add_option("output", output_, "File to write")->required();
    options_.add_to(*subcommand_);
    subcommand_->add_option("--size", size_,
                            "Uncompressed size (required for --format raw), e.g. 1000000 or 1MiB");
  }

  int run() override {
    const Compressor compressor(options_.to_options());
    if (!size_ && compressor.options().bitstream == BitstreamKind::raw)
      throw InvalidArgumentError("--size (the uncompressed size) is required with --format raw");
    DecompressCall call;
    if (size_) call.uncompressed_size = parse_byte_size(*size_, "--size");
    const Buffer input = read_binary_file(input_);
    const DecompressResult result = [&] {
      try {
        return compressor.decompress(input, call);
      } catch (const Error& e) {  // the stream's errors, named after the file they come from
        throw_error(e.code(), fmt::format("{}: {}", input_, e.what()));
      }
    }();
    write_binary_file(output_, result.output);
    fmt::print("{} -> {}: {}\n", input_, output_, describe_stats(result.stats, false));
    return 0;
  }

 private:
  std::string input_;
  std::string output_;
  CompressorCliOptions options_;
  std::optional<std::string> size_;
};

}  // namespace

std::unique_ptr<Command> add_decompress_command(CLI::App& app) {
  return std::make_unique<DecompressCommand>(app);
}

}  // namespace cuzarr::cli
