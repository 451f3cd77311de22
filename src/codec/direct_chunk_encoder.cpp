#include "codec/direct_chunk_encoder.hpp"

#include <fmt/format.h>

#include <memory>

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

}  // namespace

std::optional<DirectChunkEncoder> DirectChunkEncoder::for_chain(const CodecChain& chain) {
  const ChunkRepresentation& rep = chain.decoded_representation();
  if (!chain.array_to_array().empty() || chain.bytes_to_bytes().size() != 1) return std::nullopt;
  const auto* bytes = dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get());
  if (!bytes || bytes->needs_swap(rep.data_type) || rep.data_type.is_variable_length())
    return std::nullopt;
  const BytesToBytesCodec& codec = *chain.bytes_to_bytes()[0];
  const auto bound = codec.encode_into_bound(static_cast<size_t>(rep.nbytes()));
  if (!bound) return std::nullopt;
  return DirectChunkEncoder(chain, codec, *bound);
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
  std::span<const std::byte> elements;
  if (chunk.is_c_contiguous()) {
    elements = {chunk.data(), size};
  } else {
    const std::span<std::byte> gathered = gather_buffer(size);
    NDBuffer(Buffer::wrap(gathered.data(), size, MemoryKind::host, nullptr), rep.data_type,
             rep.shape)
        .assign(chunk);
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
