// c-blosc 1.x chunks whose blocks are zstd or zlib streams, seen as a container of independent
// inner streams ("jobs"): what the GPU decodes with its batched zstd and inflate kernels
// (blosc_inner_streams.hpp). Written once for the CPU and the GPU: the job count and sizes that
// follow from a chunk's header, the walk over a block's streams with every bounds check of
// blosc_frame_format.hpp, and a serial reference decoder that takes the inner decoder as a
// parameter (the CPU tests pass libzstd and zlib and compare with c-blosc).
//
// Layout (c-blosc README_CHUNK_FORMAT.rst, blosc.c blosc_d): block j holds nstreams streams (one
// per byte of the type when the block is split, else one), each an int32 compressed size and
// that many bytes; a stream whose compressed size equals its decoded size is stored raw. c-blosc
// writes zstd streams with ZSTD_compressCCtx (one frame) and zlib streams with compress2 (one
// zlib-wrapped deflate stream), and its decoder demands that each decodes to exactly its size.
#pragma once

#include <cstdint>

#include "codec/cuda/blosc_frame_format.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// The GPU takes a zstd / zlib chunk only when its streams average at least this many decoded
/// bytes (counting two spare streams): c-blosc's blocks have at least 128 bytes (its
/// MIN_BUFFERSIZE) except the short last one, so only hand-made chunks of tiny blocks exceed it.
/// This bounds the job tables by the decoded size.
inline constexpr uint64_t kBloscInnerMinMeanStreamBytes = 64;

/// The most jobs the GPU takes for a chunk of `nbytes` decoded bytes.
CUZARR_HOST_DEVICE constexpr uint64_t blosc_inner_max_jobs(uint64_t nbytes) {
  return nbytes / kBloscInnerMinMeanStreamBytes + 2;
}

/// The jobs of one chunk, from its header: full blocks have `streams` streams of `stream_size`
/// bytes each, a short last block (leftover) one stream of `leftover` bytes. Job k of the chunk
/// is stream k % streams of block k / streams (the leftover block's job comes last).
struct BloscInnerJobs {
  uint64_t full_blocks = 0;
  uint32_t streams = 1;
  uint64_t stream_size = 0;
  uint64_t leftover = 0;
  uint64_t count = 0;
  /// The largest decoded size of a job.
  CUZARR_HOST_DEVICE uint64_t max_job_size() const {
    return stream_size > leftover ? stream_size : leftover;
  }
};

/// The jobs of a parsed chunk (header as blosc_parse_header(..., with_zstd_zlib) left it; no
/// jobs for an empty or memcpyed chunk).
CUZARR_HOST_DEVICE inline BloscInnerJobs blosc_inner_jobs(const BloscHeader& h) {
  BloscInnerJobs jobs;
  if (h.nbytes == 0 || h.memcpyed()) return jobs;
  jobs.full_blocks = h.leftover > 0 ? h.nblocks - 1 : h.nblocks;
  if (jobs.full_blocks > 0) {
    const BloscBlock b = blosc_block(h, 0);
    jobs.streams = b.nstreams;
    jobs.stream_size = b.stream_size;
  }
  jobs.leftover = h.leftover;
  jobs.count = jobs.full_blocks * jobs.streams + (h.leftover > 0 ? 1 : 0);
  return jobs;
}

/// The index in its chunk of the job of stream s of block j.
CUZARR_HOST_DEVICE inline uint64_t blosc_inner_job_index(const BloscInnerJobs& jobs, uint64_t j,
                                                         uint32_t s) {
  return j * jobs.streams + s;
}

/// Whether a chunk decodes as inner streams, and its jobs.
struct BloscInnerPlan {
  /// ok: a zstd / zlib chunk to decode as `jobs`. unsupported: a chunk that is not one (lz4,
  /// blosclz, memcpyed or empty chunks take blosc_decode_batch's kernel; snappy the CPU), or one
  /// with more than blosc_inner_max_jobs(nbytes) jobs. Else the chunk's failure (corrupt_input,
  /// output_too_small) as blosc_parse_header reports it.
  DeviceChunkStatus status = DeviceChunkStatus::unsupported;
  BloscHeader header;
  BloscInnerJobs jobs;
};

/// Plans the chunk `in[in_size]` for decoding into `capacity` bytes from its header alone:
/// `in` needs only its first min(in_size, 16) bytes (the header), so the host can plan from a
/// copy of the headers. The bstarts array and the stream sizes are checked when the jobs are
/// made (blosc_for_each_stream).
CUZARR_HOST_DEVICE inline BloscInnerPlan blosc_inner_plan(const unsigned char* in, uint64_t in_size,
                                                          uint64_t capacity) {
  BloscInnerPlan plan;
  plan.status =
      blosc_parse_header(in, in_size, capacity, plan.header, BloscBlockCodecs::with_zstd_zlib);
  if (plan.status != DeviceChunkStatus::ok) return plan;
  const BloscCompressor c = plan.header.compressor;
  if (plan.header.nbytes == 0 || plan.header.memcpyed() ||
      (c != BloscCompressor::zstd && c != BloscCompressor::zlib)) {
    plan.status = DeviceChunkStatus::unsupported;
    return plan;
  }
  plan.jobs = blosc_inner_jobs(plan.header);
  if (plan.jobs.count > blosc_inner_max_jobs(plan.header.nbytes))
    plan.status = DeviceChunkStatus::unsupported;
  return plan;
}

/// One stream of a block: its compressed bytes in[in_offset, in_offset + in_size) and where it
/// decodes to: [out_offset, out_offset + size) of the chunk's decoded bytes, or of a block-sized
/// scratch laid out like them when the block is shuffled (to_scratch: un-shuffle afterwards).
struct BloscInnerStream {
  uint64_t in_offset = 0;
  uint64_t in_size = 0;
  uint64_t out_offset = 0;
  uint64_t size = 0;
  bool raw = false;  ///< stored: copy in_size (== size) bytes instead of decoding
  bool to_scratch = false;
};

/// Calls visit(s, stream) for the streams s = 0, 1, ... of block j of the chunk `in` (header `h`
/// from blosc_parse_header(..., with_zstd_zlib)), reading the block start and each size field
/// with the checks of blosc_block_start and blosc_stream_size. On the first bad field it returns
/// corrupt_input with `failed` = the stream it could not read (0 for a bad block start); the
/// streams before it were visited.
template <class Visit>
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosc_for_each_stream(const unsigned char* in,
                                                                  const BloscHeader& h, uint64_t j,
                                                                  uint32_t& failed, Visit&& visit) {
  failed = 0;
  const BloscBlock b = blosc_block(h, j);
  uint64_t pos = 0;
  DeviceChunkStatus status = blosc_block_start(in, h, b, j, pos);
  if (status != DeviceChunkStatus::ok) return status;
  for (uint32_t s = 0; s < b.nstreams; ++s) {
    uint64_t csize = 0;
    status = blosc_stream_size(in, h, pos, csize);
    if (status != DeviceChunkStatus::ok) {
      failed = s;
      return status;
    }
    BloscInnerStream stream;
    stream.in_offset = pos;
    stream.in_size = csize;
    stream.out_offset = b.offset + uint64_t{s} * b.stream_size;
    stream.size = b.stream_size;
    stream.raw = csize == b.stream_size;
    stream.to_scratch = b.byte_shuffled || b.bit_shuffled;
    visit(s, stream);
    pos += csize;
  }
  return DeviceChunkStatus::ok;
}

/// What a chunk reports for a failed inner stream whose decoder said `inner`: c-blosc rejects
/// the chunk (blosc_d returns -2 for any failure or a wrong decoded size); a checksum the inner
/// decoder verified keeps its own status.
CUZARR_HOST_DEVICE constexpr DeviceChunkStatus blosc_inner_failure(DeviceChunkStatus inner) {
  return inner == DeviceChunkStatus::checksum_mismatch ? DeviceChunkStatus::checksum_mismatch
                                                       : DeviceChunkStatus::corrupt_input;
}

/// Serial reference decoder of a zstd / zlib chunk into out[capacity] with the GPU's job logic;
/// `tmp` holds at least nbytes bytes (the shuffled blocks, laid out like the output) and
/// `decode(compressor, in, in_size, out, size)` decodes one stream, returning its status and
/// decoded size. Chunks blosc_inner_plan does not take give its status (unsupported for
/// lz4-family, memcpyed and empty chunks).
template <class DecodeStream>
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosc_inner_decode_serial(
    const unsigned char* in, uint64_t in_size, unsigned char* out, uint64_t capacity,
    unsigned char* tmp, uint64_t& produced, DecodeStream&& decode) {
  produced = 0;
  const BloscInnerPlan plan = blosc_inner_plan(in, in_size, capacity);
  if (plan.status != DeviceChunkStatus::ok) return plan.status;
  const BloscHeader& h = plan.header;
  for (uint64_t j = 0; j < h.nblocks; ++j) {
    DeviceChunkStatus failure = DeviceChunkStatus::ok;
    uint32_t failed = 0;
    const DeviceChunkStatus walk =
        blosc_for_each_stream(in, h, j, failed, [&](uint32_t, const BloscInnerStream& s) {
          if (failure != DeviceChunkStatus::ok) return;
          unsigned char* dest = (s.to_scratch ? tmp : out) + s.out_offset;
          if (s.raw) {
            for (uint64_t t = 0; t < s.size; ++t) dest[t] = in[s.in_offset + t];
            return;
          }
          const DecodeResult r = decode(h.compressor, in + s.in_offset, s.in_size, dest, s.size);
          if (r.status != DeviceChunkStatus::ok || r.size != s.size)
            failure = blosc_inner_failure(r.status);
        });
    if (failure != DeviceChunkStatus::ok) return failure;
    if (walk != DeviceChunkStatus::ok) return walk;
    const BloscBlock b = blosc_block(h, j);
    if (b.byte_shuffled) unshuffle_bytes(tmp + b.offset, out + b.offset, b.size, h.typesize);
    if (b.bit_shuffled) bitunshuffle_bytes(tmp + b.offset, out + b.offset, b.size, h.typesize);
  }
  produced = h.nbytes;
  return DeviceChunkStatus::ok;
}

}  // namespace cuzarr::gpu
