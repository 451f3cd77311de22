#include "codec/direct_chunk_encoder.hpp"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// A per-thread buffer for gathering strided chunks; it grows to the largest chunk seen and keeps
// its pages (no fresh zeroed pages per chunk). Safe as a thread_local: encode() runs no nested
// parallel loop, so no other chunk runs on this thread while the buffer is in use.
std::span<std::byte> gather_buffer(size_t size) {
  thread_local std::unique_ptr<std::byte[]> bytes;
  thread_local size_t capacity = 0;
  if (capacity < size) {
    bytes.reset();
    bytes.reset(new std::byte[size]);
    capacity = size;
  }
  return {bytes.get(), size};
}

// Copies `n` runs of `Run` bytes, `stride` bytes apart in the source, into consecutive bytes:
// a fixed-size memcpy compiles to a few vector moves instead of a library call per run.
template <size_t Run>
std::byte* gather_runs(std::byte* dst, const std::byte* src, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i, dst += Run) std::memcpy(dst, src + i * stride, Run);
  return dst;
}

// Copies the innermost dimension (shape[ndim-1] runs of `run` bytes, stride[ndim-1] apart) of
// every position of the outer dimensions, in C order, into consecutive bytes at `dst`.
std::byte* gather(std::byte* dst, const std::byte* src, const int64_t* shape,
                  const int64_t* strides, size_t ndim, size_t run) {
  if (ndim > 1) {
    for (int64_t i = 0; i < shape[0]; ++i)
      dst = gather(dst, src + i * strides[0], shape + 1, strides + 1, ndim - 1, run);
    return dst;
  }
  const int64_t n = ndim == 1 ? shape[0] : 1;
  const int64_t stride = ndim == 1 ? strides[0] : 0;
  switch (run) {  // the rows of small inner chunks (e.g. 32 uint16 elements: 64 bytes)
    case 16:
      return gather_runs<16>(dst, src, n, stride);
    case 32:
      return gather_runs<32>(dst, src, n, stride);
    case 64:
      return gather_runs<64>(dst, src, n, stride);
    case 128:
      return gather_runs<128>(dst, src, n, stride);
    case 256:
      return gather_runs<256>(dst, src, n, stride);
    default:
      for (int64_t i = 0; i < n; ++i, dst += run) std::memcpy(dst, src + i * stride, run);
      return dst;
  }
}

// The elements of `chunk` (host memory, any strides, no overlapping elements) in C order at
// `dst`: unit dimensions dropped, trailing dimensions contiguous in the source merged into one
// run.
void gather_c_order(const NDBuffer& chunk, std::byte* dst) {
  if (chunk.size() == 0) return;
  Shape shape;
  std::vector<int64_t> strides;
  for (size_t d = 0; d < chunk.ndim(); ++d) {
    if (chunk.shape()[d] == 1) continue;
    shape.push_back(chunk.shape()[d]);
    strides.push_back(chunk.byte_strides()[d]);
  }
  size_t run = chunk.dtype().size();
  while (!shape.empty() && strides.back() == static_cast<int64_t>(run)) {
    run *= static_cast<size_t>(shape.back());
    shape.pop_back();
    strides.pop_back();
  }
  gather(dst, chunk.data(), shape.data(), strides.data(), shape.size(), run);
}

}  // namespace

std::optional<DirectChunkEncoder> DirectChunkEncoder::for_chain(const CodecChain& chain) {
  const ChunkRepresentation& rep = chain.decoded_representation();
  if (!chain.array_to_array().empty() || chain.bytes_to_bytes().size() > 1) return std::nullopt;
  const auto* bytes = dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get());
  if (!bytes || bytes->needs_swap(rep.data_type) || rep.data_type.is_variable_length())
    return std::nullopt;
  const auto nbytes = static_cast<size_t>(rep.nbytes());
  // [bytes] alone: the encoded chunk is its elements in C order.
  if (chain.bytes_to_bytes().empty()) return DirectChunkEncoder(chain, nullptr, nbytes);
  const BytesToBytesCodec& codec = *chain.bytes_to_bytes()[0];
  const auto bound = codec.encode_into_bound(nbytes);
  if (!bound) return std::nullopt;
  return DirectChunkEncoder(chain, &codec, *bound);
}

size_t DirectChunkEncoder::encode(const NDBuffer& chunk, std::span<std::byte> out) const {
  const ChunkRepresentation& rep = chain_->decoded_representation();
  if (chunk.shape() != rep.shape || chunk.dtype() != rep.data_type ||
      !is_host_accessible(chunk.kind())) {
    throw InvalidArgumentError(fmt::format(
        "codec \"bytes\": expected a host array of shape {} and type {}, got shape {} and type {}",
        shape_to_string(rep.shape), rep.data_type.name(), shape_to_string(chunk.shape()),
        chunk.dtype().name()));
  }
  const auto size = static_cast<size_t>(rep.nbytes());
  if (!codec_) {
    if (out.size() < size) {
      throw InvalidArgumentError(
          fmt::format("codec \"bytes\": {} output bytes are too few for a chunk of {} bytes",
                      out.size(), size));
    }
    if (chunk.is_c_contiguous()) {
      if (size > 0) std::memcpy(out.data(), chunk.data(), size);
    } else {
      gather_c_order(chunk, out.data());
    }
    return size;
  }
  std::span<const std::byte> elements;
  if (chunk.is_c_contiguous()) {
    elements = {chunk.data(), size};
  } else {
    const std::span<std::byte> gathered = gather_buffer(size);
    gather_c_order(chunk, gathered.data());
    elements = gathered;
  }
  const auto written = codec_->encode_into(elements, out);
  if (!written) {
    throw UnsupportedError(
        fmt::format("codec \"{}\": cannot encode into caller memory", codec_->name()));
  }
  return *written;
}

}  // namespace cuzarr
