// The wider sums of the GPU's speculative float delta decode (delta_kernels.cu). numpy's cumsum
// rounds after every addition, so its result is serial by definition; but when each of those
// additions is exact (as for the differences of a smooth field: Sterbenz's lemma makes
// x[k] - x[k - 1] exact, and adding it back to x[k - 1] gives x[k] again), the running sum equals
// the rounded prefix sums of any order, computed wide enough. The decoder takes those (a parallel
// scan in FloatSum<T>), then checks every step against numpy's (rounded(z[k - 1] + enc[k]) ==
// z[k]) and decodes serially from the first step that differs. Written once for the CPU tests and
// the kernels.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "codec/cuda/delta_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

template <class T>
struct FloatSum;

/// float32 values summed in double: exact while the sum needs at most 53 significant bits (values
/// within 2^29 of each other in magnitude, whatever their count up to 2^24).
template <>
struct FloatSum<float> {
  double value;  // no initialiser: the kernels keep sums in shared memory

  CUZARR_HOST_DEVICE static FloatSum zero() { return {0.0}; }
  CUZARR_HOST_DEVICE static FloatSum of(float x) { return {static_cast<double>(x)}; }
  CUZARR_HOST_DEVICE FloatSum plus(const FloatSum& o) const { return {value + o.value}; }
  /// The float nearest to the sum.
  CUZARR_HOST_DEVICE float rounded() const { return static_cast<float>(value); }
};

/// float64 values summed as a double-double (hi + lo, |lo| <= ulp(hi) / 2): about 106
/// significant bits, by Knuth's error-free TwoSum.
template <>
struct FloatSum<double> {
  double hi;
  double lo;

  CUZARR_HOST_DEVICE static FloatSum zero() { return {0.0, 0.0}; }
  CUZARR_HOST_DEVICE static FloatSum of(double x) { return {x, 0.0}; }
  CUZARR_HOST_DEVICE FloatSum plus(const FloatSum& o) const {
    const double s = hi + o.hi;  // TwoSum: s + e == hi + o.hi exactly
    const double b = s - hi;
    const double e = (hi - (s - b)) + (o.hi - b);
    const double t = e + (lo + o.lo);
    const double h = s + t;  // renormalise (Fast2Sum: |s| >= |t| after TwoSum)
    return {h, t - (h - s)};
  }
  /// The double nearest to hi + lo (hi itself after renormalising).
  CUZARR_HOST_DEVICE double rounded() const { return hi + lo; }
};

/// The bits of a float or double, to compare results exactly (-0.0 differs from 0.0).
template <class T>
CUZARR_HOST_DEVICE inline auto float_bits(T x) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  U u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/// Whether z is numpy's step of the running sum: z[k] = previous + enc[k], rounded to T, NaNs as
/// delta_add gives them (the first element: previous = -0.0, so that z[0] == enc[0] bit for bit).
template <class T>
CUZARR_HOST_DEVICE inline bool delta_step_holds(T previous, T encoded, T z) {
  const T step = delta_add(previous, encoded);
  return float_bits(step) == float_bits(z);
}

}  // namespace cuzarr::gpu
