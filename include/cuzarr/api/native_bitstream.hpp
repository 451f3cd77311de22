// The header of the Compressor's native bitstream (docs/compression_format.md): magic, version,
// algorithm, level, chunk size, uncompressed size, the table of compressed chunk sizes and, when
// checksums are on, CRC-32C values of every chunk and of the header itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cuzarr/api/compressor_options.hpp"

namespace cuzarr {

/// The four magic bytes that open a native bitstream: "CZCB".
inline constexpr std::byte kNativeBitstreamMagic[4] = {std::byte{'C'}, std::byte{'Z'},
                                                       std::byte{'C'}, std::byte{'B'}};
/// The format version this build writes and reads.
inline constexpr uint8_t kNativeBitstreamVersion = 1;
/// Bytes of the fixed part of the header, before the chunk table.
inline constexpr size_t kNativeFixedHeaderSize = 32;

struct NativeBitstreamHeader {
  uint8_t version = kNativeBitstreamVersion;
  CompressionAlgorithm algorithm = CompressionAlgorithm::zstd;
  int32_t level = 0;  ///< the level used to encode (informational)
  uint32_t chunk_size = 0;
  uint64_t uncompressed_size = 0;
  std::vector<uint64_t> compressed_sizes;  ///< one per chunk
  bool has_checksums = false;
  std::vector<uint32_t> compressed_crc32c;    ///< per chunk, when has_checksums
  std::vector<uint32_t> uncompressed_crc32c;  ///< per chunk, when has_checksums
  uint32_t header_crc32c = 0;                 ///< of every header byte before it

  size_t chunk_count() const noexcept { return compressed_sizes.size(); }
  /// Bytes of the whole header (fixed part, tables, header checksum).
  size_t header_size() const noexcept;
  /// The decoded size of chunk `i` (chunk_size, or less for the last one).
  size_t uncompressed_chunk_size(size_t i) const noexcept;
};

/// The number of chunks a buffer of `uncompressed_size` bytes is cut into: one for an empty
/// buffer (one empty chunk), else ceil(uncompressed_size / chunk_size).
uint64_t compression_chunk_count(uint64_t uncompressed_size, uint64_t chunk_size) noexcept;

/// True when `bytes` start with the native magic.
bool is_native_bitstream(std::span<const std::byte> bytes) noexcept;

/// Parses and validates the header at the start of `bytes` against the size of `bytes`: every
/// field is checked before it is used (magic, version, algorithm id, flags, chunk size, chunk
/// count, table size, each compressed size and their sum, which must end exactly at the end of
/// `bytes`). Does not check the header checksum (see verify_native_header_checksum). Throws
/// CorruptDataError naming the field at fault (also for another version); UnsupportedError for
/// blosc in a build without c-blosc.
NativeBitstreamHeader read_native_header(std::span<const std::byte> bytes);
/// The same for a bitstream of `total_size` bytes of which `header_bytes` are the first ones, at
/// least native_header_size(...) of them (InvalidArgumentError otherwise): for bitstreams in
/// device memory, whose header alone is copied to the host.
NativeBitstreamHeader read_native_header(std::span<const std::byte> header_bytes,
                                         uint64_t total_size);
/// The size of the header of a native bitstream of `total_size` bytes, from its first
/// kNativeFixedHeaderSize bytes (`fixed_part`). CorruptDataError when the bitstream is shorter than
/// the fixed part or its tables would run past `total_size`.
size_t native_header_size(std::span<const std::byte> fixed_part, uint64_t total_size);

/// Throws CorruptDataError when the header has checksums and its recorded header_crc32c differs
/// from that of its bytes.
void verify_native_header_checksum(const NativeBitstreamHeader& header,
                                   std::span<const std::byte> bytes);

/// Writes `header` (header_crc32c is computed here) into the first header.header_size() bytes
/// of `out`.
void write_native_header(const NativeBitstreamHeader& header, std::span<std::byte> out);

}  // namespace cuzarr
