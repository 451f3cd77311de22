// cooperative_copy (wide and narrow) and cooperative_copy_from_aligned (kernel_support.cuh), the
// copies the GPU kernels share, run on the CPU for every rank of a warp: every pair of pointer
// alignments (every destination alignment from a 16-aligned source), lengths around the word sizes;
// the bytes around the destination stay untouched, and the source is an exact-size heap copy (reads
// past it are caught under AddressSanitizer).
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "codec/cuda/kernel_support.cuh"

namespace cuzarr::gpu {
namespace {

constexpr size_t kGuard = 24;
constexpr unsigned char kGuardByte = 0xEE;

/// Copy lengths: every one up to 80, some around larger word multiples, and one long enough that
/// 96 threads keep 8 words in flight each (over 96 x 8 x 16 bytes).
std::vector<size_t> copy_lengths() {
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 80; ++n) lengths.push_back(n);
  for (size_t n : {127, 128, 129, 511, 1000, 4099, 16411}) lengths.push_back(n);
  return lengths;
}

/// n bytes that do not repeat with any period up to 64 KiB (the top byte of a multiplicative hash
/// of the position), so that a word copied to another word's place, however far apart, is caught.
std::vector<unsigned char> copy_data(size_t n, uint32_t seed) {
  std::vector<unsigned char> data(n);
  for (size_t i = 0; i < n; ++i) {
    data[i] = static_cast<unsigned char>((static_cast<uint32_t>(i + seed) * 2654435761u) >> 24);
  }
  return data;
}

/// A destination `dst_skew` bytes past a 16-aligned position of `out`, with guard bytes around it.
unsigned char* guarded_destination(std::vector<unsigned char>& out, size_t n, size_t dst_skew) {
  out.assign(n + dst_skew + 2 * kGuard + 16, kGuardByte);
  unsigned char* base = out.data() + kGuard;
  base += (16 - reinterpret_cast<uintptr_t>(base) % 16) % 16;
  return base + dst_skew;
}

/// dst holds `data` and every other byte of `out` is still a guard byte.
void expect_copied(const std::vector<unsigned char>& out, const unsigned char* dst,
                   const std::vector<unsigned char>& data) {
  const size_t n = data.size();
  ASSERT_TRUE(n == 0 || std::memcmp(dst, data.data(), n) == 0);
  for (const unsigned char* p = out.data(); p < dst; ++p) ASSERT_EQ(*p, kGuardByte);
  for (const unsigned char* p = dst + n; p < out.data() + out.size(); ++p) {
    ASSERT_EQ(*p, kGuardByte);
  }
}

/// cooperative_copy<kWide> from every source alignment to every destination alignment.
template <bool kWide>
void expect_copies_every_alignment() {
  for (size_t n : copy_lengths()) {
    const std::vector<unsigned char> data = copy_data(n, 3);
    for (size_t src_skew = 0; src_skew < 16; ++src_skew) {
      // Every residue modulo 16 (the allocation is 16-aligned); the source ends exactly where
      // its allocation ends.
      auto source = std::unique_ptr<unsigned char[]>(new unsigned char[src_skew + n + 1]);
      unsigned char* src = source.get() + 1 + src_skew;
      if (n > 0) std::memcpy(src, data.data(), n);
      for (size_t dst_skew = 0; dst_skew < 16; ++dst_skew) {
        std::vector<unsigned char> out;
        unsigned char* dst = guarded_destination(out, n, dst_skew);
        for (uint64_t rank = 0; rank < 32; ++rank) {
          detail::cooperative_copy<kWide>(dst, src, n, rank, 32);
        }
        SCOPED_TRACE("n " + std::to_string(n) + " src skew " + std::to_string(src_skew) +
                     " dst skew " + std::to_string(dst_skew) + (kWide ? "" : " narrow"));
        ASSERT_NO_FATAL_FAILURE(expect_copied(out, dst, data));
      }
    }
  }
}

TEST(CooperativeCopy, CopiesEveryAlignmentAndLengthExactly) {
  ASSERT_NO_FATAL_FAILURE(expect_copies_every_alignment<true>());  // the default
  // 4-byte words one at a time (warp_copy_long_items_out_of_line's copy).
  ASSERT_NO_FATAL_FAILURE(expect_copies_every_alignment<false>());
}

/// cooperative_copy_from_aligned with kInFlight words in flight a thread, from an exact-size
/// 16-aligned source to every destination alignment, by 1 to 96 threads.
template <unsigned kInFlight>
void expect_copies_from_aligned_sources() {
  for (size_t n : copy_lengths()) {
    const std::vector<unsigned char> data = copy_data(n, 1);
    // operator new[] returns 16-aligned storage here; the source ends where its allocation ends.
    auto source = std::unique_ptr<unsigned char[]>(new unsigned char[n]);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(source.get()) % 16, 0u);
    if (n > 0) std::memcpy(source.get(), data.data(), n);
    for (size_t dst_skew = 0; dst_skew < 16; ++dst_skew) {
      for (uint64_t ranks : {1u, 3u, 32u, 96u}) {
        std::vector<unsigned char> out;
        unsigned char* dst = guarded_destination(out, n, dst_skew);
        for (uint64_t rank = 0; rank < ranks; ++rank) {
          detail::cooperative_copy_from_aligned<kInFlight>(dst, source.get(), n, rank, ranks);
        }
        SCOPED_TRACE("n " + std::to_string(n) + " dst skew " + std::to_string(dst_skew) +
                     " ranks " + std::to_string(ranks) + " in flight " + std::to_string(kInFlight));
        ASSERT_NO_FATAL_FAILURE(expect_copied(out, dst, data));
      }
    }
  }
}

TEST(CooperativeCopy, CopiesFromAlignedSourcesToEveryDestinationAlignmentExactly) {
  ASSERT_NO_FATAL_FAILURE(expect_copies_from_aligned_sources<4>());  // the default
  ASSERT_NO_FATAL_FAILURE(expect_copies_from_aligned_sources<8>());  // the split's placing
}

}  // namespace
}  // namespace cuzarr::gpu
