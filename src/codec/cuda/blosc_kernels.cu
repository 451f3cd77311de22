#include <algorithm>
#include <string>

#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_warp_decode.cuh"
#include "codec/cuda/shuffle_device.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "cuzarr/core/error.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;
using detail::umin;

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / kWarpSize;
constexpr uint64_t kAlign = 256;
constexpr uint64_t kMaxChunkBytes = 0x7FFFFFFFull - kBloscHeaderSize;  // BLOSC_MAX_BUFFERSIZE

__host__ __device__ inline uint64_t align_up(uint64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

// Decode ----------------------------------------------------------------------------------------

// The (block, stream) pair of job k: full blocks have `streams` jobs each, a short last block one.
struct Job {
  uint64_t block;
  uint32_t stream;
};
__device__ inline Job job_of(uint64_t k, uint64_t full_blocks, uint32_t streams) {
  if (k < full_blocks * streams) return {k / streams, static_cast<uint32_t>(k % streams)};
  return {full_blocks, 0};
}

__device__ inline void record_error(int* shared_status, DeviceChunkStatus status) {
  if (status != DeviceChunkStatus::ok) atomicCAS(shared_status, 0, static_cast<int>(status));
}

constexpr int kDecodeWarps = 8;
constexpr int kDecodeThreads = kDecodeWarps * kWarpSize;

// Grid: x = chunk, y = part. Part p of a chunk decodes the chunk's blosc blocks p, p + parts,
// p + 2 * parts, ... in rounds of kDecodeWarps blocks: the warps share the streams of the round's
// blocks (phase 1, into the output or, for shuffled blocks, the chunk's scratch), then the thread
// block un-shuffles them (phase 2). Parts spread one large chunk over many SMs. Statuses start as
// ok (the launcher clears them) and a failing part records its status with atomicCAS.
__global__ void __launch_bounds__(kDecodeThreads)
    blosc_decode_kernel(DeviceChunkBatch batch, unsigned char* temp, uint64_t max_capacity) {
  __shared__ int chunk_status;
  __shared__ __align__(16) unsigned char tile[detail::kShuffleTileBytes];
  __shared__ detail::Lz4StepQueue lz4_queues[kDecodeWarps];  // one per warp
  const size_t chunk = blockIdx.x;
  const uint64_t part = blockIdx.y, parts = gridDim.y;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  // Chunks beyond max_capacity would not fit their scratch: output_too_small as well.
  const uint64_t capacity = umin(batch.output_capacities[chunk], max_capacity);
  BloscHeader h;
  DeviceChunkStatus status = blosc_parse_header(in, batch.input_sizes[chunk], capacity, h);
  const auto fail = [&](DeviceChunkStatus s) {
    if (threadIdx.x == 0)
      atomicCAS(reinterpret_cast<int*>(&batch.statuses[chunk]), 0, static_cast<int>(s));
  };
  if (status != DeviceChunkStatus::ok) return fail(status);
  if (threadIdx.x == 0 && part == 0) batch.output_sizes[chunk] = h.nbytes;
  if (h.nbytes == 0) return;
  if (h.memcpyed()) {
    detail::cooperative_copy(out, in + kBloscHeaderSize, h.nbytes, part * blockDim.x + threadIdx.x,
                             parts * blockDim.x);
    return;
  }
  if (threadIdx.x == 0) chunk_status = 0;
  __syncthreads();
  unsigned char* tmp = temp + chunk * align_up(max_capacity);
  const uint64_t full_blocks = h.leftover > 0 ? h.nblocks - 1 : h.nblocks;
  const uint32_t streams = full_blocks > 0 ? blosc_block(h, 0).nstreams : 1;
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  const unsigned warps = blockDim.x / kWarpSize;
  for (uint64_t first = part; first < h.nblocks; first += parts * warps) {
    const uint64_t round_blocks = umin(uint64_t{warps}, (h.nblocks - first + parts - 1) / parts);
    // Phase 1: the round's streams, one warp per stream.
    for (uint64_t k = warp; k < round_blocks * streams; k += warps) {
      if (*static_cast<volatile int*>(&chunk_status) != 0) break;  // another warp failed
      const uint64_t j = first + (k / streams) * parts;
      const uint32_t stream = static_cast<uint32_t>(k % streams);
      if (j >= full_blocks && stream > 0) continue;  // a short last block has one stream
      const BloscBlock b = blosc_block(h, j);
      uint64_t pos = 0, csize = 0;
      status = blosc_block_start(in, h, b, j, pos);
      for (uint32_t s = 0; status == DeviceChunkStatus::ok && s <= stream; ++s) {
        status = blosc_stream_size(in, h, pos, csize);
        if (s < stream) pos += csize;
      }
      if (status != DeviceChunkStatus::ok) {
        if (lane == 0) record_error(&chunk_status, status);
        break;
      }
      unsigned char* dest = (b.byte_shuffled || b.bit_shuffled ? tmp : out) + b.offset +
                            uint64_t{stream} * b.stream_size;
      if (csize == b.stream_size) {
        for (uint64_t t = lane; t < csize; t += kWarpSize) dest[t] = in[pos + t];
      } else {
        const DecodeResult r =
            h.compressor == BloscCompressor::lz4
                ? detail::warp_lz4_decode(in + pos, csize, dest, b.stream_size, lane,
                                          lz4_queues[warp])
                : detail::warp_blosclz_decode(in + pos, csize, dest, b.stream_size, lane);
        if (r.status != DeviceChunkStatus::ok || r.size != b.stream_size) {
          if (lane == 0) record_error(&chunk_status, DeviceChunkStatus::corrupt_input);
          break;
        }
      }
    }
    __syncthreads();
    if (chunk_status != 0) break;
    // Phase 2: un-shuffle the round's blocks from the scratch into the output.
    for (uint64_t r = 0; r < round_blocks; ++r) {
      const uint64_t j = first + r * parts;
      const BloscBlock b = blosc_block(h, j);
      if (b.byte_shuffled) {
        detail::block_shuffle<false>(tmp + b.offset, out + b.offset, b.size, h.typesize, 0, 1,
                                     tile);
      } else if (b.bit_shuffled) {
        detail::warps_bitshuffle<false>(tmp + b.offset, out + b.offset, b.size, h.typesize, warp,
                                        warps, lane);
      }
    }
    __syncthreads();
  }
  if (chunk_status != 0) fail(static_cast<DeviceChunkStatus>(chunk_status));
}

// Failed chunks report no decoded bytes.
__global__ void zero_failed_sizes_kernel(DeviceChunkBatch batch) {
  const size_t chunk = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (chunk < batch.count && batch.statuses[chunk] != DeviceChunkStatus::ok)
    batch.output_sizes[chunk] = 0;
}

// Encode ----------------------------------------------------------------------------------------

constexpr size_t kEncodeWorkers = 8192;
constexpr int kEncodeThreads = 64;

// Scratch per chunk: the shuffled input, then one slot per job (its 4-byte size + up to its
// decoded size), slot k at the job's decoded offset + 4 k.
__host__ __device__ inline uint64_t shuffled_bytes(uint64_t max_input) {
  return align_up(max_input);
}
__host__ __device__ inline uint64_t slot_bytes(uint64_t max_input) {
  return align_up(max_input + max_input / 16 + 64);
}
__host__ __device__ inline uint64_t chunk_scratch(uint64_t max_input) {
  return shuffled_bytes(max_input) + slot_bytes(max_input);
}

struct EncodeScratch {
  uint64_t* job_offsets;  // count + 1 entries: exclusive prefix sum of jobs per chunk
  uint32_t* tables;       // workers hash tables
  unsigned char* chunks;  // count * chunk_scratch(max_input)
};

size_t encode_workers(size_t count) { return std::min(kEncodeWorkers, count * 64); }

EncodeScratch scratch_layout(void* temp, size_t count) {
  auto* base = static_cast<unsigned char*>(temp);
  EncodeScratch s;
  s.job_offsets = reinterpret_cast<uint64_t*>(base);
  base += align_up((count + 1) * sizeof(uint64_t));
  s.tables = reinterpret_cast<uint32_t*>(base);
  base += align_up(encode_workers(count) * kLz4HashEntries * sizeof(uint32_t));
  s.chunks = base;
  return s;
}

// How chunk i is encoded: compressed (jobs > 0) or memcpyed, and why not at all.
struct ChunkPlan {
  BloscEncodeLayout layout;
  BloscHeader header;  // as the decoder will see it (for blosc_block)
  uint64_t full_blocks = 0;
  uint32_t streams = 1;
  uint64_t jobs = 0;
  DeviceChunkStatus status = DeviceChunkStatus::ok;
};

__device__ ChunkPlan plan_chunk(const BloscEncodeParams& p, uint64_t nbytes, uint64_t max_input) {
  ChunkPlan c;
  if (nbytes > max_input) {
    c.status = DeviceChunkStatus::size_mismatch;
    return c;
  }
  if (nbytes > kMaxChunkBytes) {
    c.status = DeviceChunkStatus::unsupported;
    return c;
  }
  c.layout = blosc_encode_layout(p, nbytes);
  c.header.flags = c.layout.flags;
  c.header.typesize = p.typesize;
  c.header.nbytes = nbytes;
  c.header.blocksize = c.layout.blocksize;
  c.header.nblocks = c.layout.nblocks;
  c.header.leftover = c.layout.blocksize == 0 ? 0 : nbytes % c.layout.blocksize;
  if (c.layout.memcpyed || nbytes == 0) return c;
  c.full_blocks = c.header.leftover > 0 ? c.header.nblocks - 1 : c.header.nblocks;
  c.streams = c.full_blocks > 0 ? blosc_block(c.header, 0).nstreams : 1;
  c.jobs = c.full_blocks * c.streams + (c.header.leftover > 0 ? 1 : 0);
  if (4 * c.jobs > max_input / 16 + 64) c.layout.memcpyed = true;  // cannot happen; be safe
  if (c.layout.memcpyed) c.jobs = 0;
  return c;
}

__global__ void count_jobs_kernel(DeviceChunkBatch batch, BloscEncodeParams p, uint64_t max_input,
                                  uint64_t* job_counts) {
  const size_t chunk = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (chunk < batch.count)
    job_counts[chunk] = plan_chunk(p, batch.input_sizes[chunk], max_input).jobs;
}

// In-place exclusive scan of count + 1 entries (the last one becomes the total), one block.
__global__ void __launch_bounds__(1024) exclusive_scan_kernel(uint64_t* values, size_t count) {
  __shared__ uint64_t warp_sums[32];
  __shared__ uint64_t carry_shared;
  if (threadIdx.x == 0) carry_shared = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  for (size_t base = 0; base <= count; base += blockDim.x) {
    const size_t i = base + threadIdx.x;
    const uint64_t v = i < count ? values[i] : 0;
    uint64_t scan = v;
    for (int d = 1; d < kWarpSize; d *= 2) {
      const uint64_t other = __shfl_up_sync(kFullMask, scan, d);
      if (static_cast<int>(lane) >= d) scan += other;
    }
    if (lane == kWarpSize - 1) warp_sums[warp] = scan;
    __syncthreads();
    uint64_t before = carry_shared;
    for (unsigned w = 0; w < warp; ++w) before += warp_sums[w];
    if (i <= count) values[i] = before + scan - v;
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) carry_shared = before + scan;
    __syncthreads();
  }
}

// Shuffles every block of each compressed chunk into its scratch (one thread block per chunk).
__global__ void __launch_bounds__(kThreads)
    shuffle_blocks_kernel(DeviceChunkBatch batch, BloscEncodeParams p, uint64_t max_input,
                          unsigned char* scratch) {
  __shared__ __align__(16) unsigned char tile[detail::kShuffleTileBytes];
  const size_t chunk = blockIdx.x;
  const ChunkPlan c = plan_chunk(p, batch.input_sizes[chunk], max_input);
  if (c.status != DeviceChunkStatus::ok || c.jobs == 0) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  unsigned char* shuffled = scratch + chunk * chunk_scratch(max_input);
  for (uint64_t j = 0; j < c.header.nblocks; ++j) {
    const BloscBlock b = blosc_block(c.header, j);
    if (b.byte_shuffled) {
      detail::block_shuffle<true>(in + b.offset, shuffled + b.offset, b.size, p.typesize, 0, 1,
                                  tile);
    } else if (b.bit_shuffled) {
      detail::warps_bitshuffle<true>(in + b.offset, shuffled + b.offset, b.size, p.typesize,
                                     threadIdx.x / kWarpSize, kWarps, threadIdx.x % kWarpSize);
    }
  }
}

// Each worker thread encodes jobs (one split stream each) into their slots.
__global__ void __launch_bounds__(kEncodeThreads)
    encode_streams_kernel(DeviceChunkBatch batch, BloscEncodeParams p, uint64_t max_input,
                          EncodeScratch s, size_t workers) {
  const size_t worker = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (worker >= workers) return;
  uint32_t* table = s.tables + worker * kLz4HashEntries;
  const uint64_t total = s.job_offsets[batch.count];
  for (uint64_t g = worker; g < total; g += workers) {
    // The chunk whose job range holds g: the last offset <= g.
    size_t lo = 0, hi = batch.count;  // job_offsets[lo] <= g < job_offsets[hi]
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      if (s.job_offsets[mid] <= g)
        lo = mid;
      else
        hi = mid;
    }
    const size_t chunk = lo;
    const uint64_t k = g - s.job_offsets[chunk];
    const ChunkPlan c = plan_chunk(p, batch.input_sizes[chunk], max_input);
    const Job job = job_of(k, c.full_blocks, c.streams);
    const BloscBlock b = blosc_block(c.header, job.block);
    const uint64_t offset = b.offset + uint64_t{job.stream} * b.stream_size;
    const unsigned char* source =
        (b.byte_shuffled || b.bit_shuffled
             ? s.chunks + chunk * chunk_scratch(max_input)
             : reinterpret_cast<const unsigned char*>(batch.inputs[chunk])) +
        offset;
    unsigned char* slot =
        s.chunks + chunk * chunk_scratch(max_input) + shuffled_bytes(max_input) + offset + 4 * k;
    uint64_t pos = 0;
    blosc_encode_stream(source, b.stream_size, slot, pos, 4 + b.stream_size, table,
                        blosc_lz4_acceleration(p.clevel));
  }
}

// Assembles each chunk: header, block starts and the streams' slots, or the memcpyed form.
__global__ void __launch_bounds__(kThreads)
    assemble_kernel(DeviceChunkBatch batch, BloscEncodeParams p, uint64_t max_input,
                    unsigned char* scratch) {
  __shared__ int compressed;
  const size_t chunk = blockIdx.x;
  const ChunkPlan c = plan_chunk(p, batch.input_sizes[chunk], max_input);
  const uint64_t nbytes = batch.input_sizes[chunk];
  const uint64_t capacity = batch.output_capacities[chunk];
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const unsigned char* slots =
      scratch + chunk * chunk_scratch(max_input) + shuffled_bytes(max_input);
  if (c.status != DeviceChunkStatus::ok) {
    if (threadIdx.x == 0) {
      batch.statuses[chunk] = c.status;
      batch.output_sizes[chunk] = 0;
    }
    return;
  }
  const uint64_t memcpyed_size = nbytes + kBloscHeaderSize;
  const uint64_t limit = umin(capacity, memcpyed_size);
  if (threadIdx.x == 0) {
    compressed = 0;
    if (c.jobs > 0) {
      uint64_t pos = kBloscHeaderSize + 4 * c.header.nblocks;
      for (uint64_t k = 0; k < c.jobs && pos <= limit; ++k) {
        const Job job = job_of(k, c.full_blocks, c.streams);
        const BloscBlock b = blosc_block(c.header, job.block);
        const uint64_t offset = b.offset + uint64_t{job.stream} * b.stream_size;
        if (job.stream == 0 && pos + 4 <= limit)
          store_le32(out + kBloscHeaderSize + 4 * job.block, static_cast<uint32_t>(pos));
        pos += 4 + load_le32(slots + offset + 4 * k);
      }
      if (pos <= limit) {
        blosc_write_header(out, c.layout.flags, p.typesize, nbytes, c.layout.blocksize, pos);
        batch.statuses[chunk] = DeviceChunkStatus::ok;
        batch.output_sizes[chunk] = pos;
        compressed = 1;
      }
    }
    if (!compressed) {
      const bool fits = memcpyed_size <= capacity;
      if (fits) {
        blosc_write_header(out, c.layout.flags | kBloscFlagMemcpyed, p.typesize, nbytes,
                           c.layout.blocksize, memcpyed_size);
      }
      batch.statuses[chunk] = fits ? DeviceChunkStatus::ok : DeviceChunkStatus::output_too_small;
      batch.output_sizes[chunk] = fits ? memcpyed_size : 0;
      compressed = fits ? 0 : -1;
    }
  }
  __syncthreads();
  if (compressed == 0) {
    detail::cooperative_copy(out + kBloscHeaderSize, in, nbytes, threadIdx.x, blockDim.x);
    return;
  }
  if (compressed < 0) return;
  // Each warp copies the streams of its blocks, block j starting at bstarts[j].
  const unsigned lane = threadIdx.x % kWarpSize;
  for (uint64_t j = threadIdx.x / kWarpSize; j < c.header.nblocks; j += kWarps) {
    const BloscBlock b = blosc_block(c.header, j);
    uint64_t pos = load_le32(out + kBloscHeaderSize + 4 * j);
    const uint64_t first_job = j * c.streams;  // the short last block's job follows the full ones
    for (uint32_t st = 0; st < b.nstreams; ++st) {
      const uint64_t k = first_job + st;
      const uint64_t offset = b.offset + uint64_t{st} * b.stream_size;
      const unsigned char* slot = slots + offset + 4 * k;
      const uint64_t bytes = 4 + load_le32(slot);
      for (uint64_t t = lane; t < bytes; t += kWarpSize) out[pos + t] = slot[t];
      pos += bytes;
    }
  }
}

}  // namespace

size_t blosc_decode_temp_bytes(size_t count, uint64_t max_output_capacity) {
  return count * align_up(max_output_capacity);
}

void blosc_decode_batch(const DeviceChunkBatch& batch, void* temp, uint64_t max_output_capacity,
                        Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  CUZARR_CUDA_CHECK(cudaMemsetAsync(batch.statuses, 0, batch.count * sizeof(DeviceChunkStatus), s));
  // About 2048 thread blocks in flight whatever the chunk count: a few large chunks are split
  // into many parts (each a share of their blosc blocks), many small ones take one each.
  const auto parts = static_cast<unsigned>(std::clamp<size_t>(2048 / batch.count, 1, 1024));
  const dim3 grid(static_cast<unsigned>(batch.count), parts);
  // Many small chunks (one part each, a few blosc blocks per chunk): 4 warps per thread block
  // keep fewer warps idle than 8.
  const unsigned threads = parts > 1 ? kDecodeThreads : kDecodeThreads / 2;
  blosc_decode_kernel<<<grid, threads, 0, s>>>(batch, static_cast<unsigned char*>(temp),
                                               max_output_capacity);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  zero_failed_sizes_kernel<<<static_cast<unsigned>((batch.count + 255) / 256), 256, 0, s>>>(batch);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

size_t blosc_encode_temp_bytes(size_t count, uint64_t max_input_size) {
  return align_up((count + 1) * sizeof(uint64_t)) +
         align_up(encode_workers(count) * kLz4HashEntries * sizeof(uint32_t)) +
         count * chunk_scratch(max_input_size);
}

void blosc_encode_batch(const DeviceChunkBatch& batch, const BloscEncodeParams& params, void* temp,
                        uint64_t max_input_size, Stream stream) {
  if (params.clevel < 0 || params.clevel > 9 || params.typesize < 1 || params.typesize > 255) {
    throw InvalidArgumentError("blosc encode: clevel must be 0..9 and typesize 1..255, got " +
                               std::to_string(params.clevel) + " and " +
                               std::to_string(params.typesize));
  }
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  const EncodeScratch scratch = scratch_layout(temp, batch.count);
  const auto count_blocks = static_cast<unsigned>((batch.count + 127) / 128);
  count_jobs_kernel<<<count_blocks, 128, 0, s>>>(batch, params, max_input_size,
                                                 scratch.job_offsets);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  exclusive_scan_kernel<<<1, 1024, 0, s>>>(scratch.job_offsets, batch.count);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  const auto chunks = static_cast<unsigned>(batch.count);
  shuffle_blocks_kernel<<<chunks, kThreads, 0, s>>>(batch, params, max_input_size, scratch.chunks);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  const size_t workers = encode_workers(batch.count);
  encode_streams_kernel<<<static_cast<unsigned>((workers + kEncodeThreads - 1) / kEncodeThreads),
                          kEncodeThreads, 0, s>>>(batch, params, max_input_size, scratch, workers);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  assemble_kernel<<<chunks, kThreads, 0, s>>>(batch, params, max_input_size, scratch.chunks);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzarr::gpu
