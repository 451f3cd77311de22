// Batched GPU Zstandard decoding (RFC 8878): each chunk is one or more zstd frames (skippable
// frames allowed). Chunks larger than one block (128 KiB), and every chunk of a batch of at
// least kZstdBlockParallelBatch chunks, decode block-parallel when the caller gives `max_output`
// (zstd_block_parallel.hpp: the blocks of all such chunks are entropy-decoded and executed in
// passes over all of them). The others decode one warp per chunk: lane 0 runs the frame
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

/// block_parallel_from's default: chunks larger than one block decode block-parallel, and every
/// chunk does in a batch of at least kZstdBlockParallelBatch chunks.
inline constexpr uint64_t kZstdBlockParallelAuto = UINT64_MAX - 1;
/// From this many chunks the block path is the faster one for chunks of one block too (H200,
/// level 3: 1024 chunks of 64 KiB decode at 18.3 GB/s a warp per chunk and at 10.4
/// block-parallel, 4096 at 34.9 and 34.2, 16384 at 43.0 and 53.2; bench/RESULTS.md).
inline constexpr size_t kZstdBlockParallelBatch = 4096;

/// The capacity from which chunks decode block-parallel in a batch of `count` chunks:
/// block_parallel_from itself, unless it is kZstdBlockParallelAuto.
inline uint64_t zstd_block_parallel_from(size_t count, uint64_t block_parallel_from) {
  if (block_parallel_from != kZstdBlockParallelAuto) return block_parallel_from;
  return count >= kZstdBlockParallelBatch ? 0 : kZstdBlockParallelMinCapacity;
}

/// Device scratch bytes zstd_decode_batch needs for `count` chunks: one ZstdWorkspace (about
/// 140 KiB: literal buffer and entropy tables) per decoding warp, and at most 148 x 16 warps (one
/// wave on GPUs of up to 148 SMs).
size_t zstd_decode_temp_bytes(size_t count);
/// The same with block-parallel decoding of chunks whose output capacity is at most
/// `max_output`: plus, when max_output >= zstd_block_parallel_from(count, block_parallel_from),
/// one slot of about 5.3 x max_output bytes (block records, sequences, literals) per chunk
/// decoded at once; at most 6 GiB of slots, larger batches go in several rounds.
size_t zstd_decode_temp_bytes(size_t count, uint64_t max_output,
                              uint64_t block_parallel_from = kZstdBlockParallelAuto);

/// The piece length (ZstdChunkPlan::piece_sequences) zstd_decode_batch asks for on the current
/// device in a block-parallel round whose chunks hold `sequences` sequences:
/// zstd_bp_round_piece_sequences over the resident warps of its matches kernel.
uint32_t zstd_round_piece_sequences(uint64_t sequences);

/// Decodes zstd chunks: output_sizes[i] = decoded bytes (all frames of the chunk). statuses[i]:
/// corrupt_input for malformed or truncated input (or no frame at all), output_too_small when the
/// content exceeds output_capacities[i], unsupported for frames that need a dictionary,
/// checksum_mismatch when a frame's content checksum differs (checked unless
/// `verify_checksum` is false). `temp`: zstd_decode_temp_bytes(count) device bytes.
void zstd_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);
void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, void* temp,
                       Stream stream);
/// With `max_output` >= every output_capacities[i] (and temp of zstd_decode_temp_bytes(count,
/// max_output, block_parallel_from) bytes): chunks of capacity >= zstd_block_parallel_from(count,
/// block_parallel_from) decode block-parallel. Statuses are those of
/// zstd_decode_block_parallel_host (with the same threshold) for them, of zstd_decode_serial for
/// the others. Frames whose match bytes read earlier blocks for at least `in_order_permille` per
/// mille of their output (zstd_bp_in_order; 0: every frame, above 1000: none) run their matches
/// in order, block after block by one warp; the others in stretches of `stretch` output bytes
/// (kZstdStretchAuto: zstd_bp_auto_stretch of the round, whole frames in rounds of
/// kZstdInOrderMinChunks chunks or more, else a warp per block; kZstdStretchWhole: whole frames;
/// 1: a warp per block), each stretch in order by one warp; a block that is a stretch by itself
/// runs a warp per piece when it holds many sequences (zstd_round_piece_sequences).
void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, uint64_t max_output,
                       void* temp, Stream stream,
                       uint64_t block_parallel_from = kZstdBlockParallelAuto,
                       uint32_t in_order_permille = kZstdInOrderMatchesPermille,
                       uint64_t stretch = kZstdStretchAuto);

}  // namespace cuzarr::gpu
