// Encodes chunks with a codec chain of the form [bytes (no byte swap), at most one bytes -> bytes
// codec that encodes into caller memory (zstd, blosc)] straight from the caller's array into
// memory the caller provides: with a compressor, a chunk that is a strided view is gathered into
// a per-thread buffer and a C-contiguous chunk is compressed where it lies; with none, the
// elements are gathered straight into the caller's memory. No chunk-sized allocation per chunk.
#pragma once

#include <optional>
#include <span>

#include "cuzarr/codec/codec_chain.hpp"

namespace cuzarr {

class DirectChunkEncoder {
 public:
  /// The encoder for `chain` (which must outlive it), or nullopt when the chain has another form.
  static std::optional<DirectChunkEncoder> for_chain(const CodecChain& chain);

  /// The most bytes one chunk of the chain's representation encodes to.
  size_t bound() const { return bound_; }
  /// Encodes `chunk` (the chain's shape and data type, host memory, any strides) into `out`
  /// (at least bound() bytes) and returns the bytes written: the bytes CodecChain::encode
  /// produces. Throws InvalidArgumentError for a chunk of another shape or type, and what the
  /// codec throws.
  size_t encode(const NDBuffer& chunk, std::span<std::byte> out) const;

 private:
  DirectChunkEncoder(const CodecChain& chain, const BytesToBytesCodec* codec, size_t bound)
      : chain_(&chain), codec_(codec), bound_(bound) {}

  const CodecChain* chain_;
  const BytesToBytesCodec* codec_;  // null for a [bytes] chain
  size_t bound_;
};

}  // namespace cuzarr
