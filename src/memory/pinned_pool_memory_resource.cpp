#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/stage_times.hpp"
#include "cuzarr/memory/cuda_memory_resources.hpp"

#if CUZARR_HAVE_CUDA
#include "memory/cuda_check.hpp"
#endif

namespace cuzarr {

#if CUZARR_HAVE_CUDA

namespace {

constexpr size_t kMaxAlignment = 4096;  // cudaMallocHost returns page-aligned memory
constexpr size_t kMinSizeClass = 256;

// Sizes round up to an eighth of the next power of two (classes 5/8, 6/8, 7/8 and 8/8 of it), so
// that a block wastes at most a quarter of its bytes: a batch of 256 MiB plus its tables takes
// 320 MiB, not 512 MiB.
size_t size_class(size_t bytes) noexcept {
  if (bytes <= kMinSizeClass) return kMinSizeClass;
  const size_t step = std::bit_ceil(bytes) / 8;
  return (bytes + step - 1) / step * step;
}

// The largest class whose blocks serve a request of class `cls` when none of its own is free: a
// quarter more (the next class, or the one after, of these eighths). Chunks of one array fall
// on both sides of a class boundary (a 2 GiB zstd array's 32 MiB chunks store 27 to 31 MiB),
// and without this the blocks of one class stay cached while the other's are pinned anew.
size_t largest_serving_class(size_t cls) noexcept { return cls + cls / 4; }

// Blocks of at least kRegisterFrom bytes are pinned from memory of our own: 2 MiB aligned, advised
// to use transparent huge pages, then registered (cudaHostRegister). Pinning fresh memory is what
// a first read into device memory waits on: on an H200 host, cudaMallocHost pinned the 64 blocks
// of 28 to 32 MiB of a 2 GiB array's read in 7.5 to 9.6 s summed over the fetch threads (a first
// read of 1.23 to 1.63 s), registration in 3.1 to 3.6 s (0.68 to 0.79 s); later reads, which
// reuse the blocks, ran alike (bench/RESULTS.md, "first reads").
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kRegisterFrom = size_t{4} << 20;

// Pins a new block of `cls` bytes: registered memory of our own (`registered` set) or
// cudaMallocHost.
cudaError_t pin_new_block(size_t cls, void*& pointer, bool& registered) {
  registered = false;
  if (cls >= kRegisterFrom) {
    const StageTimer timer("pinned pool: cudaHostRegister");
    const size_t bytes = (cls + kHugePage - 1) / kHugePage * kHugePage;
    if (void* p = std::aligned_alloc(kHugePage, bytes)) {
      madvise(p, bytes, MADV_HUGEPAGE);  // advice: without huge pages the block is pinned anyway
      // Default flags: under unified addressing (every 64-bit host CUDA supports) the runtime
      // makes registered memory both mapped and portable, like cudaMallocHost's, so every
      // device's copies see the block as pinned.
      if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) {
        pointer = p;
        registered = true;
        return cudaSuccess;
      }
      cudaGetLastError();  // clear it: cudaMallocHost below
      std::free(p);
    }
  }
  const StageTimer timer("pinned pool: cudaMallocHost");
  return cudaMallocHost(&pointer, cls);
}

void free_pinned_block(void* pointer, bool registered) noexcept {
  if (registered) {
    cudaHostUnregister(pointer);
    std::free(pointer);
  } else {
    cudaFreeHost(pointer);
  }
}

}  // namespace

struct PinnedPoolMemoryResource::State {
  struct Block {
    void* pointer;
    cudaEvent_t released;  // recorded on the releasing stream
    size_t cls;            // its size class (what it was allocated with)
    bool registered;       // pinned by cudaHostRegister (else cudaMallocHost)
  };
  std::mutex mutex;
  size_t max_cached = 0;
  bool follow_working_set = false;
  size_t working_set_cap = 0;  // with follow_working_set: a quarter of physical memory
  size_t cached = 0;
  size_t in_use = 0;       // bytes of blocks handed out and not yet released
  size_t peak_in_use = 0;  // the most bytes in use at once so far
  std::map<size_t, std::deque<Block>> free_blocks;  // by size class, oldest first
  std::unordered_map<void*, Block> blocks;          // every block allocated and not freed

  // Gives one block back to CUDA once its pending work is done.
  static void free_block(const Block& b) noexcept {
    const StageTimer timer("pinned pool: wait and cudaFreeHost");
    cudaEventSynchronize(b.released);
    cudaEventDestroy(b.released);
    free_pinned_block(b.pointer, b.registered);
  }

  // The cache's bound: max_cached, or with follow_working_set the most bytes the callers have had
  // in use at once and a quarter more, if that is more (up to working_set_cap). The quarter holds
  // what the peak does not count: blocks of a neighbouring class, and blocks released on work
  // still queued. Without it, a cache a few bytes over the peak gave back one of its largest
  // blocks after every read of a 2 GiB zstd array, and the next read pinned it again (19 ms).
  // Called with `mutex` held.
  size_t bound() const noexcept {
    if (!follow_working_set) return max_cached;
    return std::max(max_cached, std::min(peak_in_use + peak_in_use / 4, working_set_cap));
  }

  // Counts a block of class `cls` handed out. Called with `mutex` held.
  void hand_out(size_t cls) noexcept {
    in_use += cls;
    peak_in_use = std::max(peak_in_use, in_use);
  }

  static bool is_done(const Block& b) noexcept {
    const cudaError_t status = cudaEventQuery(b.released);
    if (status == cudaErrorNotReady) {
      cudaGetLastError();  // not an error: clear it
      return false;
    }
    return true;  // done (or failed: waiting would not help either)
  }

  // Takes the oldest block whose released work is done, of class `cls` or else of the smallest
  // larger class that may serve it (largest_serving_class); none when there is no such block.
  // Called with `mutex` held.
  std::optional<Block> take_done(size_t cls) {
    const size_t largest = largest_serving_class(cls);
    for (auto it = free_blocks.lower_bound(cls); it != free_blocks.end() && it->first <= largest;
         ++it) {
      auto& list = it->second;
      for (auto b = list.begin(); b != list.end(); ++b) {
        if (!is_done(*b)) continue;
        const Block block = *b;
        list.erase(b);
        cached -= block.cls;
        return block;
      }
    }
    return std::nullopt;
  }

  // Bytes of the cached blocks whose released work has not run yet. Called with `mutex` held.
  size_t pending_bytes() const {
    size_t bytes = 0;
    for (const auto& [cls, list] : free_blocks)
      for (const auto& b : list)
        if (!is_done(b)) bytes += cls;
    return bytes;
  }

  // Takes the oldest block of class `cls` whatever its pending work; none when the class has no
  // cached block. Called with `mutex` held.
  std::optional<Block> take_oldest(size_t cls) {
    auto it = free_blocks.find(cls);
    if (it == free_blocks.end() || it->second.empty()) return std::nullopt;
    const Block block = it->second.front();
    it->second.pop_front();
    cached -= cls;
    return block;
  }

  // While the cache holds more than bound() bytes, removes blocks whose work is done into
  // `evicted`, for freeing without the mutex: the largest classes first (fewest frees), the
  // oldest first within a class. Blocks still in use stay cached, over the bound, until a later
  // release finds them done: a release never waits for the GPU. Called with `mutex` held.
  void trim(std::vector<Block>& evicted) {
    const size_t limit = bound();
    for (auto it = free_blocks.rbegin(); it != free_blocks.rend() && cached > limit; ++it) {
      auto& list = it->second;
      for (auto b = list.begin(); b != list.end() && cached > limit;) {
        if (!is_done(*b)) {
          ++b;
          continue;
        }
        evicted.push_back(*b);
        blocks.erase(b->pointer);
        cached -= it->first;
        b = list.erase(b);
      }
    }
  }
};

PinnedPoolMemoryResource::PinnedPoolMemoryResource()
    : PinnedPoolMemoryResource(kDefaultMaxCachedBytes, WorkingSet::follow) {}

PinnedPoolMemoryResource::PinnedPoolMemoryResource(size_t max_cached_bytes, WorkingSet working_set)
    : state_(std::make_unique<State>()) {
  state_->max_cached = max_cached_bytes;
  state_->follow_working_set = working_set == WorkingSet::follow;
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  state_->working_set_cap = pages > 0 && page_size > 0
                                ? static_cast<size_t>(pages) * static_cast<size_t>(page_size) / 4
                                : max_cached_bytes;
}

PinnedPoolMemoryResource::~PinnedPoolMemoryResource() { release_cached(); }

void* PinnedPoolMemoryResource::allocate(size_t bytes, size_t alignment) {
  if (alignment > kMaxAlignment) {
    throw InvalidArgumentError(fmt::format("pinned memory alignment {} is over the supported {}",
                                           alignment, kMaxAlignment));
  }
  if (bytes > (size_t{1} << 62)) {
    throw InvalidArgumentError(fmt::format("pinned allocation of {} bytes is too large", bytes));
  }
  const size_t cls = size_class(bytes);
  // A cached block whose released work is done is reused at once. One still in use by queued
  // work (the previous batch of a read, whose kernels run while the next batch is fetched) is
  // not waited for while the cache is within its bound: a new block is allocated, so the cache
  // grows to the blocks the work in flight needs, and fetching overlaps the GPU's work instead
  // of waiting for it. When the blocks still in use alone fill the cache's bound (a caller far
  // ahead of the GPU), the oldest block of the class is waited for, so pinned memory stays
  // bounded.
  std::optional<State::Block> in_use;
  {
    std::lock_guard lock(state_->mutex);
    if (const auto block = state_->take_done(cls)) {
      state_->hand_out(block->cls);
      return block->pointer;
    }
    if (state_->cached >= state_->max_cached && state_->pending_bytes() >= state_->max_cached) {
      in_use = state_->take_oldest(cls);
      if (in_use) state_->hand_out(cls);
    }
  }
  if (in_use) {
    const StageTimer timer("pinned pool: wait for a released block");
    CUZARR_CUDA_CHECK(cudaEventSynchronize(in_use->released));
    return in_use->pointer;
  }
  void* pointer = nullptr;
  bool registered = false;
  cudaError_t status = pin_new_block(cls, pointer, registered);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the error; reuse a cached block of the class, waiting for it
    std::optional<State::Block> block;
    {
      std::lock_guard lock(state_->mutex);
      block = state_->take_oldest(cls);
      if (block) state_->hand_out(cls);
    }
    if (block) {
      // The block may still be read or written by copies queued before it was released.
      const StageTimer timer("pinned pool: wait for a released block");
      CUZARR_CUDA_CHECK(cudaEventSynchronize(block->released));
      return block->pointer;
    }
    release_cached();  // make room and try once more
    status = pin_new_block(cls, pointer, registered);
  }
  detail::check_cuda(status, fmt::format("pinning {} bytes of host memory", cls).c_str());
  cudaEvent_t event = nullptr;
  status = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
  if (status != cudaSuccess) {
    free_pinned_block(pointer, registered);
    detail::check_cuda(status, "cudaEventCreateWithFlags");
  }
  std::lock_guard lock(state_->mutex);
  state_->blocks.emplace(pointer, State::Block{pointer, event, cls, registered});
  state_->hand_out(cls);
  return pointer;
}

void PinnedPoolMemoryResource::deallocate(void* pointer, size_t bytes, size_t alignment) noexcept {
  deallocate_async(pointer, bytes, alignment, Stream::wrap(cudaStreamLegacy));
}

void PinnedPoolMemoryResource::deallocate_async(void* pointer, size_t, size_t,
                                                Stream stream) noexcept {
  if (pointer == nullptr) return;
  std::unique_lock lock(state_->mutex);
  auto it = state_->blocks.find(pointer);
  if (it == state_->blocks.end()) return;  // not ours: nothing sensible to do
  // The block's own class: it may have served a smaller request.
  const State::Block block = it->second;
  state_->in_use -= std::min(state_->in_use, block.cls);
  cudaEventRecord(block.released, stream.native());
  state_->free_blocks[block.cls].push_back(block);
  state_->cached += block.cls;
  std::vector<State::Block> evicted;
  state_->trim(evicted);
  lock.unlock();
  for (const auto& b : evicted) State::free_block(b);
}

size_t PinnedPoolMemoryResource::cached_bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->cached;
}

void PinnedPoolMemoryResource::release_cached() {
  std::map<size_t, std::deque<State::Block>> blocks;
  {
    std::lock_guard lock(state_->mutex);
    blocks.swap(state_->free_blocks);
    for (const auto& [cls, list] : blocks)
      for (const auto& b : list) state_->blocks.erase(b.pointer);
    state_->cached = 0;
  }
  for (const auto& [cls, list] : blocks)
    for (const auto& b : list) State::free_block(b);
}

std::shared_ptr<PinnedPoolMemoryResource> default_pinned_memory_resource() {
  // Never destroyed: Buffers may be released during static destruction.
  static auto* resource =
      new std::shared_ptr<PinnedPoolMemoryResource>(std::make_shared<PinnedPoolMemoryResource>());
  return *resource;
}

#else  // no CUDA

struct PinnedPoolMemoryResource::State {};

PinnedPoolMemoryResource::PinnedPoolMemoryResource() : PinnedPoolMemoryResource(0) {}
PinnedPoolMemoryResource::PinnedPoolMemoryResource(size_t, WorkingSet) {
  throw UnsupportedError("pinned memory needs CUDA support in this build of cuzarr");
}
PinnedPoolMemoryResource::~PinnedPoolMemoryResource() = default;
void* PinnedPoolMemoryResource::allocate(size_t, size_t) {
  throw UnsupportedError("pinned memory needs CUDA support in this build of cuzarr");
}
void PinnedPoolMemoryResource::deallocate(void*, size_t, size_t) noexcept {}
void PinnedPoolMemoryResource::deallocate_async(void*, size_t, size_t, Stream) noexcept {}
size_t PinnedPoolMemoryResource::cached_bytes() const { return 0; }
void PinnedPoolMemoryResource::release_cached() {}
std::shared_ptr<PinnedPoolMemoryResource> default_pinned_memory_resource() {
  throw UnsupportedError("pinned memory needs CUDA support in this build of cuzarr");
}

#endif

}  // namespace cuzarr
