// Batched GPU Zstandard decoding (RFC 8878): each chunk is one or more zstd frames (skippable
// frames allowed). One warp decodes one chunk: lane 0 runs the frame decoder of
// zstd_frame_format.hpp (headers, FSE sequences, every bounds check), up to four lanes decode a
// block's Huffman literal streams at once, the warp copies each step's literals and match
// cooperatively. Hostile input yields a status, never an
// access outside the chunk's input and output. CUDA builds only; the launcher queues work on
// `stream` and throws CudaError when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Device scratch bytes zstd_decode_batch needs for `count` chunks: one ZstdWorkspace (about
/// 140 KiB: literal buffer and entropy tables) per decoding warp, and at most 2048 warps.
size_t zstd_decode_temp_bytes(size_t count);

/// Decodes zstd chunks: output_sizes[i] = decoded bytes (all frames of the chunk). statuses[i]:
/// corrupt_input for malformed or truncated input (or no frame at all), output_too_small when the
/// content exceeds output_capacities[i], unsupported for frames that need a dictionary,
/// checksum_mismatch when a frame's content checksum differs (checked unless
/// `verify_checksum` is false). `temp`: zstd_decode_temp_bytes(count) device bytes.
void zstd_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);
void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, void* temp,
                       Stream stream);

}  // namespace cuzarr::gpu
