// Test helper for the CPU-run warp decoder tests: output buffers of capacity + kGuard bytes, all
// kGuardByte at first, whose bytes past the capacity a decoder must leave untouched.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuzarr::test {

inline constexpr size_t kGuard = 64;  ///< bytes past the capacity that must stay untouched
inline constexpr unsigned char kGuardByte = 0xEE;

/// Fails the test unless every byte of `out` from `capacity` on is still kGuardByte.
inline void expect_guard_intact(const std::vector<unsigned char>& out, uint64_t capacity) {
  for (size_t k = capacity; k < out.size(); ++k) ASSERT_EQ(out[k], kGuardByte) << "byte " << k;
}

}  // namespace cuzarr::test
