// The zlib (RFC 1950) and gzip (RFC 1952) containers around deflate streams, for the CPU and
// the GPU: header parsing with every field checked, trailer checks (Adler-32; CRC-32 and ISIZE),
// and gzip members back to back.
//
// The driver inflate_wrapped is written once over an "engine" that decodes a deflate stream and
// computes checksums: SerialInflateEngine here (CPU tests, reference), a warp-cooperative one in
// the GPU kernels, so that both give the same status on any input.
#pragma once

#include <cstdint>

#include "codec/cuda/adler32.hpp"
#include "codec/cuda/crc32_table.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "codec/cuda/little_endian.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// The container around the deflate data of a chunk.
enum class DeflateWrapper : uint8_t {
  raw,   ///< a bare deflate stream (RFC 1951); bytes after it are ignored
  zlib,  ///< one zlib stream (RFC 1950); bytes after its Adler-32 are ignored, as zlib does
  gzip,  ///< one or more gzip members (RFC 1952) back to back, filling the input exactly
  /// members that are each a gzip member or a zlib stream (told apart by gzip's magic bytes),
  /// filling the input exactly: what zlib's inflate with automatic header detection accepts
  /// when restarted after each member (cuzarr's CPU gzip codec decodes this way)
  gzip_or_zlib,
};

// RFC 1952, 2.3.1: FLG bits.
inline constexpr uint32_t kGzipFlagText = 0x01;
inline constexpr uint32_t kGzipFlagHeaderCrc = 0x02;
inline constexpr uint32_t kGzipFlagExtra = 0x04;
inline constexpr uint32_t kGzipFlagName = 0x08;
inline constexpr uint32_t kGzipFlagComment = 0x10;
inline constexpr uint32_t kGzipFlagReserved = 0xE0;
inline constexpr uint64_t kGzipFixedHeaderSize = 10;
inline constexpr uint64_t kGzipTrailerSize = 8;
inline constexpr uint64_t kZlibHeaderSize = 2;
inline constexpr uint64_t kZlibTrailerSize = 4;

/// Parses a zlib header at in[pos] (RFC 1950, 2.2) and advances pos past it. corrupt_input for a
/// truncated header, a method other than deflate (CM 8), a window above 32 KiB (CINFO > 7) or a
/// failing FCHECK; unsupported for a preset dictionary (FDICT), whose bytes a chunk cannot carry.
CUZARR_HOST_DEVICE inline DeviceChunkStatus parse_zlib_header(const unsigned char* in,
                                                              uint64_t size, uint64_t& pos) {
  if (size - pos < kZlibHeaderSize) return DeviceChunkStatus::corrupt_input;
  const uint32_t cmf = in[pos], flg = in[pos + 1];
  if ((cmf & 0x0Fu) != 8 || (cmf >> 4) > 7) return DeviceChunkStatus::corrupt_input;
  // FCHECK: CMF * 256 + FLG is a multiple of 31.
  if ((cmf * 256 + flg) % 31 != 0) return DeviceChunkStatus::corrupt_input;
  if (flg & 0x20u) return DeviceChunkStatus::unsupported;  // FDICT
  pos += kZlibHeaderSize;
  return DeviceChunkStatus::ok;
}

/// Parses a gzip member header at in[pos] (RFC 1952, 2.3.1) and advances pos past it:
/// ID1 ID2 CM FLG MTIME(4) XFL OS, then as FLG says, FEXTRA (XLEN, XLEN bytes), FNAME and
/// FCOMMENT (zero-terminated), FHCRC (the low 16 bits of the CRC-32 of the header bytes before
/// it; checked when `verify`). corrupt_input for a truncated header, wrong magic, a method other
/// than deflate, reserved flag bits set (2.3.1.2: "must give an error"), or a wrong header CRC.
template <class Engine>
CUZARR_HOST_DEVICE inline DeviceChunkStatus parse_gzip_header(const unsigned char* in,
                                                              uint64_t size, uint64_t& pos,
                                                              bool verify, Engine& engine) {
  const uint64_t start = pos;
  if (size - pos < kGzipFixedHeaderSize) return DeviceChunkStatus::corrupt_input;
  if (in[pos] != 0x1F || in[pos + 1] != 0x8B || in[pos + 2] != 8)
    return DeviceChunkStatus::corrupt_input;
  const uint32_t flags = in[pos + 3];
  if (flags & kGzipFlagReserved) return DeviceChunkStatus::corrupt_input;
  pos += kGzipFixedHeaderSize;
  if (flags & kGzipFlagExtra) {
    if (size - pos < 2) return DeviceChunkStatus::corrupt_input;
    const uint64_t xlen = uint64_t{in[pos]} | uint64_t{in[pos + 1]} << 8;
    pos += 2;
    if (size - pos < xlen) return DeviceChunkStatus::corrupt_input;
    pos += xlen;
  }
  for (uint32_t k = 0; k < 2; ++k) {  // FNAME, then FCOMMENT
    if (!(flags & (k == 0 ? kGzipFlagName : kGzipFlagComment))) continue;
    while (pos < size && in[pos] != 0) ++pos;
    if (pos == size) return DeviceChunkStatus::corrupt_input;  // no terminating zero
    ++pos;
  }
  if (flags & kGzipFlagHeaderCrc) {
    if (size - pos < 2) return DeviceChunkStatus::corrupt_input;
    const uint32_t stored = uint32_t{in[pos]} | uint32_t{in[pos + 1]} << 8;
    if (verify && (engine.crc32(in + start, pos - start) & 0xFFFFu) != stored)
      return DeviceChunkStatus::corrupt_input;
    pos += 2;
  }
  return DeviceChunkStatus::ok;
}

/// Whether a member's trailer at `trailer` (in the input) matches its `produced` decoded bytes at
/// `out`: for gzip (RFC 1952, 2.3.1) CRC32 then ISIZE = the size mod 2^32, both little-endian;
/// for zlib (RFC 1950, 2.2) ADLER32, most significant byte first.
template <class Engine>
CUZARR_HOST_DEVICE inline bool member_trailer_holds(const unsigned char* trailer, bool gzip,
                                                    const unsigned char* out, uint64_t produced,
                                                    const Engine& engine) {
  if (gzip) {
    return load_le32(trailer + 4) == static_cast<uint32_t>(produced) &&
           engine.crc32(out, produced) == load_le32(trailer);
  }
  const uint32_t adler = uint32_t{trailer[0]} << 24 | uint32_t{trailer[1]} << 16 |
                         uint32_t{trailer[2]} << 8 | uint32_t{trailer[3]};
  return engine.adler32(out, produced) == adler;
}

/// Decodes a chunk in `wrapper` into out[0..capacity). Checksums (Adler-32; CRC-32 and ISIZE)
/// are compared when `verify` is set: checksum_mismatch when one differs. Other statuses:
/// corrupt_input (malformed or truncated input), output_too_small, unsupported (a zlib preset
/// dictionary). `size` of the result: bytes decoded; `consumed`: input bytes used.
template <class Engine>
CUZARR_HOST_DEVICE inline InflateResult inflate_wrapped(const unsigned char* in, uint64_t size,
                                                        unsigned char* out, uint64_t capacity,
                                                        DeflateWrapper wrapper, bool verify,
                                                        Engine& engine) {
  if (wrapper == DeflateWrapper::raw) return engine.deflate(in, size, 0, out, capacity, 0);
  uint64_t pos = 0, op = 0;
  for (;;) {
    const bool gzip = wrapper == DeflateWrapper::gzip ||
                      (wrapper == DeflateWrapper::gzip_or_zlib && size - pos >= 2 &&
                       in[pos] == 0x1F && in[pos + 1] == 0x8B);
    const DeviceChunkStatus header =
        gzip ? parse_gzip_header(in, size, pos, verify, engine) : parse_zlib_header(in, size, pos);
    if (header != DeviceChunkStatus::ok) return {header, op, pos};
    const uint64_t member_start = op;
    const InflateResult r = engine.deflate(in, size, pos, out, capacity, op);
    if (r.status != DeviceChunkStatus::ok) return r;
    pos = r.consumed;
    op = r.size;
    const uint64_t produced = op - member_start;
    if (gzip) {
      if (size - pos < kGzipTrailerSize) return {DeviceChunkStatus::corrupt_input, op, pos};
      if (verify && !member_trailer_holds(in + pos, true, out + member_start, produced, engine))
        return {DeviceChunkStatus::checksum_mismatch, op, pos};
      pos += kGzipTrailerSize;
    } else {
      if (size - pos < kZlibTrailerSize) return {DeviceChunkStatus::corrupt_input, op, pos};
      if (verify && !member_trailer_holds(in + pos, false, out + member_start, produced, engine))
        return {DeviceChunkStatus::checksum_mismatch, op, pos};
      pos += kZlibTrailerSize;
    }
    if (wrapper == DeflateWrapper::zlib || pos == size) return {DeviceChunkStatus::ok, op, pos};
    // RFC 1952, 2.2: "A gzip file consists of a series of members"; the next one follows.
  }
}

/// Decodes and checksums on the calling thread: the reference the GPU kernels are tested against.
struct SerialInflateEngine {
  InflateWorkspace* workspace = nullptr;
  const uint32_t (*crc_table)[256] = nullptr;  ///< make_crc32_tables().table

  CUZARR_HOST_DEVICE InflateResult deflate(const unsigned char* in, uint64_t size, uint64_t start,
                                           unsigned char* out, uint64_t capacity, uint64_t op) {
    return inflate_run_serial(in, size, start, out, capacity, op, *workspace);
  }
  CUZARR_HOST_DEVICE uint32_t crc32(const unsigned char* p, uint64_t n) const {
    return ::cuzarr::gpu::crc32(p, n, crc_table);
  }
  CUZARR_HOST_DEVICE uint32_t adler32(const unsigned char* p, uint64_t n) const {
    return ::cuzarr::gpu::adler32(p, n);
  }
};

/// Serial decode of one chunk (see inflate_wrapped); `crc_table`: make_crc32_tables().table.
CUZARR_HOST_DEVICE inline InflateResult inflate_serial(const unsigned char* in, uint64_t size,
                                                       unsigned char* out, uint64_t capacity,
                                                       DeflateWrapper wrapper, bool verify,
                                                       InflateWorkspace& workspace,
                                                       const uint32_t (*crc_table)[256]) {
  SerialInflateEngine engine{&workspace, crc_table};
  return inflate_wrapped(in, size, out, capacity, wrapper, verify, engine);
}

}  // namespace cuzarr::gpu
