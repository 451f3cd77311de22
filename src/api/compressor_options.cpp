// The Compressor's option names, level ranges and validation.
#include "cuzarr/api/compressor_options.hpp"

#include <fmt/format.h>
#include <zstd.h>

#include <array>

#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

struct AlgorithmEntry {
  CompressionAlgorithm algorithm;
  std::string_view name;
};

constexpr std::array<AlgorithmEntry, 8> kAlgorithms{{
    {CompressionAlgorithm::lz4, "lz4"},
    {CompressionAlgorithm::zstd, "zstd"},
    {CompressionAlgorithm::deflate, "deflate"},
    {CompressionAlgorithm::gzip, "gzip"},
    {CompressionAlgorithm::zlib, "zlib"},
    {CompressionAlgorithm::bz2, "bz2"},
    {CompressionAlgorithm::lzma, "lzma"},
    {CompressionAlgorithm::blosc, "blosc"},
}};

std::string known_algorithm_names() {
  std::string names;
  for (const auto& entry : kAlgorithms) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

}  // namespace

CompressionLevelRange compression_level_range(CompressionAlgorithm algorithm) {
  switch (algorithm) {
    case CompressionAlgorithm::lz4:
      return {1, 12, 1};  // 1: LZ4_compress_default; 2..12: LZ4HC at that level
    case CompressionAlgorithm::zstd:
      return {ZSTD_minCLevel(), ZSTD_maxCLevel(), 3};
    case CompressionAlgorithm::deflate:
    case CompressionAlgorithm::gzip:
    case CompressionAlgorithm::zlib:
      return {0, 9, 6};
    case CompressionAlgorithm::bz2:
      return {1, 9, 9};
    case CompressionAlgorithm::lzma:
      return {0, 9, 6};
    case CompressionAlgorithm::blosc:
      return {0, 9, 5};
  }
  throw InvalidArgumentError("compressor: \"algorithm\" has an unknown value");
}

std::string_view compression_algorithm_name(CompressionAlgorithm algorithm) noexcept {
  for (const auto& entry : kAlgorithms) {
    if (entry.algorithm == algorithm) return entry.name;
  }
  return "unknown";
}

CompressionAlgorithm parse_compression_algorithm(std::string_view name) {
  if (name == "bzip2") return CompressionAlgorithm::bz2;
  if (name == "xz") return CompressionAlgorithm::lzma;
  for (const auto& entry : kAlgorithms) {
    if (entry.name == name) return entry.algorithm;
  }
  throw InvalidArgumentError(
      fmt::format("compressor: unknown \"algorithm\" \"{}\" (expected one of {})", name,
                  known_algorithm_names()));
}

std::optional<CompressionAlgorithm> compression_algorithm_from_id(uint8_t id) noexcept {
  for (const auto& entry : kAlgorithms) {
    if (static_cast<uint8_t>(entry.algorithm) == id) return entry.algorithm;
  }
  return std::nullopt;
}

bool compression_algorithm_available(CompressionAlgorithm algorithm) noexcept {
  if (algorithm == CompressionAlgorithm::blosc) return BloscCodec::available();
  return compression_algorithm_from_id(static_cast<uint8_t>(algorithm)).has_value();
}

std::vector<CompressionAlgorithm> available_compression_algorithms() {
  std::vector<CompressionAlgorithm> result;
  for (const auto& entry : kAlgorithms) {
    if (compression_algorithm_available(entry.algorithm)) result.push_back(entry.algorithm);
  }
  return result;
}

std::string_view bitstream_kind_name(BitstreamKind kind) noexcept {
  switch (kind) {
    case BitstreamKind::native:
      return "native";
    case BitstreamKind::raw:
      return "raw";
    case BitstreamKind::raw_with_size:
      return "raw_with_size";
  }
  return "unknown";
}

BitstreamKind parse_bitstream_kind(std::string_view name) {
  if (name == "native") return BitstreamKind::native;
  if (name == "raw") return BitstreamKind::raw;
  if (name == "raw_with_size" || name == "raw-with-size") return BitstreamKind::raw_with_size;
  throw InvalidArgumentError(fmt::format(
      "compressor: unknown \"bitstream\" \"{}\" (expected native, raw or raw_with_size)", name));
}

std::string_view checksum_policy_name(ChecksumPolicy policy) noexcept {
  switch (policy) {
    case ChecksumPolicy::none:
      return "none";
    case ChecksumPolicy::compute:
      return "compute";
    case ChecksumPolicy::compute_and_verify:
      return "compute_and_verify";
  }
  return "unknown";
}

ChecksumPolicy parse_checksum_policy(std::string_view name) {
  if (name == "none") return ChecksumPolicy::none;
  if (name == "compute") return ChecksumPolicy::compute;
  if (name == "compute_and_verify" || name == "compute-and-verify" || name == "verify")
    return ChecksumPolicy::compute_and_verify;
  throw InvalidArgumentError(fmt::format(
      "compressor: unknown \"checksum\" \"{}\" (expected none, compute or compute_and_verify)",
      name));
}

std::string_view execution_target_name(ExecutionTarget target) noexcept {
  switch (target) {
    case ExecutionTarget::automatic:
      return "auto";
    case ExecutionTarget::host:
      return "host";
    case ExecutionTarget::device:
      return "device";
  }
  return "unknown";
}

ExecutionTarget parse_execution_target(std::string_view name) {
  if (name == "auto" || name == "automatic") return ExecutionTarget::automatic;
  if (name == "host" || name == "cpu") return ExecutionTarget::host;
  if (name == "device" || name == "gpu") return ExecutionTarget::device;
  throw InvalidArgumentError(fmt::format(
      "compressor: unknown \"execution\" \"{}\" (expected auto, host or device)", name));
}

std::string_view executed_on_name(ExecutedOn where) noexcept {
  return where == ExecutedOn::device ? "device" : "host";
}

std::string_view blosc_shuffle_name(BloscShuffle shuffle) noexcept {
  switch (shuffle) {
    case BloscShuffle::noshuffle:
      return "noshuffle";
    case BloscShuffle::shuffle:
      return "shuffle";
    case BloscShuffle::bitshuffle:
      return "bitshuffle";
  }
  return "unknown";
}

BloscShuffle parse_blosc_shuffle(std::string_view name) {
  if (name == "noshuffle") return BloscShuffle::noshuffle;
  if (name == "shuffle") return BloscShuffle::shuffle;
  if (name == "bitshuffle") return BloscShuffle::bitshuffle;
  throw InvalidArgumentError(fmt::format(
      "compressor: unknown \"blosc.shuffle\" \"{}\" (expected noshuffle, shuffle or bitshuffle)",
      name));
}

int CompressorOptions::effective_level() const {
  return level.value_or(compression_level_range(algorithm).default_level);
}

void CompressorOptions::validate() const {
  if (!compression_algorithm_from_id(static_cast<uint8_t>(algorithm))) {
    throw InvalidArgumentError(fmt::format("compressor: \"algorithm\" has an unknown value {}",
                                           static_cast<int>(algorithm)));
  }
  if (!compression_algorithm_available(algorithm)) {
    throw UnsupportedError(fmt::format(
        "compressor: \"algorithm\" {}: blosc support was not built (c-blosc was not found)",
        compression_algorithm_name(algorithm)));
  }
  if (chunk_size == 0 || chunk_size > kMaxCompressionChunkSize) {
    throw InvalidArgumentError(
        fmt::format("compressor: \"chunk_size\" must be in [1, {}] bytes, got {}",
                    kMaxCompressionChunkSize, chunk_size));
  }
  const CompressionLevelRange range = compression_level_range(algorithm);
  if (level && (*level < range.min || *level > range.max)) {
    throw InvalidArgumentError(
        fmt::format("compressor: \"level\" of {} must be in [{}, {}], got {}",
                    compression_algorithm_name(algorithm), range.min, range.max, *level));
  }
  if (algorithm == CompressionAlgorithm::blosc) {
    static constexpr std::string_view kCnames[] = {"lz4", "lz4hc", "blosclz", "zstd", "zlib"};
    bool known = false;
    for (auto name : kCnames) known = known || name == blosc.cname;
    if (!known) {
      throw InvalidArgumentError(fmt::format(
          "compressor: unknown \"blosc.cname\" \"{}\" (expected lz4, lz4hc, blosclz, zstd or zlib)",
          blosc.cname));
    }
    if (blosc.typesize < 1 || blosc.typesize > 255) {
      throw InvalidArgumentError(fmt::format(
          "compressor: \"blosc.typesize\" must be in [1, 255], got {}", blosc.typesize));
    }
  }
}

}  // namespace cuzarr
