// The options of cuzarr's standalone Compressor (see compressor.hpp): which algorithm, how the
// input is cut into independently compressed chunks, which bitstream is written, whether
// checksums are computed and verified, and where the work runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuzarr {

/// A compression algorithm. The numeric values are the algorithm ids of the native bitstream
/// (docs/compression_format.md) and never change.
enum class CompressionAlgorithm : uint8_t {
  lz4 = 1,      ///< LZ4 block format (lz4.h), one block per chunk
  zstd = 2,     ///< one Zstandard frame per chunk (RFC 8878)
  deflate = 3,  ///< raw DEFLATE (RFC 1951), no wrapper
  gzip = 4,     ///< one gzip member per chunk (RFC 1952)
  zlib = 5,     ///< one zlib stream per chunk (RFC 1950)
  bz2 = 6,      ///< one bzip2 stream per chunk
  lzma = 7,     ///< one .xz stream per chunk (LZMA2, CRC-32 check)
  blosc = 8,    ///< one c-blosc 1.x buffer per chunk (only in builds with c-blosc)
};

/// What surrounds the compressed chunks.
enum class BitstreamKind {
  /// cuzarr's framing: header (algorithm, chunk size, sizes, chunk table, optional checksums)
  /// followed by the chunks. Decoding needs nothing else.
  native,
  /// The chunks' standard streams back to back, nothing added. A buffer no larger than the chunk
  /// size is exactly one stream readable by the algorithm's reference library. Decoding needs the
  /// uncompressed size and the chunk size used to encode.
  raw,
  /// An 8-byte little-endian uncompressed size, then the raw bitstream. Decoding needs the chunk
  /// size used to encode.
  raw_with_size,
};

/// Checksums (CRC-32C) of the native bitstream.
enum class ChecksumPolicy {
  none,                ///< encode writes none; decode checks none even when present
  compute,             ///< encode writes them; decode does not check them
  compute_and_verify,  ///< encode writes them; decode checks those present
};

/// Where the user wants the work done.
enum class ExecutionTarget {
  automatic,  ///< a GPU implementation when one exists and the data is on the device, else host
  host,       ///< the CPU (device data is staged through pinned memory)
  device,     ///< the GPU; UnsupportedError when there is no GPU implementation or no GPU
};

/// Where the work was done.
enum class ExecutedOn { host, device };

/// The c-blosc shuffle filter.
enum class BloscShuffle { noshuffle, shuffle, bitshuffle };

/// Options only the blosc algorithm uses (its header records them, so decoding needs none).
struct BloscOptions {
  std::string cname = "lz4";  ///< inner compressor: lz4, lz4hc, blosclz, zstd or zlib
  BloscShuffle shuffle = BloscShuffle::shuffle;
  uint32_t typesize = 4;  ///< element size the shuffle works on, in [1, 255]
};

/// The default chunk size: 64 KiB.
inline constexpr size_t kDefaultCompressionChunkSize = size_t{64} << 10;
/// The largest chunk size: 1 GiB (within every algorithm's single-call limit).
inline constexpr size_t kMaxCompressionChunkSize = size_t{1} << 30;

struct CompressorOptions {
  CompressionAlgorithm algorithm = CompressionAlgorithm::zstd;
  /// Compression level; nullopt means the algorithm's default (compression_level_range()).
  std::optional<int> level;
  /// Bytes per independently compressed chunk, in [1, kMaxCompressionChunkSize].
  size_t chunk_size = kDefaultCompressionChunkSize;
  BitstreamKind bitstream = BitstreamKind::native;
  ChecksumPolicy checksum = ChecksumPolicy::none;
  ExecutionTarget execution = ExecutionTarget::automatic;
  BloscOptions blosc;

  /// Throws InvalidArgumentError naming the option at fault ("chunk_size", "level",
  /// "blosc.cname", ...), UnsupportedError for blosc in a build without c-blosc.
  void validate() const;
  /// The level in effect: `level` or the algorithm's default.
  int effective_level() const;
};

/// The levels an algorithm accepts and its default.
struct CompressionLevelRange {
  int min;
  int max;
  int default_level;
};
CompressionLevelRange compression_level_range(CompressionAlgorithm algorithm);

/// "lz4", "zstd", "deflate", "gzip", "zlib", "bz2", "lzma", "blosc".
std::string_view compression_algorithm_name(CompressionAlgorithm algorithm) noexcept;
/// Parses a name of compression_algorithm_name() (also "bzip2", "xz"); throws
/// InvalidArgumentError naming "algorithm" and listing the known names.
CompressionAlgorithm parse_compression_algorithm(std::string_view name);
/// The algorithm with native id `id`, or nullopt.
std::optional<CompressionAlgorithm> compression_algorithm_from_id(uint8_t id) noexcept;
/// The algorithms this build supports (blosc only with c-blosc).
std::vector<CompressionAlgorithm> available_compression_algorithms();
/// False for blosc in a build without c-blosc.
bool compression_algorithm_available(CompressionAlgorithm algorithm) noexcept;

/// "native", "raw", "raw_with_size".
std::string_view bitstream_kind_name(BitstreamKind kind) noexcept;
/// Parses those names (also "raw-with-size"); throws InvalidArgumentError naming "bitstream".
BitstreamKind parse_bitstream_kind(std::string_view name);
/// "none", "compute", "compute_and_verify".
std::string_view checksum_policy_name(ChecksumPolicy policy) noexcept;
/// Parses those names (also "verify", "compute-and-verify"); throws InvalidArgumentError naming
/// "checksum".
ChecksumPolicy parse_checksum_policy(std::string_view name);
/// "auto", "host", "device".
std::string_view execution_target_name(ExecutionTarget target) noexcept;
/// Parses "auto", "host"/"cpu", "device"/"gpu"; throws InvalidArgumentError naming "execution".
ExecutionTarget parse_execution_target(std::string_view name);
/// "host" or "device".
std::string_view executed_on_name(ExecutedOn where) noexcept;
/// "noshuffle", "shuffle", "bitshuffle".
std::string_view blosc_shuffle_name(BloscShuffle shuffle) noexcept;
/// Parses those names; throws InvalidArgumentError naming "blosc.shuffle".
BloscShuffle parse_blosc_shuffle(std::string_view name);

}  // namespace cuzarr
