// The options `cuzarr compress` and `cuzarr decompress` share, turned into CompressorOptions.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cuzarr/api/compressor.hpp"

namespace cuzarr::cli {

class CompressorCliOptions {
 public:
  /// Adds --algorithm, --level, --chunk-size, --format, --checksum, --execution and the blosc
  /// options to `command`.
  void add_to(CLI::App& command);
  /// The options the user gave (defaults elsewhere); throws InvalidArgumentError naming the
  /// option at fault.
  CompressorOptions to_options() const;

 private:
  std::string algorithm_ = "zstd";
  std::optional<int> level_;
  std::string chunk_size_ = "64KiB";
  std::string format_ = "native";
  std::string checksum_ = "none";
  std::string execution_ = "auto";
  std::string blosc_cname_ = "lz4";
  std::string blosc_shuffle_ = "shuffle";
  uint32_t blosc_typesize_ = 4;
};

/// "1234 -> 567 bytes (ratio 2.18), zstd native, 3 chunks, on host"; the ratio is uncompressed
/// over compressed bytes (`compressing`: bytes_in are the uncompressed ones).
std::string describe_stats(const CompressionStats& stats, bool compressing);

}  // namespace cuzarr::cli
