#include <algorithm>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_chunk_block.cuh"
#include "codec/cuda/lz4_split_decode.hpp"
#include "codec/cuda/lz4_warp_decode.cuh"
#include "codec/cuda/lz4_warp_team_decode.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu::detail {
namespace {

/// Executors of a part's team: two, as the team decoder gives 1 MiB chunks of a 1 GiB batch
/// (1024 teams at once, the parallelism the split aims at): 8 thread blocks an SM, 80 registers.
constexpr unsigned kPartExecutors = 2;
constexpr unsigned kPartThreads = (1 + kPartExecutors) * kWarpSize;
constexpr int kPartBlocksPerSm = 65536 / (80 * static_cast<int>(kPartThreads));
constexpr unsigned kPlanWarps = 4;
constexpr unsigned kPlaceThreads = 256;
constexpr unsigned kPlacePieces = 16;  // thread blocks placing each part
constexpr unsigned kRepairThreads = 256;
constexpr unsigned kRepairPieces = 8;  // thread blocks repairing each part at once
/// Positions past a part's cut tried as its first token, one after the other, until a parse from
/// one holds kLz4SplitSyncBytes of sequences.
constexpr uint32_t kSyncRestarts = 256;
constexpr uint32_t kNoJoin = 0xFFFFFFFFu;

constexpr uint64_t kAlign = 256;

uint64_t align_up(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

/// Where each part's team starts: starts[0] = 0; ok = 0 leaves the chunk to the team decoder, and
/// so does bad = 1 (a root before the block's output, found by the repair).
struct Plan {
  uint32_t ok;
  uint32_t bad;
  uint32_t starts[kLz4SplitMaxParts];
};

/// A part's team's result: its parser's status and output position at the end (the scratch's
/// guard included for parts after the first), its output position at the next part's start token
/// (kNoJoin: its chain never came there), the end of its last tainted match, and whether taint
/// reached past kLz4SplitZone.
struct PartResult {
  DeviceChunkStatus status;
  uint32_t parsed;
  uint32_t join_out;
  uint32_t taint_end;
  uint32_t overflow;
};

/// The scratch of a batch (lz4_split_temp_bytes): per chunk its plan and handled flag, per part its
/// result, and per part after the first its output (guard first), zone marks and roots.
struct Scratch {
  uint32_t* handled;
  Plan* plans;
  PartResult* results;
  unsigned char* outputs;
  unsigned char* marks;
  uint16_t* roots;
  unsigned parts;
  uint64_t part_capacity;  // bytes a part after the first may produce

  __host__ __device__ uint64_t later_part(size_t chunk, unsigned part) const {
    return chunk * (parts - 1) + (part - 1);
  }
  __device__ unsigned char* output(size_t chunk, unsigned part) const {
    return outputs + later_part(chunk, part) * (kLz4SplitGuard + part_capacity);
  }
  __device__ unsigned char* mark(size_t chunk, unsigned part) const {
    return marks + later_part(chunk, part) * kLz4SplitZone;
  }
  __device__ uint16_t* root(size_t chunk, unsigned part) const {
    return roots + later_part(chunk, part) * kLz4SplitZone;
  }
};

uint64_t part_capacity(uint64_t max_output, unsigned parts) {
  return align_up((3 * max_output + 2 * parts - 1) / (2 * parts));
}

struct ScratchSizes {
  uint64_t handled, plans, results, outputs, marks, roots;
  uint64_t total() const { return handled + plans + results + outputs + marks + roots; }
};

ScratchSizes scratch_sizes(size_t count, uint64_t max_output, unsigned parts) {
  const uint64_t later = count * uint64_t{parts - 1};
  return {align_up(count * sizeof(uint32_t)),
          align_up(count * sizeof(Plan)),
          align_up(count * parts * sizeof(PartResult)),
          align_up(later * (kLz4SplitGuard + part_capacity(max_output, parts))),
          align_up(later * kLz4SplitZone),
          align_up(later * kLz4SplitZone * sizeof(uint16_t))};
}

Scratch make_scratch(void* temp, size_t count, uint64_t max_output, unsigned parts) {
  const ScratchSizes z = scratch_sizes(count, max_output, parts);
  auto* at = static_cast<unsigned char*>(temp);
  Scratch s{};
  s.handled = reinterpret_cast<uint32_t*>(at);
  at += z.handled;
  s.plans = reinterpret_cast<Plan*>(at);
  at += z.plans;
  s.results = reinterpret_cast<PartResult*>(at);
  at += z.results;
  s.outputs = at;
  at += z.outputs;
  s.marks = at;
  at += z.marks;
  s.roots = reinterpret_cast<uint16_t*>(at);
  s.parts = parts;
  s.part_capacity = part_capacity(max_output, parts);
  return s;
}

/// The chunk's block, if the split takes it.
template <bool kNumcodecs>
__device__ inline bool split_block(const DeviceChunkBatch& batch, size_t chunk, uint64_t max_output,
                                   ChunkBlock& b) {
  b = chunk_block<kNumcodecs>(batch, chunk);
  return b.decode && b.in_size < kLz4WarpMaxInput && b.capacity >= kLz4SplitMinCapacity &&
         b.capacity <= max_output && b.capacity <= kLz4TeamMaxOutput &&
         3 * b.in_size <= 2 * b.capacity && b.in_size * kLz4SplitMaxRatio >= b.capacity;
}

/// A token position at least kLz4SplitSyncBytes past `cut` on a chain of sequences that parses
/// from a position in [cut, cut + kSyncRestarts), or 0. Distances are checked as if 64 KiB of
/// output came before (the part's guard), so that only a distance of 0 fails them.
__device__ inline uint32_t find_part_start(const unsigned char* in, uint32_t in_size,
                                           uint32_t cut) {
  const uint64_t until = uint64_t{cut} + kLz4SplitSyncBytes;
  if (until >= in_size) return 0;
  for (uint32_t from = cut; from < cut + kSyncRestarts; ++from) {
    uint64_t ip = from;
    bool chain = true;
    while (chain && ip < until) {
      CopyStep step;
      chain = lz4_parse_sequence(in, in_size, ip, kLz4SplitGuard, UINT64_MAX / 2, step) ==
                  DeviceChunkStatus::ok &&
              !step.last;
    }
    if (chain && ip < in_size) return static_cast<uint32_t>(ip);
  }
  return 0;
}

template <bool kNumcodecs>
__global__ void __launch_bounds__(kPlanWarps* kWarpSize)
    split_plan_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output) {
  const size_t chunk = blockIdx.x * size_t{kPlanWarps} + threadIdx.x / kWarpSize;
  if (chunk >= batch.count) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  ChunkBlock b;
  const bool taken = split_block<kNumcodecs>(batch, chunk, max_output, b);
  uint32_t start = 0;
  if (taken && lane > 0 && lane < s.parts) {
    const auto in_size = static_cast<uint32_t>(b.in_size);
    start = find_part_start(b.in, in_size, lz4_split_cut(in_size, lane, s.parts));
  }
  // Every start found, each past the one before it.
  const uint32_t previous = __shfl_up_sync(kFullMask, start, 1);
  const bool fine = lane == 0 || lane >= s.parts || (start != 0 && start > previous);
  const bool ok = taken && __all_sync(kFullMask, fine);
  if (lane < s.parts) s.plans[chunk].starts[lane] = start;
  if (lane == 0) {
    s.plans[chunk].ok = ok ? 1u : 0u;
    s.plans[chunk].bad = 0;
  }
}

/// What a part's executors do besides executing (Lz4TeamNoExtra's hooks): record the output
/// position at the next part's start token, and for a part after the first mark its tainted bytes.
struct PartExtra {
  unsigned char* marks;  // 1 for a tainted position below kLz4SplitZone; null in the first part
  uint16_t* roots;       // a tainted position's root (a position of the guard)
  uint32_t* taint_end;   // shared: the end of the last tainted match
  uint32_t* overflow;    // shared: taint past kLz4SplitZone
  uint32_t* join_out;    // shared
  uint32_t join_at;      // the next part's start token (kNoJoin: the last part)

  /// A step that ends right before the next part's start token (lz4_Block_format.md: after the
  /// literals, a 2-byte offset, then (length - 19) / 255 + 1 bytes for a match of 19 or more).
  __device__ void step(const Lz4QueuedStep& s, bool has) const {
    if (!has || s.match_length == 0 || join_at == kNoJoin) return;
    const uint32_t extended = s.match_length >= 19 ? (s.match_length - 19) / 255 + 1 : 0;
    if (s.literal_at + s.literal_length + 2 + extended == join_at) {
      *join_out = s.output_at + s.literal_length + s.match_length;
    }
  }

  /// A match just copied: a source past the taint end and the guard is clean (the taint end rises
  /// before the bytes it covers are announced final); else mark_match.
  __device__ void match(bool ready, uint32_t match_at, uint32_t distance, uint32_t length) const {
    if (!ready || marks == nullptr) return;
    const uint32_t source = match_at - distance;
    if (source >= kLz4SplitGuard && source >= *static_cast<volatile uint32_t*>(taint_end)) return;
    mark_match(match_at, distance, length);
  }

  /// Marks the tainted bytes of a match whose source may hold some: those whose source byte lies
  /// in the guard or is marked (byte by byte: a whole match tainted for one byte would spread over
  /// most of the part). The marks of a source are final when its bytes are (written before the
  /// team's progress words that announce them). A source whose marks, 8 at a time, are all 0 is
  /// clean (most matches of a zone); else only the set marks are followed, 8 at a time (on an H200
  /// the split ran 1.02x to 1.05x faster than byte by byte). Kept inline: out of line
  /// (__noinline__), the parts took 1.12x as long (bench/RESULTS.md, "Large LZ4 blocks split into
  /// parts").
  __device__ __forceinline__ void mark_match(uint32_t match_at, uint32_t distance,
                                             uint32_t length) const {
    const uint32_t source = match_at - distance;
    const uint32_t clean_from = *static_cast<volatile uint32_t*>(taint_end);
    if (source >= kLz4SplitGuard) {
      // The bytes read before the match's own: [source, min(source + length, match_at)), all
      // below the zone's end (past it nothing is tainted).
      const uint32_t end =
          static_cast<uint32_t>(umin(umin(uint64_t{source} + length, match_at), kLz4SplitZone));
      uint64_t any = 0;
      for (uint32_t w = source & ~7u; w < end; w += 8) {
        uint64_t word = *reinterpret_cast<const uint64_t*>(marks + w);
        if (w < source) word &= ~uint64_t{0} << (8 * (source - w));
        if (w + 8 > end) word &= ~uint64_t{0} >> (8 * (w + 8 - end));
        any |= word;
      }
      if (any == 0) return;
    }
    bool tainted = false;
    // Byte t takes root `root`: false once past the zone (the part then fails).
    const auto taint = [&](uint32_t t, uint32_t root) {
      const uint32_t to = match_at + t;
      if (to >= kLz4SplitZone) {
        *static_cast<volatile uint32_t*>(overflow) = 1;
        return false;
      }
      marks[to] = 1;
      roots[to] = static_cast<uint16_t>(root);
      tainted = true;
      return true;
    };
    // The bytes that read before the match: guard bytes one by one, marks 8 at a time.
    const uint32_t before = umin(length, distance);
    uint32_t t = 0;
    while (t < before) {
      const uint32_t from = source + t;
      if (from < kLz4SplitGuard) {
        if (!taint(t, from)) return;
        ++t;
        continue;
      }
      // Past the taint known at the start (or the zone), every byte read before the match is
      // clean.
      if (from >= clean_from || from >= kLz4SplitZone) break;
      const uint32_t w = from & ~7u;  // below the zone's end, as the zone's size is a multiple of 8
      const uint32_t n = umin(w + 8 - from, before - t);
      uint64_t word = *reinterpret_cast<const uint64_t*>(marks + w) >> (8 * (from - w));
      if (n < 8) word &= (uint64_t{1} << (8 * n)) - 1;
      for (; word != 0; word &= word - 1) {
        const uint32_t k = static_cast<uint32_t>(__ffsll(static_cast<long long>(word)) - 1) / 8;
        if (!taint(t + k, roots[from + k])) return;
      }
      t += n;
    }
    // A match that overlaps its own output: byte t >= distance reads its byte t - distance, marked
    // above if tainted (by this thread), so none is when none before it was.
    for (t = before; tainted && t < length; ++t) {
      const uint32_t from = source + t;
      if (from < kLz4SplitZone && marks[from] != 0 && !taint(t, roots[from])) return;
    }
    if (tainted) atomicMax(taint_end, match_at + length);
  }
};

/// A team per part (lz4_warp_team_decode.cuh): a parser and kPartExecutors executors.
template <bool kNumcodecs>
__global__ void __launch_bounds__(kPartThreads, kPartBlocksPerSm)
    split_part_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output) {
  const size_t chunk = blockIdx.x / s.parts;
  const unsigned part = blockIdx.x % s.parts;
  if (s.plans[chunk].ok == 0) return;
  __shared__ Lz4TeamShared<kPartExecutors, false> shared;
  __shared__ uint32_t taint_end, overflow, join_out;
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  ChunkBlock b;
  split_block<kNumcodecs>(batch, chunk, max_output, b);
  const bool first = part == 0, last = part + 1 == s.parts;
  const uint32_t start = s.plans[chunk].starts[part];
  const uint32_t stop_at = last ? kNoJoin : s.plans[chunk].starts[part + 1];
  if (warp == 0) lz4_team_reset(shared, lane);
  if (threadIdx.x == 0) {
    taint_end = 0;
    overflow = 0;
    join_out = kNoJoin;
  }
  __syncthreads();
  if (warp == 0) {
    warp_lz4_team_parse(b.in, static_cast<uint32_t>(b.in_size),
                        first ? b.capacity : kLz4SplitGuard + s.part_capacity, lane, shared, start,
                        first ? 0 : kLz4SplitGuard, stop_at);
  } else {
    const PartExtra extra{first ? nullptr : s.mark(chunk, part),
                          first ? nullptr : s.root(chunk, part),
                          &taint_end,
                          &overflow,
                          &join_out,
                          stop_at};
    warp_lz4_team_execute(b.in, first ? b.out : s.output(chunk, part), warp - 1, lane, shared,
                          extra);
  }
  __syncthreads();  // every group executed
  if (threadIdx.x == 0) {
    s.results[blockIdx.x] = {shared.status, static_cast<uint32_t>(shared.parsed), join_out,
                             taint_end, overflow};
  }
}

/// Where the parts' bytes go: at[k] is the output position of part k's first byte, at[parts]
/// the chunk's size. ok: every part decoded, reached the next part's start, kept its taint within
/// its zone, and the sizes agree with the block.
struct Layout {
  bool ok;
  uint64_t at[kLz4SplitMaxParts + 1];
};

template <bool kNumcodecs>
__device__ inline Layout split_layout(const Scratch& s, size_t chunk, const ChunkBlock& b) {
  Layout l{true, {}};
  uint64_t at = 0;
  for (unsigned k = 0; k < s.parts; ++k) {
    const PartResult r = s.results[chunk * s.parts + k];
    const uint32_t begin = k == 0 ? 0 : kLz4SplitGuard;
    const uint32_t end = k + 1 < s.parts ? r.join_out : r.parsed;
    if (r.status != DeviceChunkStatus::ok || r.overflow != 0 || end == kNoJoin || end < begin) {
      l.ok = false;
      return l;
    }
    l.at[k] = at;
    at += end - begin;
  }
  l.at[s.parts] = at;
  l.ok = at <= b.capacity && (!kNumcodecs || at == b.expected);
  return l;
}

/// Which piece of which part (after the first) of which chunk this thread block works on, in a grid
/// of `pieces` thread blocks per part, with the chunk's block and layout (`layout` in shared
/// memory, the same for every thread). False when the chunk is not split.
template <bool kNumcodecs>
__device__ inline bool part_piece(const DeviceChunkBatch& batch, const Scratch& s,
                                  uint64_t max_output, unsigned pieces, size_t& chunk,
                                  unsigned& part, unsigned& piece, ChunkBlock& b, Layout& layout) {
  const uint64_t id = blockIdx.x / pieces;
  piece = blockIdx.x % pieces;
  chunk = id / (s.parts - 1);
  part = static_cast<unsigned>(id % (s.parts - 1)) + 1;
  if (s.plans[chunk].ok == 0) return false;
  split_block<kNumcodecs>(batch, chunk, max_output, b);
  if (threadIdx.x == 0) layout = split_layout<kNumcodecs>(s, chunk, b);
  __syncthreads();
  return layout.ok;
}

template <bool kNumcodecs>
__global__ void __launch_bounds__(kPlaceThreads)
    split_place_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output) {
  __shared__ Layout layout;
  size_t chunk;
  unsigned part, piece;
  ChunkBlock b;
  if (!part_piece<kNumcodecs>(batch, s, max_output, kPlacePieces, chunk, part, piece, b, layout)) {
    return;
  }
  const uint64_t n = layout.at[part + 1] - layout.at[part];
  const uint64_t lo = n * piece / kPlacePieces, hi = n * (piece + 1) / kPlacePieces;
  cooperative_copy(b.out + layout.at[part] + lo, s.output(chunk, part) + kLz4SplitGuard + lo,
                   hi - lo, threadIdx.x, kPlaceThreads);
}

/// Whether part k's roots may read tainted bytes of an earlier part: roots lie in the 64 KiB before
/// part k, and part j's tainted bytes before its taint end. Such a part is repaired after the parts
/// before it (split_finish_kernel); the others at once (split_repair_kernel).
__device__ inline bool repair_waits(const Scratch& s, size_t chunk, const Layout& l, unsigned k) {
  for (unsigned j = 1; j < k; ++j) {  // part 0 has no tainted bytes
    const uint32_t end = s.results[chunk * s.parts + j].taint_end;
    if (end > kLz4SplitGuard && l.at[j] + end > l.at[k]) return true;  // within 64 KiB of at[k]
  }
  return false;
}

/// Repairs bytes [lo, hi) of part k (positions of its scratch, multiples of 16 apart from hi):
/// each tainted byte takes its root's value; a root before the block's output marks the chunk bad
/// (the serial decoder's distance check fails there).
__device__ inline void repair_range(const Scratch& s, size_t chunk, unsigned k, const Layout& l,
                                    unsigned char* out, uint32_t lo, uint32_t hi, unsigned rank,
                                    unsigned ranks) {
  const uint64_t at = l.at[k];
  const unsigned char* marks = s.mark(chunk, k);
  const uint16_t* roots = s.root(chunk, k);
  bool bad = false;
  for (uint32_t p = lo + 16 * rank; p < hi; p += 16 * ranks) {
    const uint4 word = *reinterpret_cast<const uint4*>(marks + p);
    if ((word.x | word.y | word.z | word.w) == 0) continue;
    for (uint32_t q = p; q < p + 16 && q < hi; ++q) {
      if (marks[q] == 0) continue;
      const uint64_t root = uint64_t{roots[q]};
      if (at + root < kLz4SplitGuard) {
        bad = true;
        continue;
      }
      out[at + q - kLz4SplitGuard] = out[at + root - kLz4SplitGuard];
    }
  }
  if (bad) s.plans[chunk].bad = 1;
}

/// The end of part k's bytes to repair: its taint end, within its zone and its own bytes.
__device__ inline uint32_t repair_end(const Scratch& s, size_t chunk, unsigned k, const Layout& l) {
  return static_cast<uint32_t>(umin(umin(s.results[chunk * s.parts + k].taint_end, kLz4SplitZone),
                                    kLz4SplitGuard + (l.at[k + 1] - l.at[k])));
}

/// The parts whose roots read only final bytes, kRepairPieces thread blocks each.
template <bool kNumcodecs>
__global__ void __launch_bounds__(kRepairThreads)
    split_repair_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output) {
  __shared__ Layout layout;
  size_t chunk;
  unsigned part, piece;
  ChunkBlock b;
  if (!part_piece<kNumcodecs>(batch, s, max_output, kRepairPieces, chunk, part, piece, b, layout) ||
      repair_waits(s, chunk, layout, part)) {
    return;
  }
  const uint32_t end = repair_end(s, chunk, part, layout);
  if (end <= kLz4SplitGuard) return;
  const uint32_t span = (end - kLz4SplitGuard + 16 * kRepairPieces - 1) / (16 * kRepairPieces) * 16;
  const uint32_t lo = kLz4SplitGuard + piece * span;
  const uint32_t hi = static_cast<uint32_t>(umin(end, uint64_t{lo} + span));
  repair_range(s, chunk, part, layout, b.out, lo, hi, threadIdx.x, kRepairThreads);
}

/// Per chunk: the parts that wait for the part before, in order, then the chunk's result.
template <bool kNumcodecs>
__global__ void __launch_bounds__(kRepairThreads)
    split_finish_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output) {
  const size_t chunk = blockIdx.x;
  __shared__ Layout layout;
  ChunkBlock b;
  split_block<kNumcodecs>(batch, chunk, max_output, b);
  if (threadIdx.x == 0) {
    layout = s.plans[chunk].ok != 0 ? split_layout<kNumcodecs>(s, chunk, b) : Layout{false, {}};
  }
  __syncthreads();
  if (layout.ok) {
    for (unsigned part = 2; part < s.parts; ++part) {
      if (!repair_waits(s, chunk, layout, part)) continue;
      repair_range(s, chunk, part, layout, b.out, kLz4SplitGuard,
                   repair_end(s, chunk, part, layout), threadIdx.x, kRepairThreads);
      __syncthreads();  // this part's bytes before the next part's roots read them
    }
  }
  __syncthreads();  // every `bad` written
  if (threadIdx.x == 0) {
    const bool ok = layout.ok && s.plans[chunk].bad == 0;
    s.handled[chunk] = ok ? 1u : 0u;
    if (ok) {
      batch.statuses[chunk] = DeviceChunkStatus::ok;
      batch.output_sizes[chunk] = layout.at[s.parts];
    }
  }
}

template <bool kNumcodecs>
void launch(const DeviceChunkBatch& batch, uint64_t max_output, const Scratch& s,
            uint64_t marks_bytes, cudaStream_t stream) {
  const auto count = static_cast<unsigned>(batch.count);
  CUZARR_CUDA_CHECK(cudaMemsetAsync(s.marks, 0, marks_bytes, stream));
  split_plan_kernel<kNumcodecs>
      <<<(count + kPlanWarps - 1) / kPlanWarps, kPlanWarps * kWarpSize, 0, stream>>>(batch, s,
                                                                                     max_output);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  split_part_kernel<kNumcodecs><<<count * s.parts, kPartThreads, 0, stream>>>(batch, s, max_output);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  split_place_kernel<kNumcodecs>
      <<<count*(s.parts - 1) * kPlacePieces, kPlaceThreads, 0, stream>>>(batch, s, max_output);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  split_repair_kernel<kNumcodecs>
      <<<count*(s.parts - 1) * kRepairPieces, kRepairThreads, 0, stream>>>(batch, s, max_output);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  split_finish_kernel<kNumcodecs><<<count, kRepairThreads, 0, stream>>>(batch, s, max_output);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

unsigned lz4_split_parts(uint64_t max_output) {
  if (max_output < kLz4SplitMinCapacity || max_output > kLz4TeamMaxOutput) return 0;
  return static_cast<unsigned>(
      std::clamp<uint64_t>(max_output / kLz4SplitPartOutput, 2, kLz4SplitMaxParts));
}

bool lz4_split_pays(size_t count, uint64_t max_output) {
  const unsigned parts = lz4_split_parts(max_output);
  if (parts == 0 || count == 0 || max_output < kLz4SplitAutoFrom) return false;
  return count * parts <= resident_blocks(split_part_kernel<true>, kPartThreads) &&
         lz4_split_temp_bytes(count, max_output) <= kLz4SplitMaxTemp;
}

size_t lz4_split_temp_bytes(size_t count, uint64_t max_output) {
  const unsigned parts = lz4_split_parts(max_output);
  if (parts == 0 || count == 0) return 0;
  return scratch_sizes(count, max_output, parts).total();
}

const uint32_t* lz4_split_decode_batch(const DeviceChunkBatch& batch, bool numcodecs,
                                       uint64_t max_output, void* temp, Stream stream) {
  const unsigned parts = lz4_split_parts(max_output);
  if (parts == 0 || batch.count == 0) return nullptr;
  const Scratch s = make_scratch(temp, batch.count, max_output, parts);
  const uint64_t marks_bytes = scratch_sizes(batch.count, max_output, parts).marks;
  const cudaStream_t cuda_stream = to_cuda(stream.native());
  if (numcodecs) {
    launch<true>(batch, max_output, s, marks_bytes, cuda_stream);
  } else {
    launch<false>(batch, max_output, s, marks_bytes, cuda_stream);
  }
  return s.handled;
}

}  // namespace cuzarr::gpu::detail
