// Copies of many buffers into one slot, merged into runs: views of one allocation that lie close
// together (the inner chunks of a shard, fetched in one request) take one copy that spans them,
// and keep their distances in the slot. A host-to-device copy costs microseconds whatever its
// size, and a batch of a sharded array holds a thousand inner chunks.
#pragma once

#include <cstddef>
#include <vector>

#include "cuzarr/memory/buffer.hpp"

namespace cuzarr {

/// One copy: `size` bytes from `source` to the slot's `offset`.
struct BufferCopyRun {
  const std::byte* source = nullptr;
  size_t size = 0;
  size_t offset = 0;
};

/// The runs that place `pieces` in a slot from `slot_size` on: pieces that share an allocation
/// (Buffer::shares_allocation) and lie at most `max_gap` bytes after the run so far (in address
/// order) join it, gap included; overlapping pieces share their bytes. `offsets[i]` gets piece
/// i's place in the slot. Each run starts at the next multiple of `alignment` plus its source
/// address modulo `alignment` (so every piece keeps its alignment), and `slot_size` ends past the
/// last run, rounded up to `alignment`.
std::vector<BufferCopyRun> plan_buffer_copy_runs(const std::vector<Buffer>& pieces, size_t max_gap,
                                                 size_t alignment, size_t& slot_size,
                                                 std::vector<size_t>& offsets);

}  // namespace cuzarr
