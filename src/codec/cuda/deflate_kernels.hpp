// Batched GPU deflate decoding (RFC 1951) of raw deflate, zlib (RFC 1950) and gzip (RFC 1952)
// chunks, with the logic of inflate_format.hpp and zlib_gzip_wrappers.hpp (tested on the CPU).
// One warp per chunk (the warps take chunks from a counter): lane 0 reads block headers, the warp
// decodes each Huffman block's tokens in parallel from resynchronising segments
// (inflate_warp_tokens.cuh), copies matches and stored blocks together and computes the Adler-32
// / CRC-32 of the output in parallel. Hostile input yields a status, never an access outside the
// chunk's input or output. CUDA builds only; launchers queue work on `stream` and throw
// CudaError when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Scratch bytes inflate_batch needs for `count` chunks: the decoding warps' match lists (16 KiB
/// a warp, at most 4096 warps) and a chunk counter. The decoding tables live in shared memory.
size_t inflate_temp_bytes(size_t count);

/// Decodes each chunk in `wrapper` (see DeflateWrapper): output_sizes[i] = decoded bytes.
/// statuses[i]: corrupt_input for malformed or truncated input, output_too_small when the data
/// decodes to more than output_capacities[i], checksum_mismatch when a stored Adler-32 / CRC-32 /
/// ISIZE differs (checked only when `verify_checksums`), unsupported for a zlib stream that needs
/// a preset dictionary. Every status equals the one inflate_serial gives. `temp`:
/// inflate_temp_bytes(count) device bytes.
void inflate_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify_checksums,
                   void* temp, Stream stream);

/// inflate_batch with checksums verified.
inline void inflate_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, void* temp,
                          Stream stream) {
  inflate_batch(batch, wrapper, true, temp, stream);
}

}  // namespace cuzarr::gpu
