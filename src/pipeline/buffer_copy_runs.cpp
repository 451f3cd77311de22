#include "pipeline/buffer_copy_runs.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

namespace cuzarr {

std::vector<BufferCopyRun> plan_buffer_copy_runs(const std::vector<Buffer>& pieces, size_t max_gap,
                                                 size_t alignment, size_t& slot_size,
                                                 std::vector<size_t>& offsets) {
  const auto round_up = [&](size_t v) { return (v + alignment - 1) / alignment * alignment; };
  std::vector<size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::less<const std::byte*>()(pieces[a].data(), pieces[b].data());
  });
  offsets.assign(pieces.size(), 0);
  std::vector<BufferCopyRun> runs;
  const Buffer* run_allocation = nullptr;  // a piece of the current run
  for (size_t i : order) {
    const Buffer& piece = pieces[i];
    const std::byte* at = piece.data();
    // Pieces of one allocation sorted by address: `at` is at or past the run's source.
    const bool joins = run_allocation != nullptr && run_allocation->shares_allocation(piece) &&
                       static_cast<size_t>(at - runs.back().source) <= runs.back().size + max_gap;
    if (!joins) {
      if (!runs.empty()) slot_size = round_up(runs.back().offset + runs.back().size);
      const size_t skew = reinterpret_cast<uintptr_t>(at) % alignment;
      runs.push_back({at, 0, round_up(slot_size) + skew});
      run_allocation = &piece;
    }
    BufferCopyRun& run = runs.back();
    const auto from_start = static_cast<size_t>(at - run.source);
    run.size = std::max(run.size, from_start + piece.size());
    offsets[i] = run.offset + from_start;
  }
  if (!runs.empty()) slot_size = round_up(runs.back().offset + runs.back().size);
  return runs;
}

}  // namespace cuzarr
