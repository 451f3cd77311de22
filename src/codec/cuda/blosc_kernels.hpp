// Batched GPU c-blosc 1.x chunks (blosc_frame_format.hpp). Decoding handles lz4 / lz4hc /
// blosclz blocks with no, byte or bit shuffle, split or not, and memcpyed chunks; one thread block
// per chunk, its warps decoding the chunk's (block, stream) pairs in parallel, then unshuffling
// through shared memory. Chunks whose blocks use snappy / zlib / zstd (or a future format
// version) get DeviceChunkStatus::unsupported: blosc_inner_streams_decode_batch
// (blosc_inner_streams.hpp) decodes the zstd / zlib ones on the GPU after this kernel; snappy
// decodes on the CPU. Encoding writes lz4
// blocks that c-blosc's blosc_decompress reads, with the block size c-blosc would choose.
// CUDA builds only; launchers queue work on `stream` and throw CudaError when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/blosc_frame_format.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Scratch bytes blosc_decode_batch needs for `count` chunks whose output capacities are at most
/// `max_output_capacity` (room to un-shuffle every block).
size_t blosc_decode_temp_bytes(size_t count, uint64_t max_output_capacity);

/// Decodes c-blosc 1.x chunks: output_sizes[i] = the header's nbytes. statuses[i]: corrupt_input
/// for anything c-blosc would reject (and more: cbytes beyond input_sizes[i], overlapping
/// bounds), output_too_small when nbytes exceeds output_capacities[i] or max_output_capacity,
/// unsupported as above. `temp`: blosc_decode_temp_bytes(count, max_output_capacity) bytes.
void blosc_decode_batch(const DeviceChunkBatch& batch, void* temp, uint64_t max_output_capacity,
                        Stream stream);

// blosc_max_encoded_size(size) (blosc_frame_format.hpp): the most bytes blosc_encode_batch
// writes for `size` input bytes (a memcpyed chunk).
/// Scratch bytes blosc_encode_batch needs for `count` inputs of at most `max_input_size` bytes.
size_t blosc_encode_temp_bytes(size_t count, uint64_t max_input_size);

/// Encodes each input as a c-blosc 1.x chunk with lz4 (params: clevel 0..9, typesize 1..255,
/// shuffle, forced block size or 0), falling back to a memcpyed chunk as c-blosc does when
/// compression does not pay. statuses[i]: output_too_small when even that does not fit
/// output_capacities[i] (give blosc_max_encoded_size), size_mismatch when input_sizes[i] exceeds
/// max_input_size, unsupported above c-blosc's 2 GiB limit. `temp`:
/// blosc_encode_temp_bytes(count, max_input_size) bytes. Throws InvalidArgumentError for params
/// out of range.
void blosc_encode_batch(const DeviceChunkBatch& batch, const BloscEncodeParams& params, void* temp,
                        uint64_t max_input_size, Stream stream);

}  // namespace cuzarr::gpu
