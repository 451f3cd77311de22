// A team of warps per LZ4 block (.cu files only): one parses (spans of its lanes,
// lz4_span_parse.cuh, and lz4_warp_decode.cuh's window parser where spans pay less) into a ring
// of steps in shared memory while kExecutors others execute them, 32 at a time: group g (steps
// 32g .. 32g + 31) belongs to executor g % kExecutors. For batches of few blocks (1 MiB chunks and
// up), where one warp per block leaves the GPU waiting on each warp's latencies (bench/RESULTS.md,
// "a team of warps per LZ4 block").
//
// The parser stores each step's output position, so an executor places its group without the
// groups before it. A group's literals never wait. Its matches run in waves (warp_copy_steps.cuh)
// whose sources must also be final outside the group. Each executor publishes its progress: its
// next group, and the position in that group before which every byte is final (the start of its
// lowest pending match, at each wave). Every byte before the lowest such position of the other
// executors whose next group comes before this one is final; a match that reads past it, before
// its own group, waits until it moves on (the lowest unfinished group never waits, so the team
// always progresses). The warps meet only through published words in shared memory (the ring's
// tail, the executors' progress), each published after a block fence, so that a warp that sees a
// word also sees the steps or output bytes it announces. The parser frees a group's steps once
// the group is finished, and runs at most kLz4TeamAhead steps past the first unfinished group.
//
// A team may also have a stager (Lz4TeamShared<kExecutors, true>): a warp that runs phases 1 to 3
// of the parser's next span (lz4_span_prepare) into a second span buffer while the parser
// finishes and queues the current one. The parser asks for the span that starts where the current
// one's path ends, and uses the stager's work only if its next span starts there. On an H200 the
// team of three executors and a stager was 1.22x faster than without at 4 MiB with a ring of 256
// steps, 1.09x with 512; at 1 MiB its teams do not all fit at once and smaller teams without one
// stay ahead (bench/RESULTS.md, "the launcher's stager", "a ring of 512 steps"), so the launcher
// gives teams a stager only when they all fit.
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_span_parse.cuh"
#include "codec/cuda/lz4_warp_decode.cuh"
#include "codec/cuda/warp_copy_steps.cuh"

namespace cuzarr::gpu::detail {

/// Executors a team may have.
inline constexpr unsigned kLz4TeamMaxExecutors = 3;
/// Steps the parser may hold past the first unfinished group, and the ring's size (room for one
/// more window). Every executor's group fits at once. 512 rather than 256: a parser that runs
/// further ahead waits less for its executors (on an H200 1.08x to 1.18x for teams of three at
/// 1 MiB and of four at 1 and 4 MiB; bench/RESULTS.md, "a ring of 512 steps").
inline constexpr unsigned kLz4TeamAhead = 480;
inline constexpr unsigned kLz4TeamSlots = 512;
static_assert(kLz4TeamAhead + 11 <= kLz4TeamSlots);
static_assert(kLz4TeamAhead >= kLz4TeamMaxExecutors * kWarpSize);
/// The largest output a team decodes: positions are 32-bit (larger capacities take one warp).
inline constexpr uint64_t kLz4TeamMaxOutput = 0xFFFFFFFFu;

/// A span whose true chain holds fewer tokens than this goes faster by windows (long sequences:
/// the uint16 field of 1.03, about 18 tokens a span, decoded 0.85x as fast with spans at 1 MiB;
/// bench/RESULTS.md): the parser then takes windows for the next kLz4TeamWindowStretch bytes, twice
/// as many after each such span in a row (up to kLz4TeamWindowStretchMax), since a span costs more
/// than windows over data of few tokens.
inline constexpr uint32_t kLz4TeamSpanMinTokens = 64;
inline constexpr uint32_t kLz4TeamWindowStretch = 16384;
inline constexpr uint32_t kLz4TeamWindowStretchMax = 1u << 20;

/// What the warps of a team share (10 KiB of steps; the parser's 1 KiB of staged input for its
/// windows and 9 KiB for each of its spans). kStaged: the team has a stager (below).
template <unsigned kExecutors, bool kStaged = false>
struct Lz4TeamShared {
  static_assert(kExecutors >= 1 && kExecutors <= kLz4TeamMaxExecutors);
  Lz4StepRing<kLz4TeamSlots> ring;
  /// The parser's staged input (Lz4StagedInput) for its windows, and its spans: the one it
  /// finishes and queues, and with a stager the one the stager prepares meanwhile.
  alignas(8) unsigned char input[Lz4StagedInput::kRingBytes];
  Lz4SpanShared span[kStaged ? 2 : 1];
  unsigned requests;        // spans the parser has asked the stager to prepare (published)
  unsigned prepared;        // requests the stager has done (published)
  uint32_t request_at;      // the latest request's span start
  unsigned request_buffer;  // and its buffer in `span`
  /// Executor e's progress (published): its groups before `next` (high word) are finished, and
  /// so is every byte of group `next` before `final_end` (low word; at most the group's end).
  unsigned long long progress[kExecutors];
  unsigned tail;             // steps the parser has queued (published)
  int done;                  // the parser has finished: the rest below are final
  DeviceChunkStatus status;  // the status of the step that failed, or ok
  uint64_t parsed;           // bytes the queued steps produce
};

__device__ inline unsigned load_shared_volatile(const unsigned& word) {
  return *static_cast<const volatile unsigned*>(&word);
}

__device__ inline void store_shared_volatile(unsigned& word, unsigned value) {
  *static_cast<volatile unsigned*>(&word) = value;
}

__device__ inline unsigned long long lz4_team_progress(unsigned next, uint32_t final_end) {
  return (static_cast<unsigned long long>(next) << 32) | final_end;
}

/// Empties `shared` for a new block (lane 0 of one warp); the caller then synchronises the team.
template <unsigned kExecutors, bool kStaged>
__device__ inline void lz4_team_reset(Lz4TeamShared<kExecutors, kStaged>& shared, unsigned lane) {
  if (lane == 0) {
    shared.tail = 0;
    for (unsigned e = 0; e < kExecutors; ++e) shared.progress[e] = lz4_team_progress(e, 0);
    shared.done = 0;
    shared.status = DeviceChunkStatus::ok;
    shared.parsed = 0;
    shared.requests = 0;
    shared.prepared = 0;
  }
}

/// Waits until the stager has done `requests` requests (every lane).
template <unsigned kExecutors>
__device__ inline void lz4_team_wait_prepared(const Lz4TeamShared<kExecutors, true>& shared,
                                              unsigned requests) {
  while (__shfl_sync(kFullMask, load_shared_volatile(shared.prepared), 0) < requests) {
    __nanosleep(32);
  }
  __threadfence_block();  // the count before the span it announces
}

/// Every lane reads the published progress of executor e; lane 0's copy is handed to every lane,
/// so that all see the same value.
template <unsigned kExecutors, bool kStaged>
__device__ inline unsigned long long lz4_team_read_progress(
    const Lz4TeamShared<kExecutors, kStaged>& shared, unsigned e) {
  const unsigned long long v =
      *static_cast<const volatile unsigned long long*>(&shared.progress[e]);
  return static_cast<unsigned long long>(__shfl_sync(kFullMask, v, 0));
}

inline constexpr uint32_t kLz4TeamNoRequest = 0xFFFFFFFFu;

/// The plan of the span at ip in a team with a stager (every lane of the parser calls it). Phases
/// 1 to 3 were done by the stager when the parser asked for this span (`request_at`), else they
/// are done here; then, once the path (phase 4) says where the span ends, the parser asks the
/// stager for the span after it, in the buffer it does not use, and finishes this one (phase 5).
/// A span that fails a check or holds few tokens ends elsewhere: the stager's work is then unused.
template <unsigned kExecutors>
__device__ inline Lz4SpanPlan lz4_team_staged_plan(const unsigned char* in, uint32_t in_size,
                                                   uint32_t ip, uint64_t parsed, uint64_t capacity,
                                                   unsigned lane,
                                                   Lz4TeamShared<kExecutors, true>& shared,
                                                   unsigned& working, unsigned& requests,
                                                   uint32_t& request_at) {
  const bool prepared = requests != 0 && request_at == ip;
  if (prepared) {
    lz4_team_wait_prepared(shared, requests);
    working ^= 1u;
  } else {
    lz4_span_prepare(in, in_size, ip, lane, shared.span[working]);
  }
  const uint32_t path_end = lz4_span_path(shared.span[working], lane);
  const uint32_t next_at = ip + path_end;
  request_at = kLz4TeamNoRequest;
  if (next_at < in_size) {
    request_at = next_at;
    // An unused request still writes the other buffer: it must be done before the next.
    if (!prepared && requests != 0) lz4_team_wait_prepared(shared, requests);
    ++requests;
    if (lane == 0) {
      shared.request_at = request_at;
      shared.request_buffer = working ^ 1u;
      __threadfence_block();  // the request's span before its count
      store_shared_volatile(shared.requests, requests);
    }
  }
  return lz4_span_finish(shared.span[working], path_end, parsed, capacity, lane);
}

/// The parsing warp: spans of the block parsed by its lanes at once (lz4_span_parse.cuh), queued in
/// as many portions as the ring has room for; the window parser (warp_lz4_parse_steps, on its input
/// staged in shared memory: Lz4StagedInput) for the token a span ends before and for stretches of
/// few tokens. Every check of warp_lz4_parse_steps either way. Ends with the status and the bytes
/// parsed published. It frees a group's steps once the group is finished.
///
/// A part of a block (lz4_split_decode.cu) starts at the token at `start` with `start_parsed`
/// bytes before it (every match distance is checked against that count) and ends, ok, at the first
/// token at or past `stop_at` it comes to (after queuing the steps before it).
template <unsigned kExecutors, bool kStaged>
__device__ inline void warp_lz4_team_parse(const unsigned char* in, uint32_t in_size,
                                           uint64_t capacity, unsigned lane,
                                           Lz4TeamShared<kExecutors, kStaged>& shared,
                                           uint32_t start = 0, uint64_t start_parsed = 0,
                                           uint32_t stop_at = 0xFFFFFFFFu) {
  Lz4StagedInput input(in, in_size, shared.input);
  uint32_t ip = start;
  uint64_t parsed = start_parsed;
  unsigned tail = 0;
  bool last = false;
  Lz4SpanPlan plan{};
  bool planned = false;  // the plan's tokens from `plan_queued` on wait to be queued
  unsigned plan_queued = 0;
  uint32_t windows_until = 0;  // the window parser takes the input before it
  uint32_t stretch = kLz4TeamWindowStretch;
  unsigned working = 0;                     // the span buffer the parser works in
  unsigned requests = 0;                    // made to the stager
  uint32_t request_at = kLz4TeamNoRequest;  // the latest request's span, if the parser may use it
  for (;;) {
    if (!planned && ip >= stop_at) {  // every step before the token at ip is queued and published
      if (lane == 0) {
        shared.parsed = parsed;
        __threadfence_block();  // the size before `done`
        *static_cast<volatile int*>(&shared.done) = 1;
      }
      return;
    }
    unsigned lowest = 0xFFFFFFFFu;  // every group below it is finished
    CUZARR_UNROLL
    for (unsigned e = 0; e < kExecutors; ++e) {
      const auto next = static_cast<unsigned>(lz4_team_read_progress(shared, e) >> 32);
      lowest = next < lowest ? next : lowest;
    }
    unsigned queued = tail - kWarpSize * lowest;
    if (queued >= kLz4TeamAhead) {
      __nanosleep(100);
      continue;
    }
    __threadfence_block();  // the executors' reads of the freed slots before they are reused
    if (!planned && ip >= windows_until) {
      if constexpr (kStaged) {
        plan = lz4_team_staged_plan(in, in_size, ip, parsed, capacity, lane, shared, working,
                                    requests, request_at);
      } else {
        plan = lz4_span_plan(in, in_size, ip, parsed, capacity, lane, shared.span[0]);
      }
      plan_queued = 0;
      planned = plan.taken > 0;
      if (planned && plan.taken < kLz4TeamSpanMinTokens) {
        windows_until = ip + stretch;
        stretch = stretch < kLz4TeamWindowStretchMax ? 2 * stretch : stretch;
      } else if (planned) {
        stretch = kLz4TeamWindowStretch;
      }
    }
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    if (planned) {
      const auto to =
          static_cast<unsigned>(umin(plan.taken, plan_queued + (kLz4TeamAhead - queued)));
      lz4_span_queue(plan, shared.span[working], parsed, plan_queued, to, shared.ring, tail, lane);
      tail += to - plan_queued;
      plan_queued = to;
      if (plan_queued == plan.taken) {
        ip = plan.start + plan.next;
        parsed += plan.taken_bytes;
        planned = false;
      }
    } else {
      // A stretch of windows, or one window for the token at ip that the span ended before.
      status = warp_lz4_parse_steps(input, capacity, ip, parsed, lane, shared.ring, tail, queued,
                                    last, ip < windows_until ? kLz4TeamAhead : queued + 1);
    }
    __syncwarp();
    if (lane == 0) {
      __threadfence_block();  // the steps before the tail that announces them
      store_shared_volatile(shared.tail, tail);
      if (status != DeviceChunkStatus::ok || last) {
        shared.status = status;
        shared.parsed = parsed;
        __threadfence_block();  // the final tail, status and size before `done`
        *static_cast<volatile int*>(&shared.done) = 1;
      }
    }
    if (status != DeviceChunkStatus::ok || last) return;
  }
}

/// The stager: phases 1 to 3 of the spans the parser asks for (lz4_span_prepare), each into the
/// span buffer the parser does not use, until the parser has finished (lz4_team_staged_plan). The
/// parser's phases 4 and 5 and its queueing of one span then run beside the stager's work on the
/// next.
template <unsigned kExecutors>
__device__ inline void warp_lz4_team_stage(const unsigned char* in, uint32_t in_size, unsigned lane,
                                           Lz4TeamShared<kExecutors, true>& shared) {
  unsigned done = 0;  // requests done
  for (;;) {
    const unsigned requests = __shfl_sync(kFullMask, load_shared_volatile(shared.requests), 0);
    if (requests == done) {
      if (__shfl_sync(kFullMask, *static_cast<const volatile int*>(&shared.done), 0)) return;
      __nanosleep(64);
      continue;
    }
    __threadfence_block();  // the count before the request it announces
    const uint32_t at = __shfl_sync(kFullMask, shared.request_at, 0);
    const unsigned buffer = __shfl_sync(kFullMask, shared.request_buffer, 0);
    lz4_span_prepare(in, in_size, at, lane, shared.span[buffer]);  // ends with __syncwarp
    if (lane == 0) {
      __threadfence_block();  // the span before the count that announces it
      store_shared_volatile(shared.prepared, requests);
    }
    done = requests;
  }
}

/// What an executor's match waves wait for: bytes before its group that other executors still
/// write. Every byte before `final_end` is final: the lowest of the other executors' published
/// final ends, over those whose next group comes before this one (read again in wait()). At the
/// start of each wave (advance()), the executor publishes its own: every byte of its group before
/// the lowest pending match is final.
template <unsigned kExecutors, bool kStaged>
struct Lz4TeamHold {
  static constexpr bool kNever = false;
  Lz4TeamShared<kExecutors, kStaged>& shared;
  unsigned executor, group, lane;
  uint32_t group_at, final_end;

  __device__ uint32_t read_final_end() const {
    if constexpr (kExecutors == 1) return group_at;  // no other executor: no fence either
    uint32_t end = group_at;
    CUZARR_UNROLL
    for (unsigned e = 0; e < kExecutors; ++e) {
      const unsigned long long p = lz4_team_read_progress(shared, e);
      const auto next = static_cast<unsigned>(p >> 32);
      const auto at = static_cast<uint32_t>(p);
      if (e != executor && next < group && at < end) end = at;
    }
    __threadfence_block();  // the published progress before the bytes it makes final
    return end;
  }

  /// The source overlaps [final_end, group_at): bytes before the group not final yet.
  __device__ bool holds(uint32_t source, uint32_t source_end) const {
    return final_end < group_at && source < group_at && source_end > final_end;
  }
  __device__ void wait() {
    __nanosleep(32);
    final_end = read_final_end();
  }
  /// Publishes that every byte of the group before `lowest_pending_at` is final.
  __device__ void advance(uint32_t lowest_pending_at) {
    if constexpr (kExecutors == 1) return;  // nobody reads it
    __syncwarp();                           // every lane's bytes before lane 0's fence
    if (lane == 0) {
      __threadfence_block();
      *static_cast<volatile unsigned long long*>(&shared.progress[executor]) =
          lz4_team_progress(group, lowest_pending_at);
    }
  }
};

/// The bytes of an executor's copy round (warp_copy_items): 4 in teams of two or three executors
/// without a stager (the launcher's teams for batches of 529 to 1056 chunks on an H200), else 8.
/// On an H200 (bench/RESULTS.md, "4-byte copy rounds in the LZ4 teams"), 1 GiB batches of 1 MiB
/// chunks: 4 bytes 1.06x to 1.07x with two executors (the launcher's choice), 1.03x to 1.07x with
/// three; a lone executor lost 6 %, teams with a stager up to 6 % at 1 to 4 MiB (up to 7 % with
/// 4 bytes for the matches alone, 3 % for the literals alone), and two executors lost 5 % to 6 %
/// with 512 or 256 teams in flight, a batch the launcher gives to teams with a stager.
template <unsigned kExecutors, bool kStaged>
inline constexpr int kLz4TeamRoundBytes = kStaged || kExecutors == 1 ? kLaneRoundBytes : 4;

/// What an executor does besides executing (every lane calls each hook): step(s, has) for each
/// step it loads (a step where `has`), and after each wave of match copies, match(ready, at,
/// distance, length) (a match copied where `ready`). Whole blocks: nothing (the split decoder's
/// parts record where a token starts and which bytes depend on earlier parts,
/// lz4_split_decode.cu).
struct Lz4TeamNoExtra {
  __device__ void step(const Lz4QueuedStep&, bool) {}
  __device__ void match(bool, uint32_t, uint32_t, uint32_t) {}
};

/// Executor `executor` (0 .. kExecutors - 1) of a team: executes its groups until the parser has
/// finished and no group of its own is left. The team's result is the parser's (status, parsed).
/// kLongItemsOutOfLine: as warp_copy_items'.
template <unsigned kExecutors, bool kStaged, class Extra = Lz4TeamNoExtra,
          bool kLongItemsOutOfLine = false>
__device__ inline void warp_lz4_team_execute(const unsigned char* in, unsigned char* out,
                                             unsigned executor, unsigned lane,
                                             Lz4TeamShared<kExecutors, kStaged>& shared,
                                             Extra extra = {}) {
  for (unsigned group = executor;; group += kExecutors) {
    const unsigned first = group * kWarpSize;
    // The group's steps: a full group, or what is left once the parser has finished.
    unsigned tail = 0;
    for (;;) {
      const int done = __shfl_sync(kFullMask, *static_cast<const volatile int*>(&shared.done), 0);
      __threadfence_block();  // `done` before the tail it makes final
      tail = __shfl_sync(kFullMask, load_shared_volatile(shared.tail), 0);
      __threadfence_block();  // the tail before the steps it announces
      if (tail >= first + kWarpSize || (done && tail > first)) break;
      if (done) return;  // no group left
      __nanosleep(100);
    }
    const unsigned count = tail - first < kWarpSize ? tail - first : kWarpSize;
    const bool has = lane < count;
    Lz4QueuedStep s{0, 0, 0, 0, 0};
    if (has) s = shared.ring.slots[(first + lane) % kLz4TeamSlots];
    extra.step(s, has);
    const uint32_t group_at = __shfl_sync(kFullMask, s.output_at, 0);
    const uint32_t group_end =
        __shfl_sync(kFullMask, s.output_at + s.literal_length + s.match_length, count - 1);
    constexpr int kRound = kLz4TeamRoundBytes<kExecutors, kStaged>;
    constexpr LaneRounds kRounds = LaneRounds::predicated;
    // Literals, all at once: they read only the input.
    warp_copy_items<kRound, kLongItemsOutOfLine, kRounds>(has && s.literal_length > 0,
                                                          out + s.output_at, in + s.literal_at,
                                                          s.literal_length, UINT64_MAX, lane);
    __syncwarp();
    // Matches, in waves. Lanes without a step sit past every match.
    Lz4TeamHold<kExecutors, kStaged> hold{shared, executor, group, lane, group_at, group_at};
    hold.final_end = hold.read_final_end();
    const bool pending = has && s.match_length > 0;
    const uint32_t match_at = has ? s.output_at + s.literal_length : 0xFFFFFFFFu;
    warp_match_waves_held(pending, match_at, pending ? s.match_length : 0u, s.match_distance, lane,
                          hold, [&](bool ready) {
                            warp_copy_items<kRound, kLongItemsOutOfLine, kRounds>(
                                ready, out + match_at,
                                out + (ready ? match_at - s.match_distance : 0), s.match_length,
                                s.match_distance, lane);
                            extra.match(ready, match_at, s.match_distance, s.match_length);
                          });
    // Finished: the next group's bytes are final up to this group's end (at most its start).
    hold.advance(group_end);  // ends the group's writes before the word below
    if (lane == 0) {
      if constexpr (kExecutors == 1) __threadfence_block();  // advance() fenced for more
      *static_cast<volatile unsigned long long*>(&shared.progress[executor]) =
          lz4_team_progress(group + kExecutors, group_end);
    }
  }
}

}  // namespace cuzarr::gpu::detail
