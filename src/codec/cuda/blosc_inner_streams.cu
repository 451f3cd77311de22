#include <algorithm>
#include <cstring>
#include <iterator>
#include <vector>

#include "codec/cuda/blosc_inner_jobs.hpp"
#include "codec/cuda/blosc_inner_streams.hpp"
#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/shuffle_device.cuh"
#include "codec/cuda/zstd_kernels.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kWarpSize;
using detail::umin;

constexpr uint64_t kAlign = 256;

__host__ __device__ inline uint64_t align_up(uint64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

// What the host needs to plan a chunk: its header bytes, sizes and the lz4-family status.
struct HeaderRecord {
  unsigned char header[kBloscHeaderSize];
  uint64_t input_size;
  uint64_t capacity;  // min(output capacity, max_output_capacity), as the kernels use it
  int32_t status;
  int32_t unused;
};

// A zstd / zlib chunk of the batch and where its jobs start in the job tables.
struct InnerChunk {
  uint64_t chunk;
  uint64_t first_job;
};

enum JobKind : uint8_t { kDecode = 0, kStored = 1, kSkipped = 2 };

// The job tables: a DeviceChunkBatch over every job (zstd jobs first, then zlib jobs) plus, per
// job, its decoded size, kind and chunk; per chunk, the first failure as (job << 8 | status).
struct JobTables {
  const std::byte** inputs;
  uint64_t* input_sizes;
  std::byte** outputs;
  uint64_t* capacities;
  uint64_t* output_sizes;
  DeviceChunkStatus* statuses;
  uint64_t* sizes;
  uint32_t* owners;  // index into the InnerChunk list
  uint8_t* kinds;
  unsigned long long* failures;  // per InnerChunk
};

constexpr unsigned long long kNoFailure = ~0ull;

__host__ __device__ inline unsigned long long failure_key(uint64_t job, DeviceChunkStatus status) {
  return (static_cast<unsigned long long>(job) << 8) | static_cast<unsigned long long>(status);
}

__global__ void gather_headers_kernel(DeviceChunkBatch batch, uint64_t max_capacity,
                                      HeaderRecord* records) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= batch.count) return;
  HeaderRecord r{};
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[i]);
  const uint64_t n = umin(batch.input_sizes[i], kBloscHeaderSize);
  for (uint64_t t = 0; t < n; ++t) r.header[t] = in[t];
  r.input_size = batch.input_sizes[i];
  r.capacity = umin(batch.output_capacities[i], max_capacity);
  r.status = static_cast<int32_t>(batch.statuses[i]);
  records[i] = r;
}

// The plan of chunk c, re-derived on the device from its bytes (the host planned from the same
// header, so both agree).
__device__ inline BloscInnerPlan plan_of(const DeviceChunkBatch& batch, uint64_t c,
                                         uint64_t max_capacity) {
  return blosc_inner_plan(reinterpret_cast<const unsigned char*>(batch.inputs[c]),
                          batch.input_sizes[c], umin(batch.output_capacities[c], max_capacity));
}

__device__ inline void set_job(const JobTables& t, uint64_t k, uint32_t owner, const std::byte* in,
                               uint64_t in_size, std::byte* out, uint64_t size, JobKind kind) {
  t.inputs[k] = in;
  t.input_sizes[k] = kind == kDecode ? in_size : 0;
  t.outputs[k] = out;
  t.capacities[k] = kind == kDecode ? size : 0;
  t.sizes[k] = size;
  t.owners[k] = owner;
  t.kinds[k] = kind;
}

// One thread block per zstd / zlib chunk, a thread per blosc block: reads the block's start and
// stream sizes (every check of blosc_for_each_stream) and writes its jobs. Streams decode into
// the output, or into the chunk's scratch (laid out like the output) when the block is shuffled.
// A bad field records the chunk's failure at that stream; its jobs and the block's later ones
// are skipped (no input, no capacity).
__global__ void fill_jobs_kernel(DeviceChunkBatch batch, const InnerChunk* chunks,
                                 uint64_t max_capacity, unsigned char* scratch, JobTables t) {
  const uint32_t e = blockIdx.x;
  const InnerChunk ic = chunks[e];
  const BloscInnerPlan plan = plan_of(batch, ic.chunk, max_capacity);
  if (plan.status != DeviceChunkStatus::ok) return;
  const BloscHeader& h = plan.header;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[ic.chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[ic.chunk]);
  unsigned char* tmp = scratch + ic.chunk * align_up(max_capacity);
  for (uint64_t j = threadIdx.x; j < h.nblocks; j += blockDim.x) {
    uint32_t failed = 0;
    const DeviceChunkStatus status =
        blosc_for_each_stream(in, h, j, failed, [&](uint32_t s, const BloscInnerStream& st) {
          const uint64_t k = ic.first_job + blosc_inner_job_index(plan.jobs, j, s);
          unsigned char* dest = (st.to_scratch ? tmp : out) + st.out_offset;
          set_job(t, k, e, reinterpret_cast<const std::byte*>(in + st.in_offset), st.in_size,
                  reinterpret_cast<std::byte*>(dest), st.size, st.raw ? kStored : kDecode);
        });
    if (status == DeviceChunkStatus::ok) continue;
    atomicMin(&t.failures[e], failure_key(blosc_inner_job_index(plan.jobs, j, failed), status));
    const uint32_t nstreams = blosc_block(h, j).nstreams;
    for (uint32_t s = failed; s < nstreams; ++s) {
      set_job(t, ic.first_job + blosc_inner_job_index(plan.jobs, j, s), e,
              reinterpret_cast<const std::byte*>(in), 0, reinterpret_cast<std::byte*>(out), 0,
              kSkipped);
    }
  }
}

// A warp per job: stored streams are copied; decoded ones must have succeeded with exactly
// their size (c-blosc's blosc_d), else the chunk records its failure at this job.
__global__ void finish_jobs_kernel(const InnerChunk* chunks, JobTables t, uint64_t jobs) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint64_t warp = (blockIdx.x * uint64_t{blockDim.x} + threadIdx.x) / kWarpSize;
  const uint64_t warps = gridDim.x * uint64_t{blockDim.x} / kWarpSize;
  for (uint64_t k = warp; k < jobs; k += warps) {
    const uint8_t kind = t.kinds[k];
    if (kind == kStored) {
      detail::cooperative_copy(reinterpret_cast<unsigned char*>(t.outputs[k]),
                               reinterpret_cast<const unsigned char*>(t.inputs[k]), t.sizes[k],
                               lane, kWarpSize);
    } else if (kind == kDecode && lane == 0) {
      const DeviceChunkStatus status = t.statuses[k];
      if (status != DeviceChunkStatus::ok || t.output_sizes[k] != t.sizes[k]) {
        const uint32_t e = t.owners[k];
        atomicMin(&t.failures[e],
                  failure_key(k - chunks[e].first_job, blosc_inner_failure(status)));
      }
    }
  }
}

// A thread per zstd / zlib chunk: its status (planning failure, else its first failing job) and
// decoded size.
__global__ void chunk_status_kernel(DeviceChunkBatch batch, const InnerChunk* chunks, uint32_t n,
                                    uint64_t max_capacity, JobTables t) {
  const uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  const uint64_t c = chunks[e].chunk;
  const BloscInnerPlan plan = plan_of(batch, c, max_capacity);
  DeviceChunkStatus status = plan.status;
  if (status == DeviceChunkStatus::ok && t.failures[e] != kNoFailure)
    status = static_cast<DeviceChunkStatus>(t.failures[e] & 0xFF);
  batch.statuses[c] = status;
  batch.output_sizes[c] = status == DeviceChunkStatus::ok ? plan.header.nbytes : 0;
}

constexpr int kUnshuffleThreads = 256;

// Grid: x = zstd / zlib chunk, y = part. Part p un-shuffles the blocks p, p + parts, ... of a
// chunk that decoded from its scratch into its output (blosc_d: byte shuffle, or bit shuffle).
__global__ void __launch_bounds__(kUnshuffleThreads)
    unshuffle_kernel(DeviceChunkBatch batch, const InnerChunk* chunks, uint64_t max_capacity,
                     const unsigned char* scratch) {
  __shared__ __align__(16) unsigned char tile[detail::kShuffleTileBytes];
  const uint64_t c = chunks[blockIdx.x].chunk;
  if (batch.statuses[c] != DeviceChunkStatus::ok) return;
  const BloscInnerPlan plan = plan_of(batch, c, max_capacity);
  const BloscHeader& h = plan.header;
  if (plan.status != DeviceChunkStatus::ok) return;
  if (!(h.flags & (kBloscFlagShuffle | kBloscFlagBitshuffle))) return;
  const unsigned char* tmp = scratch + c * align_up(max_capacity);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[c]);
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize, warps = blockDim.x / kWarpSize;
  for (uint64_t j = blockIdx.y; j < h.nblocks; j += gridDim.y) {
    const BloscBlock b = blosc_block(h, j);
    if (b.byte_shuffled) {
      detail::block_shuffle<false>(tmp + b.offset, out + b.offset, b.size, h.typesize, 0, 1, tile);
    } else if (b.bit_shuffled) {
      detail::warps_bitshuffle<false>(tmp + b.offset, out + b.offset, b.size, h.typesize, warp,
                                      warps, lane);
    }
  }
}

// The host's view of the zstd / zlib chunks after the header copy.
struct HostPlan {
  std::vector<InnerChunk> chunks;  // zstd chunks first, then zlib chunks, then failed ones
  uint64_t zstd_jobs = 0, zlib_jobs = 0;
  uint64_t max_zstd_job = 0, max_zlib_job = 0;
};

HostPlan plan_on_host(const HeaderRecord* records, size_t count) {
  HostPlan p;
  std::vector<InnerChunk> zlib, failed;
  for (size_t i = 0; i < count; ++i) {
    const HeaderRecord& r = records[i];
    if (static_cast<DeviceChunkStatus>(r.status) != DeviceChunkStatus::unsupported) continue;
    const BloscInnerPlan plan = blosc_inner_plan(r.header, r.input_size, r.capacity);
    if (plan.status == DeviceChunkStatus::unsupported) continue;  // snappy, too many jobs, ...
    if (plan.status != DeviceChunkStatus::ok) {
      failed.push_back({i, 0});  // corrupt: the status kernel reports it
    } else if (plan.header.compressor == BloscCompressor::zstd) {
      p.chunks.push_back({i, p.zstd_jobs});
      p.zstd_jobs += plan.jobs.count;
      p.max_zstd_job = std::max(p.max_zstd_job, plan.jobs.max_job_size());
    } else {
      zlib.push_back({i, p.zlib_jobs});
      p.zlib_jobs += plan.jobs.count;
      p.max_zlib_job = std::max(p.max_zlib_job, plan.jobs.max_job_size());
    }
  }
  for (InnerChunk& c : zlib) c.first_job += p.zstd_jobs;
  p.chunks.insert(p.chunks.end(), zlib.begin(), zlib.end());
  p.chunks.insert(p.chunks.end(), failed.begin(), failed.end());
  return p;
}

// Carves the job tables (and after them `extra` bytes) out of one device allocation.
struct JobMemory {
  Buffer buffer;
  JobTables tables{};
  unsigned char* extra = nullptr;
};

JobMemory allocate_jobs(uint64_t jobs, size_t chunks, size_t extra, Stream stream) {
  const uint64_t n = std::max<uint64_t>(jobs, 1);
  const uint64_t sizes[] = {n * 8, n * 8, n * 8, n * 8, n * 8, n * 4, n * 8, n * 4, n, chunks * 8};
  uint64_t total = 0;
  for (uint64_t s : sizes) total += align_up(s);
  JobMemory m;
  m.buffer = Buffer::allocate(total + extra, MemoryKind::device, stream);
  auto* base = reinterpret_cast<unsigned char*>(m.buffer.data());
  unsigned char* at[std::size(sizes)];
  for (size_t i = 0; i < std::size(sizes); ++i) {
    at[i] = base;
    base += align_up(sizes[i]);
  }
  m.tables.inputs = reinterpret_cast<const std::byte**>(at[0]);
  m.tables.input_sizes = reinterpret_cast<uint64_t*>(at[1]);
  m.tables.outputs = reinterpret_cast<std::byte**>(at[2]);
  m.tables.capacities = reinterpret_cast<uint64_t*>(at[3]);
  m.tables.output_sizes = reinterpret_cast<uint64_t*>(at[4]);
  m.tables.statuses = reinterpret_cast<DeviceChunkStatus*>(at[5]);
  m.tables.sizes = reinterpret_cast<uint64_t*>(at[6]);
  m.tables.owners = reinterpret_cast<uint32_t*>(at[7]);
  m.tables.kinds = at[8];
  m.tables.failures = reinterpret_cast<unsigned long long*>(at[9]);
  m.extra = base;
  return m;
}

// The DeviceChunkBatch of jobs [first, first + count).
DeviceChunkBatch job_batch(const JobTables& t, uint64_t first, uint64_t count) {
  DeviceChunkBatch b;
  b.inputs = t.inputs + first;
  b.input_sizes = t.input_sizes + first;
  b.outputs = t.outputs + first;
  b.output_capacities = t.capacities + first;
  b.output_sizes = t.output_sizes + first;
  b.statuses = t.statuses + first;
  b.count = count;
  return b;
}

}  // namespace

size_t blosc_inner_streams_decode_temp_bytes(size_t count, uint64_t max_output_capacity) {
  return align_up(blosc_decode_temp_bytes(count, max_output_capacity)) +
         align_up(count * sizeof(HeaderRecord));
}

void blosc_inner_streams_decode_batch(const DeviceChunkBatch& batch, void* temp,
                                      uint64_t max_output_capacity, Stream stream) {
  if (batch.count == 0) return;
  // 1. lz4-family chunks (and memcpyed ones); zstd / zlib chunks come back unsupported.
  auto* scratch = static_cast<unsigned char*>(temp);
  blosc_decode_batch(batch, scratch, max_output_capacity, stream);
  const cudaStream_t s = detail::to_cuda(stream.native());

  // 2. The headers of the batch reach the host: plan the zstd / zlib chunks' jobs there.
  auto* records = reinterpret_cast<HeaderRecord*>(
      scratch + align_up(blosc_decode_temp_bytes(batch.count, max_output_capacity)));
  const auto count_blocks = static_cast<unsigned>((batch.count + 127) / 128);
  gather_headers_kernel<<<count_blocks, 128, 0, s>>>(batch, max_output_capacity, records);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  Buffer host_records =
      Buffer::allocate(batch.count * sizeof(HeaderRecord), MemoryKind::pinned, stream);
  copy_bytes(host_records.data(), MemoryKind::pinned, records, MemoryKind::device,
             batch.count * sizeof(HeaderRecord), stream);
  stream.synchronize();
  const HostPlan plan =
      plan_on_host(reinterpret_cast<const HeaderRecord*>(host_records.data()), batch.count);
  if (plan.chunks.empty()) return;

  // 3. Job tables and the inner decoders' scratch, sized from the plan; the chunk list.
  const uint64_t jobs = plan.zstd_jobs + plan.zlib_jobs;
  const size_t zstd_temp =
      plan.zstd_jobs > 0 ? zstd_decode_temp_bytes(plan.zstd_jobs, plan.max_zstd_job) : 0;
  const size_t zlib_temp =
      plan.zlib_jobs > 0 ? inflate_temp_bytes(plan.zlib_jobs, plan.max_zlib_job) : 0;
  const size_t list_bytes = plan.chunks.size() * sizeof(InnerChunk);
  JobMemory memory = allocate_jobs(jobs, plan.chunks.size(),
                                   align_up(list_bytes) + std::max(zstd_temp, zlib_temp), stream);
  const JobTables& t = memory.tables;
  auto* chunk_list = reinterpret_cast<InnerChunk*>(memory.extra);
  unsigned char* decoder_temp = memory.extra + align_up(list_bytes);
  Buffer host_list = Buffer::allocate(list_bytes, MemoryKind::pinned, stream);
  std::memcpy(host_list.data(), plan.chunks.data(), list_bytes);
  copy_bytes(chunk_list, MemoryKind::device, host_list.data(), MemoryKind::pinned, list_bytes,
             stream);
  CUZARR_CUDA_CHECK(
      cudaMemsetAsync(t.failures, 0xFF, plan.chunks.size() * sizeof(unsigned long long), s));
  const auto n = static_cast<uint32_t>(plan.chunks.size());

  // 4. Jobs, decode, checks and stored streams, statuses, un-shuffle.
  fill_jobs_kernel<<<n, 128, 0, s>>>(batch, chunk_list, max_output_capacity, scratch, t);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  if (plan.zstd_jobs > 0) {
    zstd_decode_batch(job_batch(t, 0, plan.zstd_jobs), true, plan.max_zstd_job, decoder_temp,
                      stream);
  }
  if (plan.zlib_jobs > 0) {
    inflate_batch(job_batch(t, plan.zstd_jobs, plan.zlib_jobs), DeflateWrapper::zlib, true,
                  plan.max_zlib_job, decoder_temp, stream);
  }
  if (jobs > 0) {
    const auto blocks = static_cast<unsigned>(std::min<uint64_t>((jobs + 7) / 8, 1024));
    finish_jobs_kernel<<<blocks, 8 * kWarpSize, 0, s>>>(chunk_list, t, jobs);
    CUZARR_CUDA_CHECK(cudaGetLastError());
  }
  chunk_status_kernel<<<(n + 127) / 128, 128, 0, s>>>(batch, chunk_list, n, max_output_capacity, t);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  // About 2048 thread blocks whatever the chunk count, as blosc_decode_batch does.
  const auto parts = static_cast<unsigned>(std::clamp<size_t>(2048 / n, 1, 1024));
  unshuffle_kernel<<<dim3(n, parts), kUnshuffleThreads, 0, s>>>(batch, chunk_list,
                                                                max_output_capacity, scratch);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzarr::gpu
