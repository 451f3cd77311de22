// The native bitstream header, byte by byte as docs/compression_format.md describes it. All
// integers are little-endian.
#include "cuzarr/api/native_bitstream.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr uint8_t kFlagChecksums = 0x01;
// Field offsets in the fixed header.
constexpr size_t kVersionOffset = 4;
constexpr size_t kAlgorithmOffset = 5;
constexpr size_t kFlagsOffset = 6;
constexpr size_t kReservedOffset = 7;
constexpr size_t kLevelOffset = 8;
constexpr size_t kChunkSizeOffset = 12;
constexpr size_t kUncompressedSizeOffset = 16;
constexpr size_t kChunkCountOffset = 24;
// Per-chunk bytes of the tables: a 64-bit compressed size, and two 32-bit CRCs with checksums.
constexpr size_t kSizeEntry = 8;
constexpr size_t kChecksumEntries = 8;

uint64_t read_le(const std::byte* p, size_t n) {
  uint64_t value = 0;
  for (size_t i = 0; i < n; ++i) value |= static_cast<uint64_t>(p[i]) << (8 * i);
  return value;
}

void write_le(std::byte* p, uint64_t value, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}

[[noreturn]] void corrupt(const std::string& what) {
  throw CorruptDataError("native bitstream: " + what);
}

}  // namespace

uint64_t compression_chunk_count(uint64_t uncompressed_size, uint64_t chunk_size) noexcept {
  if (uncompressed_size == 0 || chunk_size == 0) return 1;
  return (uncompressed_size - 1) / chunk_size + 1;
}

size_t NativeBitstreamHeader::header_size() const noexcept {
  return kNativeFixedHeaderSize + chunk_count() * kSizeEntry +
         (has_checksums ? chunk_count() * kChecksumEntries + 4 : 0);
}

size_t NativeBitstreamHeader::uncompressed_chunk_size(size_t i) const noexcept {
  const uint64_t start = static_cast<uint64_t>(i) * chunk_size;
  if (start >= uncompressed_size) return 0;
  return static_cast<size_t>(std::min<uint64_t>(chunk_size, uncompressed_size - start));
}

bool is_native_bitstream(std::span<const std::byte> bytes) noexcept {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), kNativeBitstreamMagic, 4) == 0;
}

NativeBitstreamHeader read_native_header(std::span<const std::byte> bytes) {
  return read_native_header(bytes, bytes.size());
}

size_t native_header_size(std::span<const std::byte> bytes, uint64_t total_size) {
  if (bytes.size() < kNativeFixedHeaderSize || total_size < kNativeFixedHeaderSize)
    corrupt(fmt::format("{} bytes are too few for the {}-byte header", total_size,
                        kNativeFixedHeaderSize));
  const bool checksums = (static_cast<uint8_t>(bytes[kFlagsOffset]) & kFlagChecksums) != 0;
  const uint64_t chunk_count = read_le(bytes.data() + kChunkCountOffset, 8);
  const size_t entry = kSizeEntry + (checksums ? kChecksumEntries : 0);
  const uint64_t after_fixed = total_size - kNativeFixedHeaderSize;
  const size_t trailer = checksums ? 4 : 0;
  if (after_fixed < trailer || chunk_count > (after_fixed - trailer) / entry)
    corrupt(fmt::format("the tables of {} chunks need more than the {} bytes after the header",
                        chunk_count, after_fixed));
  return kNativeFixedHeaderSize + static_cast<size_t>(chunk_count) * entry + trailer;
}

NativeBitstreamHeader read_native_header(std::span<const std::byte> bytes, uint64_t total_size) {
  if (bytes.size() > total_size)
    throw InvalidArgumentError("native bitstream: more header bytes than the bitstream holds");
  if (bytes.size() < kNativeFixedHeaderSize)
    corrupt(fmt::format("{} bytes are too few for the {}-byte header", total_size,
                        kNativeFixedHeaderSize));
  if (!is_native_bitstream(bytes)) corrupt("\"magic\" is not \"CZCB\"");
  const std::byte* p = bytes.data();
  NativeBitstreamHeader header;
  header.version = static_cast<uint8_t>(p[kVersionOffset]);
  if (header.version != kNativeBitstreamVersion)
    corrupt(fmt::format("\"version\" is {}; this build reads version {}", header.version,
                        kNativeBitstreamVersion));
  const auto algorithm_id = static_cast<uint8_t>(p[kAlgorithmOffset]);
  const auto algorithm = compression_algorithm_from_id(algorithm_id);
  if (!algorithm) corrupt(fmt::format("unknown \"algorithm\" id {}", algorithm_id));
  header.algorithm = *algorithm;
  if (!compression_algorithm_available(header.algorithm))
    throw UnsupportedError(fmt::format("native bitstream: \"algorithm\" {} was not built",
                                       compression_algorithm_name(header.algorithm)));
  const auto flags = static_cast<uint8_t>(p[kFlagsOffset]);
  if ((flags & ~kFlagChecksums) != 0)
    corrupt(fmt::format("unknown \"flags\" bits 0x{:02x}", flags));
  header.has_checksums = (flags & kFlagChecksums) != 0;
  if (p[kReservedOffset] != std::byte{0}) corrupt("the \"reserved\" byte is not 0");
  header.level = static_cast<int32_t>(static_cast<uint32_t>(read_le(p + kLevelOffset, 4)));
  header.chunk_size = static_cast<uint32_t>(read_le(p + kChunkSizeOffset, 4));
  if (header.chunk_size == 0 || header.chunk_size > kMaxCompressionChunkSize)
    corrupt(fmt::format("\"chunk_size\" {} is not in [1, {}]", header.chunk_size,
                        kMaxCompressionChunkSize));
  header.uncompressed_size = read_le(p + kUncompressedSizeOffset, 8);
  const uint64_t chunk_count = read_le(p + kChunkCountOffset, 8);
  const uint64_t expected_count =
      compression_chunk_count(header.uncompressed_size, header.chunk_size);
  if (chunk_count != expected_count)
    corrupt(fmt::format("\"chunk_count\" is {}, but {} bytes in chunks of {} make {}", chunk_count,
                        header.uncompressed_size, header.chunk_size, expected_count));
  // The tables must fit before their entries are read (division: no overflow).
  const size_t entry = kSizeEntry + (header.has_checksums ? kChecksumEntries : 0);
  const uint64_t after_fixed = total_size - kNativeFixedHeaderSize;
  const size_t trailer = header.has_checksums ? 4 : 0;
  if (after_fixed < trailer || chunk_count > (after_fixed - trailer) / entry)
    corrupt(fmt::format("the tables of {} chunks need more than the {} bytes after the header",
                        chunk_count, after_fixed));
  const auto count = static_cast<size_t>(chunk_count);
  if (bytes.size() < kNativeFixedHeaderSize + count * entry + trailer)
    throw InvalidArgumentError(fmt::format(
        "native bitstream: {} header bytes given, the header has {} (see native_header_size)",
        bytes.size(), kNativeFixedHeaderSize + count * entry + trailer));
  header.compressed_sizes.resize(count);
  const std::byte* table = p + kNativeFixedHeaderSize;
  for (size_t i = 0; i < count; ++i)
    header.compressed_sizes[i] = read_le(table + i * kSizeEntry, 8);
  if (header.has_checksums) {
    const std::byte* crcs = table + count * kSizeEntry;
    header.compressed_crc32c.resize(count);
    header.uncompressed_crc32c.resize(count);
    for (size_t i = 0; i < count; ++i) {
      header.compressed_crc32c[i] = static_cast<uint32_t>(read_le(crcs + i * 8, 4));
      header.uncompressed_crc32c[i] = static_cast<uint32_t>(read_le(crcs + i * 8 + 4, 4));
    }
    header.header_crc32c = static_cast<uint32_t>(read_le(crcs + count * 8, 4));
  }
  // The chunks follow the header back to back and end exactly at the end of the input.
  uint64_t remaining = total_size - header.header_size();
  for (size_t i = 0; i < count; ++i) {
    const uint64_t size = header.compressed_sizes[i];
    if (size == 0) corrupt(fmt::format("chunk {}: \"compressed_size\" is 0", i));
    if (size > remaining)
      corrupt(
          fmt::format("chunk {}: \"compressed_size\" {} runs past the end of the input ({} "
                      "bytes left)",
                      i, size, remaining));
    remaining -= static_cast<size_t>(size);
  }
  if (remaining != 0) corrupt(fmt::format("{} bytes follow the last chunk", remaining));
  return header;
}

void verify_native_header_checksum(const NativeBitstreamHeader& header,
                                   std::span<const std::byte> bytes) {
  if (!header.has_checksums) return;
  const size_t covered = header.header_size() - 4;
  const uint32_t actual = crc32c(bytes.first(covered));
  if (actual != header.header_crc32c)
    corrupt(fmt::format("\"header_crc32c\" is 0x{:08x}, but the header's bytes give 0x{:08x}",
                        header.header_crc32c, actual));
}

void write_native_header(const NativeBitstreamHeader& header, std::span<std::byte> out) {
  std::byte* p = out.data();
  std::memcpy(p, kNativeBitstreamMagic, 4);
  p[kVersionOffset] = std::byte{header.version};
  p[kAlgorithmOffset] = static_cast<std::byte>(header.algorithm);
  p[kFlagsOffset] = std::byte{header.has_checksums ? kFlagChecksums : uint8_t{0}};
  p[kReservedOffset] = std::byte{0};
  write_le(p + kLevelOffset, static_cast<uint32_t>(header.level), 4);
  write_le(p + kChunkSizeOffset, header.chunk_size, 4);
  write_le(p + kUncompressedSizeOffset, header.uncompressed_size, 8);
  write_le(p + kChunkCountOffset, header.chunk_count(), 8);
  std::byte* table = p + kNativeFixedHeaderSize;
  for (size_t i = 0; i < header.chunk_count(); ++i)
    write_le(table + i * kSizeEntry, header.compressed_sizes[i], 8);
  if (header.has_checksums) {
    std::byte* crcs = table + header.chunk_count() * kSizeEntry;
    for (size_t i = 0; i < header.chunk_count(); ++i) {
      write_le(crcs + i * 8, header.compressed_crc32c[i], 4);
      write_le(crcs + i * 8 + 4, header.uncompressed_crc32c[i], 4);
    }
    const size_t covered = header.header_size() - 4;
    write_le(p + covered, crc32c(std::span<const std::byte>(p, covered)), 4);
  }
}

}  // namespace cuzarr
