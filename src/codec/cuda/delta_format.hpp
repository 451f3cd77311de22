// numcodecs.delta with dtype == astype, written once for the CPU and the GPU: encode stores
// enc[0] = x[0], enc[k] = x[k] - x[k - 1]; decode is the running sum dec[k] = dec[k - 1] + enc[k],
// both in the element type (numpy arithmetic: integers wrap modulo 2^bits, floats round after
// every operation, np.cumsum accumulates sequentially, NaNs as on x86-64). Elements are
// little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// The element types the delta kernels handle.
enum class DeltaType : uint8_t {
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float32,
  float64,
};

/// Bytes per element of `type`.
CUZARR_HOST_DEVICE inline uint32_t delta_type_size(DeltaType type) {
  switch (type) {
    case DeltaType::int8:
    case DeltaType::uint8:
      return 1;
    case DeltaType::int16:
    case DeltaType::uint16:
      return 2;
    case DeltaType::int32:
    case DeltaType::uint32:
    case DeltaType::float32:
      return 4;
    default:
      return 8;
  }
}

/// True for float32 / float64, whose running sum must be computed in order to round as numpy does.
CUZARR_HOST_DEVICE inline bool delta_type_is_float(DeltaType type) {
  return type == DeltaType::float32 || type == DeltaType::float64;
}

/// Calls f(T{}) with the type the arithmetic runs in: the unsigned integer of the element's width
/// for integers (two's complement wrap-around is the same for signed types), float or double.
template <class F>
CUZARR_HOST_DEVICE inline void visit_delta_type(DeltaType type, F&& f) {
  switch (type) {
    case DeltaType::int8:
    case DeltaType::uint8:
      f(uint8_t{});
      break;
    case DeltaType::int16:
    case DeltaType::uint16:
      f(uint16_t{});
      break;
    case DeltaType::int32:
    case DeltaType::uint32:
      f(uint32_t{});
      break;
    case DeltaType::int64:
    case DeltaType::uint64:
      f(uint64_t{});
      break;
    case DeltaType::float32:
      f(float{});
      break;
    case DeltaType::float64:
      f(double{});
      break;
  }
}

/// The float result `r` of a + b or a - b with the NaN that x86-64's SSE arithmetic gives, which
/// numpy there computes: a NaN operand comes back quieted (the first when both are), and an
/// invalid operation (inf - inf) gives the negative default NaN. A GPU gives its one canonical
/// NaN instead, so without this the payloads of NaNs (R's NA, say) would differ between the
/// CPU and the GPU. Other results pass through.
template <class T>
CUZARR_HOST_DEVICE inline T x86_nan_result(T a, T b, T r) {
  if (r == r) return r;
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  constexpr U kQuiet = sizeof(T) == 8 ? U{1} << 51 : U{1} << 22;
  constexpr U kDefault = sizeof(T) == 8 ? U{0xFFF8} << 48 : U{0xFFC0} << 16;
  U bits = kDefault;
  if (a != a) {
    memcpy(&bits, &a, sizeof bits);
    bits |= kQuiet;
  } else if (b != b) {
    memcpy(&bits, &b, sizeof bits);
    bits |= kQuiet;
  }
  memcpy(&r, &bits, sizeof r);
  return r;
}

/// a + b in T (wrapping for unsigned integers; integer promotion undone; floats with the NaN
/// rule of x86_nan_result).
template <class T>
CUZARR_HOST_DEVICE inline T delta_add(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return x86_nan_result(a, b, a + b);
  } else {
    return static_cast<T>(a + b);
  }
}
/// a - b in T.
template <class T>
CUZARR_HOST_DEVICE inline T delta_subtract(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return x86_nan_result(a, b, a - b);
  } else {
    return static_cast<T>(a - b);
  }
}

/// The element at `p` (little-endian host and device).
template <class T>
CUZARR_HOST_DEVICE inline T delta_load(const unsigned char* p) {
  T value;
  memcpy(&value, p, sizeof(T));
  return value;
}
template <class T>
CUZARR_HOST_DEVICE inline void delta_store(unsigned char* p, T value) {
  memcpy(p, &value, sizeof(T));
}

/// Serial reference: dst = delta-encode(src), `count` elements of `type`.
CUZARR_HOST_DEVICE inline void delta_encode_serial(const unsigned char* src, unsigned char* dst,
                                                   uint64_t count, DeltaType type) {
  visit_delta_type(type, [&](auto t) {
    using T = decltype(t);
    T previous{};
    for (uint64_t k = 0; k < count; ++k) {
      const T value = delta_load<T>(src + k * sizeof(T));
      delta_store<T>(dst + k * sizeof(T), k == 0 ? value : delta_subtract(value, previous));
      previous = value;
    }
  });
}

/// Serial reference: dst = delta-decode(src) (running sum), `count` elements of `type`.
CUZARR_HOST_DEVICE inline void delta_decode_serial(const unsigned char* src, unsigned char* dst,
                                                   uint64_t count, DeltaType type) {
  visit_delta_type(type, [&](auto t) {
    using T = decltype(t);
    T sum{};
    for (uint64_t k = 0; k < count; ++k) {
      const T value = delta_load<T>(src + k * sizeof(T));
      sum = k == 0 ? value : delta_add(sum, value);
      delta_store<T>(dst + k * sizeof(T), sum);
    }
  });
}

}  // namespace cuzarr::gpu
