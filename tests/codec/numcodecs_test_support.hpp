// Helpers for the numcodecs codec tests: hex vectors and single-chunk encode/decode calls.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::numcodecs_test {

inline Buffer from_hex(const std::string& hex) {
  Buffer b = Buffer::allocate(hex.size() / 2);
  for (size_t i = 0; i < b.size(); ++i)
    b.data()[i] = static_cast<std::byte>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return b;
}

inline std::string to_hex(const Buffer& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::byte x : b.bytes()) {
    s += digits[static_cast<unsigned>(x) >> 4];
    s += digits[static_cast<unsigned>(x) & 15u];
  }
  return s;
}

inline std::string to_hex(const NDBuffer& a) {
  return to_hex(
      Buffer::copy_of(std::span<const std::byte>(a.data(), static_cast<size_t>(a.nbytes()))));
}

inline ChunkRepresentation rep(DataType type, Shape shape) {
  return ChunkRepresentation{std::move(shape), type, std::vector<std::byte>(type.size())};
}

template <class T>
inline NDBuffer array_of(DataType type, const std::vector<T>& values) {
  NDBuffer a = NDBuffer::allocate(type, {static_cast<int64_t>(values.size())});
  std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

template <class C>
std::shared_ptr<C> make(const std::string& name, const nlohmann::json& config,
                        const ChunkRepresentation& r) {
  auto codec =
      std::dynamic_pointer_cast<C>(CodecRegistry::instance().create(CodecSpec{name, config}, r));
  EXPECT_NE(codec, nullptr) << name;
  return codec;
}

/// Runs a one-chunk batch; returns the status (the output lands in `out`).
template <class Codec, class In, class Out>
ChunkStatus encode_one(const Codec& codec, const In& in, Out& out, const ChunkRepresentation& r) {
  std::vector<In> ins{in};
  std::vector<Out> outs(1);
  std::vector<ChunkStatus> status(1);
  codec.encode(ins, outs, r, status);
  out = outs[0];
  return status[0];
}
template <class Codec, class In, class Out>
ChunkStatus decode_one(const Codec& codec, const In& in, Out& out, const ChunkRepresentation& r) {
  std::vector<In> ins{in};
  std::vector<Out> outs(1);
  std::vector<ChunkStatus> status(1);
  codec.decode(ins, outs, r, status);
  out = outs[0];
  return status[0];
}

}  // namespace cuzarr::numcodecs_test
