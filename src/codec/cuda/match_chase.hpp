// Resolving a match byte of a block-parallel decode whose source lies in an earlier part of the
// output that may not be written yet. The decoders that execute many parts (zstd blocks, LZ4
// segments) at once first copy every literal, then the matches; a match byte whose source is a
// literal of an earlier part can read it at once, while a source that is itself a match byte of
// an earlier part is followed through that match to the match's own source, and so on, until a
// literal (final) or the reader's own part (written in order by the reader) is reached. Each step
// moves strictly backwards (a match reads only bytes before its own), so the chase ends.
#pragma once

#include <cstdint>

#include "codec/cuda/lz4_block_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// A match of an earlier part, as the chase sees it: it writes [at, at + length) from `distance`
/// bytes back (overlapping when distance < length: the bytes repeat with that period).
struct ChaseMatch {
  uint64_t at = 0;
  uint64_t distance = 0;
  uint64_t length = 0;
};

/// Follows the byte at output position q back to where its value is final: after at most `steps`
/// steps, q is at or past `own_start` (the reader's own part) or `find_match(q, step, m)` returns
/// false (q is a literal, or a byte the caller does not chase further): returns true. Returns
/// false when q is still a match byte of an earlier part after `steps` steps (the caller then
/// waits for that part instead). `find_match` fills m with the match that writes q and returns
/// true, else returns false.
template <class FindMatch>
CUZARR_HOST_DEVICE inline bool chase_match_source(uint64_t& q, uint64_t own_start, uint32_t steps,
                                                  FindMatch&& find_match) {
  for (uint32_t step = 0;; ++step) {
    if (q >= own_start) return true;
    ChaseMatch m;
    if (!find_match(q, step, m)) return true;
    if (step == steps) return false;
    q = match_source(m.at, m.distance, q - m.at);
  }
}

/// What a span chase finds at a position q of an earlier part: the match that writes q, or (when
/// `is_match` is false) a run of final bytes (literals) that ends at `final_end`.
struct ChaseSpanStep {
  bool is_match = false;
  uint64_t final_end = 0;
  ChaseMatch match;
};

/// The span form of chase_match_source: follows the source span [q, q + len) (q < own_start)
/// back through earlier matches as a whole, splitting it where a step's match or literal run
/// ends (or, for an overlapping match, where its period wraps), so that a long match costs one
/// walk per piece instead of one per byte. Sets q to the final position of the first piece and
/// returns that piece's length (>= 1): bytes [q, q + piece) are final (literals) and hold the
/// first `piece` bytes of the span. `find_span(q, step, s)` fills s for position q. Every step
/// moves strictly backwards, so the walk ends.
template <class FindSpan>
CUZARR_HOST_DEVICE inline uint64_t chase_span_source(uint64_t& q, uint64_t len, uint64_t own_start,
                                                     FindSpan&& find_span) {
  uint64_t piece = own_start - q < len ? own_start - q : len;
  for (uint32_t step = 0;; ++step) {
    ChaseSpanStep s;
    find_span(q, step, s);
    if (!s.is_match) {
      const uint64_t run = s.final_end - q;
      return run < piece ? run : piece;
    }
    const ChaseMatch& m = s.match;
    const uint64_t t = q - m.at;
    const uint64_t in_match = m.length - t;
    const uint64_t in_period = m.distance - t % m.distance;  // where match_source wraps
    if (in_match < piece) piece = in_match;
    if (in_period < piece) piece = in_period;
    q = match_source(m.at, m.distance, t);
  }
}

}  // namespace cuzarr::gpu
