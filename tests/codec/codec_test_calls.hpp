// One-chunk wrappers around the batched codec calls, for tests.
#pragma once

#include <utility>
#include <vector>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr::test {

struct BytesResult {
  ChunkStatus status;
  Buffer bytes;
};

inline BytesResult encode_one(const BytesToBytesCodec& codec, const Buffer& in,
                              const ChunkRepresentation& rep) {
  std::vector<Buffer> ins{in}, outs(1);
  std::vector<ChunkStatus> status(1);
  codec.encode(ins, outs, rep, status);
  return {status[0], outs[0]};
}

inline BytesResult decode_one(const BytesToBytesCodec& codec, const Buffer& in,
                              const ChunkRepresentation& rep) {
  std::vector<Buffer> ins{in}, outs(1);
  std::vector<ChunkStatus> status(1);
  codec.decode(ins, outs, rep, status);
  return {status[0], outs[0]};
}

inline std::vector<std::byte> to_vector(const Buffer& b) {
  return std::vector<std::byte>(b.data(), b.data() + b.size());
}

}  // namespace cuzarr::test
