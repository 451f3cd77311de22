// Batched GPU Zstandard decoding (RFC 8878): each chunk is one or more zstd frames (skippable
// frames allowed). Chunks larger than one block (128 KiB) decode block-parallel when the caller
// gives `max_output` (zstd_block_parallel.hpp: the blocks of all such chunks are entropy-decoded
// and executed by a warp each). The others decode one warp per chunk: lane 0 runs the frame
// decoder of zstd_frame_format.hpp (headers, FSE sequences, every bounds check), up to four lanes
// decode a block's Huffman literal streams at once, the warp copies each step's literals and
// match cooperatively. Hostile input yields a status, never an
// access outside the chunk's input and output. CUDA builds only; the launcher queues work on
// `stream` and throws CudaError when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zstd_block_parallel.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Device scratch bytes zstd_decode_batch needs for `count` chunks: one ZstdWorkspace (about
/// 140 KiB: literal buffer and entropy tables) per decoding warp, and at most 2048 warps.
size_t zstd_decode_temp_bytes(size_t count);
/// The same with block-parallel decoding of chunks whose output capacity is at most
/// `max_output`: plus, when max_output >= block_parallel_from (default: above 128 KiB), one slot
/// of about 5.3 x max_output bytes (block records, sequences, literals) per chunk decoded at
/// once; at most 6 GiB of slots, larger batches go in several rounds.
size_t zstd_decode_temp_bytes(size_t count, uint64_t max_output,
                              uint64_t block_parallel_from = kZstdBlockParallelMinCapacity);

/// Decodes zstd chunks: output_sizes[i] = decoded bytes (all frames of the chunk). statuses[i]:
/// corrupt_input for malformed or truncated input (or no frame at all), output_too_small when the
/// content exceeds output_capacities[i], unsupported for frames that need a dictionary,
/// checksum_mismatch when a frame's content checksum differs (checked unless
/// `verify_checksum` is false). `temp`: zstd_decode_temp_bytes(count) device bytes.
void zstd_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);
void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, void* temp,
                       Stream stream);
/// With `max_output` >= every output_capacities[i] (and temp of zstd_decode_temp_bytes(count,
/// max_output, block_parallel_from) bytes): chunks of capacity >= block_parallel_from (default:
/// above 128 KiB) decode block-parallel. Statuses are those of zstd_decode_block_parallel_host
/// (with the same threshold) for them, of zstd_decode_serial for the others.
void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, uint64_t max_output,
                       void* temp, Stream stream,
                       uint64_t block_parallel_from = kZstdBlockParallelMinCapacity);

}  // namespace cuzarr::gpu
