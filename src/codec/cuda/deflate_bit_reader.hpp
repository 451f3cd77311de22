// The bit reader of the deflate decoder (RFC 1951), for the CPU and the GPU: a 64-bit buffer
// filled from the input in stream order. RFC 1951, section 3.1.1: data elements are packed
// starting with the least significant bit of each byte; Huffman codes start with their most
// significant bit, every other field with its least significant bit.
//
// Reads never touch memory past in[size): past the end the buffer is filled with zero bits that
// are counted, so that `overrun()` tells whether the decoder consumed bits the input does not
// hold (a truncated stream) and the caller can reject the result.
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

struct DeflateBitReader {
  const unsigned char* in = nullptr;
  uint64_t size = 0;
  uint64_t pos = 0;     ///< the next input byte to load (may pass size: zero padding)
  uint64_t buffer = 0;  ///< unconsumed bits, the next one in bit 0
  uint32_t count = 0;   ///< bits in `buffer`

  CUZARR_HOST_DEVICE void reset(const unsigned char* data, uint64_t data_size, uint64_t start) {
    in = data;
    size = data_size;
    pos = start;
    buffer = 0;
    count = 0;
  }

  /// Fills the buffer to at least 57 bits.
  CUZARR_HOST_DEVICE void refill() {
    if (count > 56) return;
    if (pos + 8 <= size) {
      // Fast path: 8 input bytes are there; take as many whole bytes as fit.
      const uint32_t take = (64 - count) / 8;  // 1..8 bytes, leaving 57..64 bits
      for (uint32_t k = 0; k < take; ++k) buffer |= uint64_t{in[pos + k]} << (count + 8 * k);
      pos += take;
      count += 8 * take;
      return;
    }
    while (count <= 56) {
      const uint64_t byte = pos < size ? in[pos] : 0;
      buffer |= byte << count;
      ++pos;
      count += 8;
    }
  }

  /// The next n <= 32 bits (the buffer must hold them: call refill first).
  CUZARR_HOST_DEVICE uint32_t peek(uint32_t n) const {
    return static_cast<uint32_t>(buffer & ((uint64_t{1} << n) - 1));
  }
  CUZARR_HOST_DEVICE void consume(uint32_t n) {
    buffer >>= n;
    count -= n;
  }
  /// Reads n <= 32 bits, least significant first (refills as needed).
  CUZARR_HOST_DEVICE uint32_t bits(uint32_t n) {
    if (count < n) refill();
    const uint32_t v = peek(n);
    consume(n);
    return v;
  }

  /// Bytes consumed so far, counting a partly consumed byte as whole.
  CUZARR_HOST_DEVICE uint64_t consumed_bytes() const { return pos - count / 8; }
  /// Whether more bits were consumed than the input holds (the stream is truncated).
  CUZARR_HOST_DEVICE bool overrun() const { return pos * 8 - count > size * 8; }

  /// Skips to the next byte boundary and returns the buffer to the input: afterwards `pos` is the
  /// first unconsumed byte (RFC 1951, 3.2.4: stored blocks and the end of the stream are
  /// byte-aligned). Call only when !overrun().
  CUZARR_HOST_DEVICE void align_to_byte() {
    consume(count % 8);
    pos -= count / 8;
    buffer = 0;
    count = 0;
  }
};

}  // namespace cuzarr::gpu
