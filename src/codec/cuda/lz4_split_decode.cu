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
/// Positions past a part's cut tried as its first token, one after the other, until a parse from
/// one holds kLz4SplitSyncBytes of sequences.
constexpr uint32_t kSyncRestarts = 256;
constexpr uint32_t kNoJoin = 0xFFFFFFFFu;

constexpr uint64_t kAlign = 256;
/// 16-byte words a thread of a part keeps in flight while it places the part: on an H200 8 rather
/// than 4 sped the split up 1.01x at 4 MiB (bench/RESULTS.md, "the marks zeroed by the plan
/// kernel").
constexpr unsigned kPlaceInFlight = 8;

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

/// A part's state (Scratch::states), published in this order: its result written, its bytes in
/// the chunk's output, its tainted bytes repaired. A part that gives up (the chunk is not split)
/// goes straight to kPartFinal.
enum PartState : uint32_t { kPartRunning = 0, kPartDecoded = 1, kPartPlaced = 2, kPartFinal = 3 };

/// The scratch of a batch (lz4_split_temp_bytes): the parts' tickets and states, per chunk its plan
/// and handled flag, per part its result, and per part after the first its output (guard first),
/// zone marks and roots.
struct Scratch {
  uint32_t* ticket;  // the next part a starting thread block takes
  uint32_t* states;  // per part (PartState)
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
  uint64_t sync, handled, plans, results, outputs, marks, roots;
  uint64_t total() const { return sync + handled + plans + results + outputs + marks + roots; }
};

ScratchSizes scratch_sizes(size_t count, uint64_t max_output, unsigned parts) {
  const uint64_t later = count * uint64_t{parts - 1};
  return {align_up((1 + count * parts) * sizeof(uint32_t)),
          align_up(count * sizeof(uint32_t)),
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
  s.ticket = reinterpret_cast<uint32_t*>(at);
  s.states = s.ticket + 1;
  at += z.sync;
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

/// Thread blocks of the plan kernel that zero the marks while the plan's lanes parse (the GPU would
/// mostly wait for those otherwise), 4 per SM of an H200. On an H200 this rather than a memset
/// before the plan sped the split up 1.01x at 4 MiB (bench/RESULTS.md, "the marks zeroed by the
/// plan kernel").
constexpr unsigned kZeroBlocks = 528;

/// A warp per chunk plans it (the first `plan_blocks` thread blocks); the kZeroBlocks after them
/// zero the marks (`mark_words` 16-byte words).
template <bool kNumcodecs>
__global__ void __launch_bounds__(kPlanWarps* kWarpSize)
    split_plan_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output, unsigned plan_blocks,
                      uint64_t mark_words) {
  if (blockIdx.x >= plan_blocks) {
    const uint64_t threads = uint64_t{kZeroBlocks} * blockDim.x;
    auto* words = reinterpret_cast<uint4*>(s.marks);
    for (uint64_t w = (blockIdx.x - plan_blocks) * uint64_t{blockDim.x} + threadIdx.x;
         w < mark_words; w += threads) {
      words[w] = uint4{};
    }
    return;
  }
  const size_t chunk = blockIdx.x * size_t{kPlanWarps} + threadIdx.x / kWarpSize;
  if (blockIdx.x == 0 && threadIdx.x == 0) *s.ticket = 0;
  if (chunk >= batch.count) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  if (lane < s.parts) s.states[chunk * s.parts + lane] = kPartRunning;
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
    s.handled[chunk] = 0;
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

/// Waits (one thread) until `part`'s state is at least `state`. What the part wrote before it
/// published that state is then visible to the caller's thread block after its next barrier, read
/// past L1 (volatile or ld.global.cg: L1 may hold older copies of other thread blocks' lines).
__device__ inline void wait_state(const Scratch& s, uint64_t part, uint32_t state) {
  while (*static_cast<const volatile uint32_t*>(s.states + part) < state) __nanosleep(200);
  __threadfence();
}

/// Publishes `state` for `part` once every thread of the block has written what it announces
/// (every thread calls it).
__device__ inline void publish_state(const Scratch& s, uint64_t part, uint32_t state) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) *static_cast<volatile uint32_t*>(s.states + part) = state;
}

/// Another part's result, read past L1.
__device__ inline PartResult load_result(const Scratch& s, uint64_t part) {
  const volatile PartResult& r = s.results[part];
  return {r.status, r.parsed, r.join_out, r.taint_end, r.overflow};
}

/// Where part k's bytes go in the chunk's output, [at, end), once the parts before it decoded. ok:
/// they and part k decoded, reached the next part's start and kept their taint within their zones,
/// and the bytes up to `end` fit the capacity. waits: part k's roots (the 64 KiB before `at`) may
/// read tainted bytes of an earlier part, which must be repaired first.
struct PartPlace {
  bool ok;
  bool waits;
  uint64_t at;
  uint64_t end;
};

__device__ inline PartPlace part_place(const Scratch& s, size_t chunk, unsigned k,
                                       uint64_t capacity) {
  PartPlace p{false, false, 0, 0};
  uint64_t at = 0, taint_reach = 0;  // past the last tainted byte of the parts before
  for (unsigned j = 0; j <= k; ++j) {
    const PartResult r = load_result(s, chunk * s.parts + j);
    const uint32_t begin = j == 0 ? 0 : kLz4SplitGuard;
    const uint32_t end = j + 1 < s.parts ? r.join_out : r.parsed;
    if (r.status != DeviceChunkStatus::ok || r.overflow != 0 || end == kNoJoin || end < begin) {
      return p;
    }
    if (j == k) {
      p = {at + (end - begin) <= capacity, taint_reach + kLz4SplitGuard > at, at,
           at + (end - begin)};
      return p;
    }
    if (j > 0 && r.taint_end > kLz4SplitGuard) {
      taint_reach = umax(taint_reach, at + (r.taint_end - kLz4SplitGuard));
    }
    at += end - begin;
  }
  return p;
}

/// Repairs the tainted bytes of the 16 positions from g of part k, placed at `at`: each takes its
/// root's value, from the bytes before the part (other thread blocks' bytes: read from L2). The
/// group's marks and roots are loaded together, then every root's value. A root before the
/// block's output sets `bad` (the serial decoder's distance check fails there).
__device__ inline void repair_group(const unsigned char* marks, const uint16_t* roots, uint32_t g,
                                    uint32_t end, uint64_t at, unsigned char* out, bool& bad) {
  const uint4 word = __ldcg(reinterpret_cast<const uint4*>(marks + g));
  const uint4 low = __ldcg(reinterpret_cast<const uint4*>(roots + g));  // roots of g .. g + 7
  const uint4 high = __ldcg(reinterpret_cast<const uint4*>(roots + g + 8));
  const uint32_t mark_words[4] = {word.x, word.y, word.z, word.w};
  const uint32_t root_words[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  unsigned char values[16];
  uint32_t taken = 0;
#pragma unroll
  for (unsigned i = 0; i < 16; ++i) {
    const bool marked = ((mark_words[i / 4] >> (8 * (i % 4))) & 0xFF) != 0 && g + i < end;
    const uint64_t root = (root_words[i / 2] >> (16 * (i % 2))) & 0xFFFF;
    if (!marked) continue;
    if (at + root < kLz4SplitGuard) {
      bad = true;
      continue;
    }
    values[i] = __ldcg(out + at + root - kLz4SplitGuard);
    taken |= 1u << i;
  }
#pragma unroll
  for (unsigned i = 0; i < 16; ++i) {
    if ((taken >> i) & 1) out[at + g + i - kLz4SplitGuard] = values[i];
  }
}

/// The end of part k's positions to repair: its taint end, within its zone and its own bytes.
__device__ inline uint32_t repair_end(uint32_t taint_end, uint64_t bytes) {
  return static_cast<uint32_t>(umin(umin(taint_end, kLz4SplitZone), kLz4SplitGuard + bytes));
}

/// Part k's groups of 16 positions with a mark, found while the part waits for the parts before
/// it, so that its repair then touches only them: their numbers (from the guard on) in shared
/// memory the decode no longer uses.
struct MarkedGroups {
  uint16_t* list;
  uint32_t capacity;
  uint32_t* count;  // shared
  static_assert(kLz4SplitZone - kLz4SplitGuard <= 16u * 65536u);

  /// Lists the groups below `end` (every thread calls it), 4 mark words in flight a thread, and
  /// asks L2 for each listed group's roots; false when they are more than the list holds.
  __device__ bool find(const unsigned char* marks, const uint16_t* roots, uint32_t end) const {
    constexpr unsigned kAhead = 4;
    if (threadIdx.x == 0) *count = 0;
    __syncthreads();
    for (uint32_t base = kLz4SplitGuard + 16 * threadIdx.x; base < end;
         base += kAhead * 16 * kPartThreads) {
      uint4 words[kAhead];
#pragma unroll
      for (unsigned u = 0; u < kAhead; ++u) {
        const uint32_t g = base + u * 16 * kPartThreads;
        words[u] = g < end ? *reinterpret_cast<const uint4*>(marks + g) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (unsigned u = 0; u < kAhead; ++u) {
        if ((words[u].x | words[u].y | words[u].z | words[u].w) == 0) continue;
        const uint32_t g = base + u * 16 * kPartThreads;
        const uint32_t i = atomicAdd(count, 1u);
        if (i < capacity) list[i] = static_cast<uint16_t>((g - kLz4SplitGuard) / 16);
        asm volatile("prefetch.global.L2 [%0];" ::"l"(roots + g));
      }
    }
    __syncthreads();
    return *count <= capacity;
  }
};

/// Repairs part k's tainted bytes: the listed groups, or when the list is incomplete every group
/// with a mark below the repair end.
__device__ inline void repair_part(const Scratch& s, size_t chunk, unsigned k, const PartPlace& p,
                                   uint32_t end, const MarkedGroups& groups, bool listed,
                                   unsigned char* out) {
  const unsigned char* marks = s.mark(chunk, k);
  const uint16_t* roots = s.root(chunk, k);
  bool bad = false;
  if (listed) {
    const uint32_t count = *groups.count;
    for (uint32_t i = threadIdx.x; i < count; i += kPartThreads) {
      repair_group(marks, roots, kLz4SplitGuard + 16 * uint32_t{groups.list[i]}, end, p.at, out,
                   bad);
    }
  } else {
    for (uint32_t g = kLz4SplitGuard + 16 * threadIdx.x; g < end; g += 16 * kPartThreads) {
      const uint4 word = *reinterpret_cast<const uint4*>(marks + g);
      if ((word.x | word.y | word.z | word.w) != 0)
        repair_group(marks, roots, g, end, p.at, out, bad);
    }
  }
  if (bad) s.plans[chunk].bad = 1;
}

/// What part `me` does once decoded: part 0 is final (its bytes are in place and untainted); a
/// later part copies its bytes to their place once the parts before it have decoded, then repairs
/// them when the bytes its roots read are final; the last part then gives the chunk's result.
template <bool kNumcodecs>
__device__ inline void place_part(const DeviceChunkBatch& batch, const Scratch& s,
                                  uint64_t max_output, uint32_t me, const MarkedGroups& groups) {
  __shared__ PartPlace place;
  const size_t chunk = me / s.parts;
  const unsigned part = me % s.parts;
  if (part == 0) {
    publish_state(s, me, kPartFinal);
    return;
  }
  publish_state(s, me, kPartDecoded);
  ChunkBlock b;
  split_block<kNumcodecs>(batch, chunk, max_output, b);
  const PartResult own = s.results[me];
  const uint32_t own_end = part + 1 < s.parts ? own.join_out : own.parsed;
  const uint32_t end =
      repair_end(own.taint_end, own_end >= kLz4SplitGuard ? own_end - kLz4SplitGuard : 0);
  const bool listed = groups.find(s.mark(chunk, part), s.root(chunk, part), end);
  if (threadIdx.x == 0) {
    for (unsigned j = 0; j < part; ++j) wait_state(s, me - part + j, kPartDecoded);
    place = part_place(s, chunk, part, b.capacity);
  }
  __syncthreads();
  if (!place.ok) {  // the chunk is left to the team decoder
    publish_state(s, me, kPartFinal);
    return;
  }
  cooperative_copy_from_aligned<kPlaceInFlight>(b.out + place.at,
                                                s.output(chunk, part) + kLz4SplitGuard,
                                                place.end - place.at, threadIdx.x, kPartThreads);
  publish_state(s, me, kPartPlaced);
  if (threadIdx.x == 0) {
    for (unsigned j = 1; j < part; ++j) {
      wait_state(s, me - part + j, place.waits ? kPartFinal : kPartPlaced);
    }
  }
  __syncthreads();
  repair_part(s, chunk, part, place, end, groups, listed, b.out);
  publish_state(s, me, kPartFinal);
  if (part + 1 < s.parts || threadIdx.x != 0) return;
  for (unsigned j = 1; j < part; ++j) wait_state(s, me - part + j, kPartFinal);
  const bool ok = (!kNumcodecs || place.end == b.expected) &&
                  *static_cast<const volatile uint32_t*>(&s.plans[chunk].bad) == 0;
  if (ok) {
    batch.statuses[chunk] = DeviceChunkStatus::ok;
    batch.output_sizes[chunk] = place.end;
    s.handled[chunk] = 1;
  }
}

/// A team per part (lz4_warp_team_decode.cuh): a parser and kPartExecutors executors, then
/// place_part. The parts take tickets in the order their thread blocks start, so a part waits only
/// for parts that started before it (which never wait for a later one). So the copies and repairs
/// run beside the teams still decoding, not after all of them.
template <bool kNumcodecs>
__global__ void __launch_bounds__(kPartThreads, kPartBlocksPerSm)
    split_part_kernel(DeviceChunkBatch batch, Scratch s, uint64_t max_output) {
  __shared__ Lz4TeamShared<kPartExecutors, false> shared;
  __shared__ uint32_t ticket, taint_end, overflow, join_out, marked_groups;
  if (threadIdx.x == 0) ticket = atomicAdd(s.ticket, 1u);
  __syncthreads();
  const size_t chunk = ticket / s.parts;
  const unsigned part = ticket % s.parts;
  if (s.plans[chunk].ok == 0) return;
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
    // The long copies out of line (warp_copy_long_items_out_of_line).
    warp_lz4_team_execute<kPartExecutors, false, PartExtra, true>(
        b.in, first ? b.out : s.output(chunk, part), warp - 1, lane, shared, extra);
  }
  __syncthreads();  // every group executed
  // What follows reloads the part and its block rather than keep them in registers through the
  // decode (the executors use every one of them).
  const uint32_t me = load_shared_volatile(ticket);
  if (threadIdx.x == 0) {
    s.results[me] = {shared.status, static_cast<uint32_t>(shared.parsed), join_out, taint_end,
                     overflow};
  }
  // The decode's shared memory lists the groups to repair.
  static_assert(sizeof(shared) % sizeof(uint16_t) == 0);
  const MarkedGroups groups{reinterpret_cast<uint16_t*>(&shared),
                            static_cast<uint32_t>(sizeof(shared) / sizeof(uint16_t)),
                            &marked_groups};
  place_part<kNumcodecs>(batch, s, max_output, me, groups);
}

template <bool kNumcodecs>
void launch(const DeviceChunkBatch& batch, uint64_t max_output, const Scratch& s,
            uint64_t marks_bytes, cudaStream_t stream) {
  const auto count = static_cast<unsigned>(batch.count);
  const unsigned plan_blocks = (count + kPlanWarps - 1) / kPlanWarps;
  split_plan_kernel<kNumcodecs><<<plan_blocks + kZeroBlocks, kPlanWarps * kWarpSize, 0, stream>>>(
      batch, s, max_output, plan_blocks, marks_bytes / 16);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  split_part_kernel<kNumcodecs><<<count * s.parts, kPartThreads, 0, stream>>>(batch, s, max_output);
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
