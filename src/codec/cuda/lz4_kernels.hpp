// Batched GPU LZ4: raw LZ4 blocks and the numcodecs.lz4 framing (4-byte little-endian decoded
// size, then one block). Decoding runs one warp per chunk (lz4_warp_decode.cuh): the lanes parse
// the token chain 32 input positions at a time with every bounds check of lz4_block_format.hpp,
// then copy the literals and matches of up to 32 sequences together (overlapping matches
// included). A batch of few chunks (as many as teams of two warps each fit on the GPU at once)
// gets a team of warps per chunk, one parsing while one to three others copy, taking groups of 32
// sequences in turn (lz4_warp_team_decode.cuh): the largest team that holds the whole batch at
// once, with a stager (a warp that prepares the parser's next span) for three executors.
// Hostile input yields a status, never an access outside the chunk's input or output.
// Encoding runs one thread per chunk (greedy, single pass); its output decodes with liblz4's
// LZ4_decompress_safe. CUDA builds only; launchers queue work on `stream` and throw CudaError
// when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/lz4_block_parallel.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Decodes raw LZ4 blocks: output_sizes[i] = decoded bytes. statuses[i]: corrupt_input for a
/// malformed or truncated block, output_too_small when it decodes to more than
/// output_capacities[i].
void lz4_decode_batch(const DeviceChunkBatch& batch, Stream stream);

/// Decodes numcodecs.lz4 chunks: corrupt_input when the header is missing or the block disagrees
/// with the header's size, output_too_small when that size exceeds output_capacities[i].
void numcodecs_lz4_decode_batch(const DeviceChunkBatch& batch, Stream stream);

/// How the team kernel's parser works: alone, or with a stager, a warp that prepares the parser's
/// next span while it finishes one (lz4_warp_team_decode.cuh). lz4_decode_batch gives teams of
/// three executors a stager when they all fit on the GPU at once (up to 528 chunks on an H200).
enum class Lz4TeamParser { alone, with_stager };

/// The team kernel with `executors` (1, 2 or 3; else std::invalid_argument) executing warps per
/// chunk, whatever the batch's size: same results as lz4_decode_batch. For tests and benchmarks
/// that compare team sizes and parsers.
void lz4_decode_batch_with_team(const DeviceChunkBatch& batch, unsigned executors,
                                Lz4TeamParser parser, Stream stream);
/// The same for numcodecs.lz4 chunks.
void numcodecs_lz4_decode_batch_with_team(const DeviceChunkBatch& batch, unsigned executors,
                                          Lz4TeamParser parser, Stream stream);

// Block-parallel decoding of large blocks (lz4_block_parallel.hpp), when asked for: a chunk whose
// block decodes to at least `block_parallel_from` bytes (kLz4BpMinCapacity, 4 MiB, is what it was
// built for) is cut into 1 KiB segments of input parsed, checked and copied by many threads. Same
// statuses and outputs as the calls above; the other chunks decode one warp per chunk. By default
// (kLz4BpOff) every chunk takes the warp decoders above, which the H200 measurements favour at
// every size (see kLz4BpOff).

// By default (kLz4BpOff) the calls with scratch split large blocks instead (lz4_split_decode.hpp:
// parts of about 1 MiB decoded by a team each) when the batch's chunks are of 2 MiB or more
// (kLz4SplitAutoFrom) and too few to fill the GPU (lz4_split_pays); the other batches decode as
// the calls without scratch.

/// Scratch bytes for `count` chunks whose output capacities are at most `max_output`: about
/// 10.5 x max_output per chunk (segment records, a mark and an origin per output byte) when
/// max_output >= block_parallel_from; by default, lz4_split_temp_bytes when the batch is split
/// (about 3 x max_output per chunk at 4 MiB, at most kLz4SplitMaxTemp), else 0. Block-parallel
/// batches take at most 6 GiB of slots, larger batches go in several rounds.
size_t lz4_decode_temp_bytes(size_t count, uint64_t max_output,
                             uint64_t block_parallel_from = kLz4BpOff);
/// Raw LZ4 blocks; `temp`: lz4_decode_temp_bytes(count, max_output, block_parallel_from) device
/// bytes (nullptr when that is 0). Chunks with output_capacities[i] > max_output decode one warp
/// per chunk.
void lz4_decode_batch(const DeviceChunkBatch& batch, uint64_t max_output, void* temp, Stream stream,
                      uint64_t block_parallel_from = kLz4BpOff);
/// numcodecs.lz4 chunks; the header's size is the block's capacity.
void numcodecs_lz4_decode_batch(const DeviceChunkBatch& batch, uint64_t max_output, void* temp,
                                Stream stream, uint64_t block_parallel_from = kLz4BpOff);

// Split decoding of large blocks forced (lz4_split_decode.hpp), whatever the batch: chunks of
// 2 MiB and more (up to `max_output`) decode as parts of about 1 MiB, each by its own team of
// warps, placed and repaired afterwards; same statuses and outputs as the calls above (a chunk the
// split cannot take decodes as there). For tests and benchmarks.

/// Scratch bytes for `count` chunks of at most `max_output` bytes: about 2.3 x max_output per
/// chunk; 0 when max_output is below 2 MiB (no chunk is split).
size_t lz4_decode_split_temp_bytes(size_t count, uint64_t max_output);
/// Raw LZ4 blocks; `temp`: lz4_decode_split_temp_bytes(count, max_output) device bytes.
void lz4_decode_batch_split(const DeviceChunkBatch& batch, uint64_t max_output, void* temp,
                            Stream stream);
/// numcodecs.lz4 chunks, split.
void numcodecs_lz4_decode_batch_split(const DeviceChunkBatch& batch, uint64_t max_output,
                                      void* temp, Stream stream);

/// The most bytes lz4_encode_batch writes for `size` input bytes (LZ4_COMPRESSBOUND).
uint64_t lz4_max_encoded_size(uint64_t size);
/// The same for numcodecs_lz4_encode_batch (4 more).
uint64_t numcodecs_lz4_max_encoded_size(uint64_t size);
/// Scratch bytes (hash tables) the encoders need for `count` chunks (at most 128 MiB).
size_t lz4_encode_temp_bytes(size_t count);

/// Encodes each input into one raw LZ4 block. statuses[i]: output_too_small when the block does
/// not fit output_capacities[i] (give lz4_max_encoded_size to be sure), unsupported for inputs
/// above LZ4's limit of 0x7E000000 bytes. `temp`: lz4_encode_temp_bytes(count) device bytes.
void lz4_encode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);
/// Encodes each input with the numcodecs.lz4 framing.
void numcodecs_lz4_encode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);

// Segment-parallel encoders (lz4_segments.hpp): each input is cut into 64 KiB segments encoded by
// one warp each (hash tables in shared memory), then stitched into one LZ4 block, so one large
// chunk keeps many warps busy. Same outputs contract as above (LZ4_decompress_safe reads the
// block; at most lz4_max_encoded_size bytes), compressing a little less than one greedy pass over
// the whole chunk (matches do not reach back across a segment start). Inputs larger than
// `max_input_size` (or LZ4's limit) get the status unsupported.

/// Scratch bytes for `count` chunks of at most `max_input_size` bytes each (about their total
/// size: one body slot of ~64 KiB per segment).
size_t lz4_encode_segments_temp_bytes(size_t count, uint64_t max_input_size);
/// Raw LZ4 blocks, segment-parallel. `temp`: lz4_encode_segments_temp_bytes(batch.count,
/// max_input_size) device bytes.
void lz4_encode_segments_batch(const DeviceChunkBatch& batch, uint64_t max_input_size, void* temp,
                               Stream stream);
/// numcodecs.lz4 framing, segment-parallel.
void numcodecs_lz4_encode_segments_batch(const DeviceChunkBatch& batch, uint64_t max_input_size,
                                         void* temp, Stream stream);

}  // namespace cuzarr::gpu
