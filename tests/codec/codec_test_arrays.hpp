// Test arrays for the codec tests: deterministic random chunks, strided views, element-wise
// comparison, and an independent (naive) model of the bytes the "bytes" codec must produce.
#pragma once

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cuzarr/codec/chunk_representation.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr::test {

inline std::vector<std::byte> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> bytes(n);
  for (auto& b : bytes) b = static_cast<std::byte>(rng() & 0xFF);
  return bytes;
}

/// A C-order array of `dtype` and `shape` with deterministic contents; half of the elements
/// repeat (so compressors have something to find); booleans are 0 or 1.
inline NDBuffer make_array(DataType dtype, Shape shape, uint32_t seed) {
  NDBuffer a = NDBuffer::allocate(dtype, std::move(shape));
  auto bytes = random_bytes(static_cast<size_t>(a.nbytes()), seed);
  const size_t elem = dtype.size();
  for (size_t i = 0; i + 1 < bytes.size() / elem; i += 2) {
    std::memcpy(bytes.data() + (i + 1) * elem, bytes.data() + i * elem, elem);
  }
  if (dtype.kind() == DataTypeKind::boolean) {
    for (auto& b : bytes) b = b & std::byte{1};
  }
  if (!bytes.empty()) std::memcpy(a.data(), bytes.data(), bytes.size());
  return a;
}

/// The same values as `source` seen through a non-contiguous view: a buffer twice as large in
/// the last dimension (every other element used) and the first dimension reversed.
inline NDBuffer strided_copy(const NDBuffer& source) {
  Shape big = source.shape();
  if (big.empty()) return source;
  big.back() *= 2;
  NDBuffer storage = NDBuffer::allocate(source.dtype(), big);
  std::vector<std::byte> zero(source.dtype().size(), std::byte{0x5A});
  storage.fill(zero);
  NDBuffer view = storage.sliced(big.size() - 1, 0, 2, source.shape().back());
  if (source.shape()[0] > 0) view = view.sliced(0, source.shape()[0] - 1, -1, source.shape()[0]);
  // view[i] = storage[n-1-i]: fill so that view equals source.
  view.assign(source);
  return view;
}

/// The elements of `a` in C order as contiguous bytes (host byte order).
inline std::vector<std::byte> c_order_bytes(const NDBuffer& a) {
  NDBuffer dense = NDBuffer::allocate(a.dtype(), a.shape());
  dense.assign(a);
  const auto* p = dense.data();
  return std::vector<std::byte>(p, p + dense.nbytes());
}

inline bool same_elements(const NDBuffer& a, const NDBuffer& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && c_order_bytes(a) == c_order_bytes(b);
}

/// Naive transposition of a C-order byte image: encoded dim i is decoded dim order[i].
inline std::vector<std::byte> transpose_bytes(const std::vector<std::byte>& decoded,
                                              const Shape& shape, const std::vector<int64_t>& order,
                                              size_t elem) {
  const size_t rank = shape.size();
  Shape encoded_shape(rank);
  for (size_t i = 0; i < rank; ++i) encoded_shape[i] = shape[static_cast<size_t>(order[i])];
  std::vector<std::byte> out(decoded.size());
  const int64_t n = static_cast<int64_t>(decoded.size() / (elem == 0 ? 1 : elem));
  std::vector<int64_t> e(rank, 0), d(rank, 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    // e = unravel(linear, encoded_shape)
    int64_t rest = linear;
    for (size_t i = rank; i-- > 0;) {
      e[i] = rest % encoded_shape[i];
      rest /= encoded_shape[i];
    }
    for (size_t i = 0; i < rank; ++i) d[static_cast<size_t>(order[i])] = e[i];
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src = src * shape[i] + d[i];
    std::memcpy(out.data() + linear * static_cast<int64_t>(elem),
                decoded.data() + src * static_cast<int64_t>(elem), elem);
  }
  return out;
}

/// Reverses each endian unit of a byte image (the model of big-endian encoding on this host).
inline std::vector<std::byte> swap_units(std::vector<std::byte> bytes, size_t unit) {
  for (size_t off = 0; unit > 1 && off + unit <= bytes.size(); off += unit) {
    for (size_t k = 0; k < unit / 2; ++k) std::swap(bytes[off + k], bytes[off + unit - 1 - k]);
  }
  return bytes;
}

inline std::vector<CodecSpec> parse_specs(const nlohmann::json& codecs) {
  std::vector<CodecSpec> specs;
  for (const auto& c : codecs) specs.push_back(CodecSpec::from_json(c));
  return specs;
}

inline ChunkRepresentation representation(DataType dtype, Shape shape) {
  return ChunkRepresentation{std::move(shape), dtype,
                             std::vector<std::byte>(dtype.size(), std::byte{0})};
}

}  // namespace cuzarr::test
