// Batched GPU deflate decoding (RFC 1951) of raw deflate, zlib (RFC 1950) and gzip (RFC 1952)
// chunks, with the logic of inflate_format.hpp and zlib_gzip_wrappers.hpp (tested on the CPU).
// Large chunks decode block-parallel (inflate_block_parallel.hpp); the others one warp per chunk
// (the warps take chunks from a counter): lane 0 reads block headers, the warp decodes each Huffman
// block's tokens in parallel from resynchronising segments (inflate_warp_tokens.cuh), copies
// matches and stored blocks together and computes the Adler-32 / CRC-32 of the output in parallel.
// Hostile input yields a status, never an access outside the chunk's input or output. CUDA builds
// only; launchers queue work on `stream` and throw CudaError when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/inflate_block_parallel.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Scratch bytes inflate_batch needs for `count` chunks of at most `max_output` decoded bytes:
/// the decoding warps' match lists (16 KiB a warp, at most 4096 warps), a chunk counter, and when
/// max_output >= inflate_block_parallel_from(count, block_parallel_from) the block-parallel path's
/// slots (inflate_block_parallel.hpp: about 4 bytes per decoded byte, in rounds of at most 6
/// GiB). The decoding tables live in shared memory.
size_t inflate_temp_bytes(size_t count, uint64_t max_output,
                          uint64_t block_parallel_from = kInflateBpAuto);

/// Decodes each chunk in `wrapper` (see DeflateWrapper): output_sizes[i] = decoded bytes.
/// statuses[i]: corrupt_input for malformed or truncated input, output_too_small when the data
/// decodes to more than output_capacities[i], checksum_mismatch when a stored Adler-32 / CRC-32 /
/// ISIZE differs (checked only when `verify_checksums`), unsupported for a zlib stream that needs
/// a preset dictionary. Every status equals the one inflate_serial gives. Chunks with
/// output_capacities[i] from inflate_block_parallel_from(count, block_parallel_from) to
/// max_output decode block-parallel, many warps per chunk (a chunk the path cannot finish falls
/// back to a warp of its own); UINT64_MAX: none. `temp`: inflate_temp_bytes(count, max_output,
/// block_parallel_from) device bytes.
void inflate_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify_checksums,
                   uint64_t max_output, void* temp, Stream stream,
                   uint64_t block_parallel_from = kInflateBpAuto);

}  // namespace cuzarr::gpu
