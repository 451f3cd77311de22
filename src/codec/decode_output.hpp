// A growable host output buffer for decoders whose decoded size is not known up front (gzip, zstd
// frames without a content size), with a hard limit so that corrupt or hostile input cannot make
// the decoder allocate without bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuzarr/codec/chunk_representation.hpp"
#include "cuzarr/memory/buffer.hpp"

namespace cuzarr {

/// The largest decoded size a bytes->bytes decoder accepts for chunks of `decoded`. The bytes a
/// bytes->bytes codec decodes are the encoded array (the chunk's nbytes plus codec overheads: a
/// checksum, an inner compressor's headers, a shard index), so a generous multiple of nbytes
/// plus a constant covers every legitimate stream while bounding decompression bombs.
size_t decoded_size_limit(const ChunkRepresentation& decoded);

class DecodeOutput {
 public:
  /// Starts with `initial` bytes of capacity (clamped to `limit`); `codec` names the codec in
  /// errors.
  DecodeOutput(size_t initial, size_t limit, std::string codec);

  std::byte* data() noexcept { return buffer_.data(); }
  size_t capacity() const noexcept { return buffer_.size(); }
  size_t limit() const noexcept { return limit_; }

  /// Grows the capacity (about doubling), keeping the first `used` bytes. Throws
  /// CorruptDataError when the capacity already is the limit.
  void grow(size_t used);
  /// The first `used` bytes; copied into a right-sized buffer when the slack is large.
  Buffer finish(size_t used) const;

 private:
  Buffer buffer_;
  size_t limit_;
  std::string codec_;
};

}  // namespace cuzarr
