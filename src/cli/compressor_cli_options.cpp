#include "compressor_cli_options.hpp"

#include <fmt/format.h>

#include "byte_size.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {

void CompressorCliOptions::add_to(CLI::App& command) {
  command
      .add_option("--algorithm", algorithm_,
                  "lz4, zstd, deflate, gzip, zlib, bz2, lzma or blosc (native decoding reads "
                  "it from the header)")
      ->capture_default_str();
  command.add_option("--level", level_, "Compression level (default: the algorithm's)");
  command
      .add_option("--chunk-size", chunk_size_,
                  "Bytes per independently compressed chunk, e.g. 65536, 64KiB, 1MiB")
      ->capture_default_str();
  command.add_option("--format", format_, "Bitstream: native, raw or raw-with-size")
      ->capture_default_str();
  command
      .add_option("--checksum", checksum_, "CRC-32C of the native format: none, compute or verify")
      ->capture_default_str();
  command.add_option("--execution", execution_, "Where to run: auto, host or device")
      ->capture_default_str();
  command.add_option("--blosc-cname", blosc_cname_, "blosc: lz4, lz4hc, blosclz, zstd or zlib")
      ->capture_default_str();
  command.add_option("--blosc-shuffle", blosc_shuffle_, "blosc: noshuffle, shuffle or bitshuffle")
      ->capture_default_str();
  command.add_option("--blosc-typesize", blosc_typesize_, "blosc: element size in bytes")
      ->capture_default_str();
}

CompressorOptions CompressorCliOptions::to_options() const {
  CompressorOptions options;
  options.algorithm = parse_compression_algorithm(algorithm_);
  options.level = level_;
  const uint64_t chunk_size = parse_byte_size(chunk_size_, "--chunk-size");
  if (chunk_size == 0 || chunk_size > kMaxCompressionChunkSize)
    throw InvalidArgumentError(fmt::format("--chunk-size must be in [1, {}] bytes, got {}",
                                           kMaxCompressionChunkSize, chunk_size));
  options.chunk_size = static_cast<size_t>(chunk_size);
  options.bitstream = parse_bitstream_kind(format_);
  options.checksum = parse_checksum_policy(checksum_);
  options.execution = parse_execution_target(execution_);
  options.blosc.cname = blosc_cname_;
  options.blosc.shuffle = parse_blosc_shuffle(blosc_shuffle_);
  options.blosc.typesize = blosc_typesize_;
  return options;
}

std::string describe_stats(const CompressionStats& stats, bool compressing) {
  const size_t uncompressed = compressing ? stats.bytes_in : stats.bytes_out;
  const size_t compressed = compressing ? stats.bytes_out : stats.bytes_in;
  const double ratio =
      compressed == 0 ? 0.0 : static_cast<double>(uncompressed) / static_cast<double>(compressed);
  return fmt::format("{} -> {} bytes (ratio {:.2f}), {} {}, {} chunk{}, on {}{}", stats.bytes_in,
                     stats.bytes_out, ratio, compression_algorithm_name(stats.algorithm),
                     bitstream_kind_name(stats.bitstream), stats.chunks,
                     stats.chunks == 1 ? "" : "s", executed_on_name(stats.executed_on),
                     stats.checksums_verified ? ", checksums verified" : "");
}

}  // namespace cuzarr::cli
