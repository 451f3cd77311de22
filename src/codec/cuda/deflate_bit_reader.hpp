// The bit reader of the deflate decoder (RFC 1951), for the CPU and the GPU: a 64-bit buffer
// filled from the input in stream order. RFC 1951, section 3.1.1: data elements are packed
// starting with the least significant bit of each byte; Huffman codes start with their most
// significant bit, every other field with its least significant bit.
//
// Reads never touch memory past in[size): past the end the buffer is filled with zero bits that
// are counted, so that `overrun()` tells whether the decoder consumed bits the input does not
// hold (a truncated stream) and the caller can reject the result. Word-wide refills load aligned
// 64-bit words; when `in` itself is not 8-byte aligned, the first one also covers up to 7 bytes
// before in[0], inside the same aligned word (so inside the same allocation), and ignores them.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

struct DeflateBitReader {
  /// An aligned little-endian 64-bit word of the input (deflate streams are read least
  /// significant byte first; CUDA GPUs and the supported CPUs are little-endian).
  CUZARR_HOST_DEVICE static uint64_t load_word(const uint64_t* word) {
#if defined(__CUDA_ARCH__)
    return __ldg(word);
#else
    uint64_t v;
    std::memcpy(&v, word, sizeof v);
    return v;
#endif
  }

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
    if (pos + 16 <= size) {
      refill_fast();
      return;
    }
    const uint32_t take = (64 - count) / 8;  // whole bytes that fit: 1..8, leaving 57..64 bits
    buffer |= tail_bytes(in, size, pos, take) << count;
    pos += take;
    count += 8 * take;
  }

  /// in[pos, pos + n) (n <= 8) as a little-endian integer, bytes at or past `size` as zero: the
  /// refill near the input's end, byte by byte (not inlined on the GPU: it is rare).
  CUZARR_HOST_DEVICE CUZARR_NOINLINE static uint64_t tail_bytes(const unsigned char* in,
                                                                uint64_t size, uint64_t pos,
                                                                uint32_t n) {
    uint64_t v = 0;
    CUZARR_NO_UNROLL
    for (uint32_t i = 0; i < n; ++i) v |= uint64_t{pos + i < size ? in[pos + i] : 0u} << (8 * i);
    return v;
  }

  /// refill() when pos + 16 <= size and count <= 56: the 8 bytes at pos come from the two
  /// aligned 64-bit words that hold them (both within in[0, size)), one load each instead of a
  /// load per byte. The whole word is or-ed in; bits past the new count are the stream's own
  /// next bits, so or-ing them in again at the next refill changes nothing.
  CUZARR_HOST_DEVICE void refill_fast() {
    const auto address = reinterpret_cast<uintptr_t>(in + pos);
    const auto* words = reinterpret_cast<const uint64_t*>(address & ~uintptr_t{7});
    const uint32_t shift = static_cast<uint32_t>(address & 7u) * 8;
#if defined(__CUDA_ARCH__)
    // One thread reads the stream: ask for the cache line 256 bytes ahead early, so that the
    // loads that reach it hit L1 instead of waiting on the memory.
    if (pos + 272 <= size) asm volatile("prefetch.global.L1 [%0];" ::"l"(words + 32));
#endif
    const uint64_t low = load_word(words), high = load_word(words + 1);
    // (high << 1) << (63 - shift): high << (64 - shift) without a shift by 64 when shift is 0.
    const uint64_t next8 = (low >> shift) | ((high << 1) << (63 - shift));
    buffer |= next8 << count;
    const uint32_t take = (64 - count) / 8;  // whole bytes that fit: 1..8, leaving 57..64 bits
    pos += take;
    count += 8 * take;
  }

  /// Makes sure the buffer holds at least n <= 57 bits (refilling when it holds fewer).
  CUZARR_HOST_DEVICE void ensure(uint32_t n) {
    if (count < n) refill();
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

  /// Starts reading at stream bit `bit` of in[0, data_size) (bit 0: the lowest bit of in[0]).
  CUZARR_HOST_DEVICE void seek_bit(const unsigned char* data, uint64_t data_size, uint64_t bit) {
    reset(data, data_size, bit / 8);
    refill();
    consume(static_cast<uint32_t>(bit % 8));
  }
  /// The stream bit the next read starts at.
  CUZARR_HOST_DEVICE uint64_t bit_position() const { return pos * 8 - count; }

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
