// The two bit orders of Zstandard (RFC 8878, 4.1): forward little-endian bit fields (FSE table
// descriptions) and backward bitstreams (FSE and Huffman coded streams), which are written
// forwards and read from the end, starting just below the highest set bit of the last byte.
// Both readers only touch bytes inside the (pointer, size) they were given.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Index of the highest set bit of v (v != 0).
CUZARR_HOST_DEVICE inline unsigned zstd_highbit(uint64_t v) {
  unsigned n = 0;
  while (v >>= 1) ++n;
  return n;
}

/// Up to 8 bytes at data[index, ...) as a little-endian integer; bytes at or past `size` read as 0.
CUZARR_HOST_DEVICE inline uint64_t zstd_load_le64_bounded(const unsigned char* data, uint64_t size,
                                                          uint64_t index) {
  uint64_t v = 0;
  if (index < size && size - index >= 8) {
    for (int i = 7; i >= 0; --i) v = (v << 8) | data[index + i];
    return v;
  }
  for (uint64_t i = 0; index + i < size && i < 8; ++i) v |= uint64_t{data[index + i]} << (8 * i);
  return v;
}

/// zstd_load_le64_bounded; on the GPU two aligned 64-bit loads instead of eight byte loads when
/// both aligned words lie inside data[0, size) (all but the few words at the buffer's ends).
CUZARR_HOST_DEVICE inline uint64_t zstd_load_le64(const unsigned char* data, uint64_t size,
                                                  uint64_t index) {
#if defined(__CUDA_ARCH__)
  const auto address = reinterpret_cast<uintptr_t>(data + index);
  const uint32_t skew = static_cast<uint32_t>(address & 7u);
  if (index >= skew && index - skew + 16 <= size) {
    const auto* words = reinterpret_cast<const uint64_t*>(address - skew);
    const uint64_t low = words[0], high = words[1];
    // (high << 1) << (63 - shift): high << (64 - shift) without a shift by 64 when skew is 0.
    const uint32_t shift = 8 * skew;
    return (low >> shift) | ((high << 1) << (63 - shift));
  }
#endif
  return zstd_load_le64_bounded(data, size, index);
}

/// Reads little-endian bit fields from the start of a buffer (bit 0 of byte 0 first).
struct ZstdForwardBitReader {
  const unsigned char* data = nullptr;
  uint64_t size = 0;
  uint64_t bit = 0;  ///< bits consumed

  /// The next n (<= 32) bits; bits past the end read as 0 (check overran()).
  CUZARR_HOST_DEVICE uint32_t peek(unsigned n) const {
    const uint64_t v = zstd_load_le64(data, size, bit >> 3) >> (bit & 7);
    return static_cast<uint32_t>(v & ((uint64_t{1} << n) - 1));
  }
  CUZARR_HOST_DEVICE void skip(unsigned n) { bit += n; }
  CUZARR_HOST_DEVICE bool overran() const { return bit > size * 8; }
  CUZARR_HOST_DEVICE uint64_t bytes_consumed() const { return (bit + 7) / 8; }
};

/// Reads a backward bitstream (RFC 8878, 4.1: "bitstreams are read backward"): the last byte's
/// highest set bit is a marker, the bits below it are read first, most significant first.
struct ZstdBackwardBitReader {
  const unsigned char* data = nullptr;
  uint64_t size = 0;
  uint64_t remaining = 0;  ///< bits not read yet: bits [0, remaining) of the stream
  bool overflow = false;   ///< a read asked for more bits than remained
  /// The last 8 bytes loaded: stream bits [window_base, window_base + 64) (none yet: ~0). Reads
  /// go backwards, so one load serves the next several fields.
  mutable uint64_t window = 0;
  mutable uint64_t window_base = ~uint64_t{0};

  /// corrupt_input for an empty stream or a last byte of 0 (no end marker).
  CUZARR_HOST_DEVICE DeviceChunkStatus init(const unsigned char* d, uint64_t n) {
    data = d;
    size = n;
    overflow = false;
    window_base = ~uint64_t{0};
    if (n == 0 || d[n - 1] == 0) return DeviceChunkStatus::corrupt_input;
    remaining = (n - 1) * 8 + zstd_highbit(d[n - 1]);
    load_below(remaining);
    return DeviceChunkStatus::ok;
  }

  /// Loads the 8 bytes that end with the byte of stream bit top - 1 (the first 8 bytes when
  /// top < 64): the window then holds every bit [max(0, top - 57), top).
  CUZARR_HOST_DEVICE void load_below(uint64_t top) const {
    const uint64_t end = (top + 7) / 8;
    const uint64_t start = end >= 8 ? end - 8 : 0;
    window = zstd_load_le64(data, size, start);
    window_base = start * 8;
  }

  /// Bits [lo, lo + n) of the stream (n <= 56); bits past the end read as 0.
  CUZARR_HOST_DEVICE uint64_t field(uint64_t lo, unsigned n) const {
    if (!(lo >= window_base && lo + n <= window_base + 64)) {
      // Load the 8 bytes that end with the field's last byte (they hold it whole: n <= 57).
      const uint64_t end = (lo + n + 7) / 8;
      const uint64_t start = end >= 8 ? end - 8 : 0;
      window = zstd_load_le64(data, size, start);
      window_base = start * 8;
    }
    return (window >> (lo - window_base)) & ((uint64_t{1} << n) - 1);
  }

  /// The next n (<= 56) bits without consuming them; missing bits below the start read as 0.
  CUZARR_HOST_DEVICE uint64_t peek(unsigned n) const {
    if (n <= remaining) return field(remaining - n, n);
    return remaining == 0 ? 0 : field(0, static_cast<unsigned>(remaining)) << (n - remaining);
  }

  /// Reads n (<= 56) bits; reading past the start sets `overflow` (and yields zero bits).
  CUZARR_HOST_DEVICE uint64_t read(unsigned n) {
    if (n == 0) return 0;
    // The common case: the window (loaded at or above `remaining`) holds the whole field. A
    // reader that has not loaded a window yet has base ~0 and never passes the test.
    if (window_base != ~uint64_t{0} && remaining >= window_base + n) {
      remaining -= n;
      return (window >> (remaining - window_base)) & ((uint64_t{1} << n) - 1);
    }
    if (n <= remaining) {
      load_below(remaining);  // holds bits [remaining - 57, remaining), the field among them
      remaining -= n;
      return (window >> (remaining - window_base)) & ((uint64_t{1} << n) - 1);
    }
    const uint64_t v = peek(n);  // the bits left, then zeros
    overflow = true;
    remaining = 0;
    return v;
  }
};

/// A backward bitstream reader for hot loops (the FSE sequence decoder): 32-bit positions and a
/// 64-bit window, meant to be copied into registers for a run of reads. ensure(n) before reads of
/// n bits in all; a read past the stream's start yields 0 bits and leaves `pos` negative, which
/// the caller checks. Streams of at most 2^28 bytes (a block's bitstream is at most 128 KiB).
struct ZstdBackwardWindow {
  const unsigned char* data = nullptr;
  uint32_t size = 0;
  int32_t pos = 0;      ///< bits not read yet: stream bits [0, pos)
  int32_t base = 0;     ///< the stream bit held by bit 0 of `window`
  uint64_t window = 0;  ///< stream bits [base, base + 64)

  /// corrupt_input for an empty or oversized stream, or a last byte of 0 (no end marker).
  CUZARR_HOST_DEVICE DeviceChunkStatus init(const unsigned char* d, uint64_t n) {
    data = d;
    size = static_cast<uint32_t>(n);
    if (n == 0 || n > (uint64_t{1} << 28) || d[n - 1] == 0) return DeviceChunkStatus::corrupt_input;
    pos = static_cast<int32_t>((n - 1) * 8 + zstd_highbit(d[n - 1]));
    reload();
    return DeviceChunkStatus::ok;
  }

  /// Loads the 8 bytes that end with the byte of bit pos - 1 (the first 8 when pos <= 64): at
  /// least 57 unread bits then lie in the window, or all of them.
  CUZARR_HOST_DEVICE void reload() {
    const uint32_t end = pos > 0 ? (static_cast<uint32_t>(pos) + 7) / 8 : 0;
    const uint32_t start = end >= 8 ? end - 8 : 0;
    window = zstd_load_le64(data, size, start);
    base = static_cast<int32_t>(start * 8);
  }

  /// Makes the next n (<= 57) bits readable from the window.
  CUZARR_HOST_DEVICE void ensure(uint32_t n) {
    if (pos - base < static_cast<int32_t>(n)) reload();
  }

  /// The next n (<= 31) bits, most significant first; 0 past the stream's start.
  CUZARR_HOST_DEVICE uint32_t read(uint32_t n) {
    pos -= static_cast<int32_t>(n);
    const int32_t shift = pos - base;  // 64 for a read of 0 bits at the window's top
    const uint32_t v = shift >= 0 && shift < 64 ? static_cast<uint32_t>(window >> shift) : 0u;
    return v & ((1u << n) - 1u);
  }
};

}  // namespace cuzarr::gpu
