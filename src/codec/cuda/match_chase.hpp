// Resolving a match byte of a block-parallel decode whose source lies in an earlier part of the
// output that may not be written yet. The block-parallel zstd decoder executes many parts (its
// blocks) at once: it first copies every literal, then the matches; a match byte whose source is a
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

/// Follows the bytes from output position q on back to where their values are final, as a run:
/// after at most `steps` steps, q is at or past `own_start` (the reader's own part) or
/// `find_match(q, step, m, end)` returns false (q is a literal, or a byte the caller does not
/// chase further; it sets `end` to the end of q's final region, past q): returns true. Returns
/// false when q is still a match byte of an earlier part after `steps` steps (the caller then
/// waits for that part instead). `find_match` fills m with the match that writes q and returns
/// true otherwise. `run` (in: at most this many, at least 1) becomes the number of bytes from q
/// on whose values lie at consecutive positions from the returned q: the run stays within q's
/// final region, within the match of every step (and one period of it when the match overlaps
/// its own output), and before `own_start`.
template <class FindMatch>
CUZARR_HOST_DEVICE inline bool chase_match_run(uint64_t& q, uint64_t own_start, uint32_t steps,
                                               uint64_t& run, FindMatch&& find_match) {
  for (uint32_t step = 0;; ++step) {
    if (q >= own_start) return true;
    if (own_start - q < run) run = own_start - q;
    ChaseMatch m;
    uint64_t end = q + 1;
    if (!find_match(q, step, m, end)) {
      if (end - q < run) run = end - q;
      return true;
    }
    const uint64_t t = q - m.at;
    if (m.length - t < run) run = m.length - t;
    if (m.distance < m.length && m.distance - t % m.distance < run) {
      run = m.distance - t % m.distance;
    }
    if (step == steps) return false;
    q = match_source(m.at, m.distance, t);
  }
}

}  // namespace cuzarr::gpu
