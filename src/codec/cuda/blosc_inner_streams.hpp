// Batched GPU decoding of c-blosc 1.x chunks whose blocks are zstd or zlib streams, treating
// blosc as a container around a sub-batch of inner streams (blosc_inner_jobs.hpp): lz4, lz4hc
// and blosclz chunks (and memcpyed ones) decode with blosc_decode_batch's kernel as before; the
// chunks it reports unsupported are planned on the host from a copy of their 16-byte headers
// (one device-to-host copy and one stream synchronisation), a kernel turns their streams into
// jobs (all bounds checks of blosc_frame_format.hpp), zstd_decode_batch and inflate_batch decode
// every job at once, and a last pass checks each job, copies stored streams and un-shuffles.
// Snappy blocks stay unsupported (decode those on the CPU). CUDA builds only; the launcher
// throws CudaError when a launch or copy fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Scratch bytes blosc_inner_streams_decode_batch needs for `count` chunks of output capacities
/// up to `max_output_capacity`: blosc_decode_temp_bytes's un-shuffle room (shared by both
/// paths) and the header copies. The job tables and the zstd scratch, whose sizes follow from
/// the headers, are allocated on `stream` once the headers are known.
size_t blosc_inner_streams_decode_temp_bytes(size_t count, uint64_t max_output_capacity);

/// Decodes c-blosc 1.x chunks with lz4 / lz4hc / blosclz / zstd / zlib blocks: statuses and
/// output sizes as blosc_decode_batch's, and for zstd / zlib chunks: corrupt_input for bad block
/// starts or stream sizes and for a stream that does not decode to exactly its size (the first
/// failing stream in chunk order decides), checksum_mismatch for a zstd stream whose checksum
/// differs; unsupported for snappy blocks and for chunks of more than blosc_inner_max_jobs
/// streams. Waits for `stream` once (after the lz4-family kernel) when called, so call it for
/// batches that may hold zstd / zlib chunks; blosc_decode_batch alone never waits.
void blosc_inner_streams_decode_batch(const DeviceChunkBatch& batch, void* temp,
                                      uint64_t max_output_capacity, Stream stream);

}  // namespace cuzarr::gpu
