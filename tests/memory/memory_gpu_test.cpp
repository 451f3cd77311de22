// GPU tests of the memory layer: device and pinned buffers, copies between every pair of memory
// kinds (checked by content), DLPack for device/pinned arrays, the pools, and stream ordering.
// Every test skips with the reason when the machine has no CUDA device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <stdexcept>
#include <thread>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/allocator_callbacks.hpp"
#include "cuzarr/memory/cuda_array_interface.hpp"
#include "cuzarr/memory/cuda_memory_resources.hpp"
#include "cuzarr/memory/dlpack_interop.hpp"
#include "gpu_test.hpp"
#include "memory_test_arrays.hpp"

namespace cuzarr {
namespace {

using test::int32_elements;
using test::iota_int32;
using test::kInt32;

constexpr MemoryKind kKinds[] = {MemoryKind::host, MemoryKind::pinned, MemoryKind::device};

class Gpu : public ::cuzarr::test::GpuTest {};

// The elements of any view, read back through a host copy.
std::vector<int32_t> elements_anywhere(const NDBuffer& a) {
  return int32_elements(a.kind() == MemoryKind::device ? a.copy_to(MemoryKind::host) : a);
}

// An 8 x 6 int32 array of `kind` holding first, first + 1, ...
NDBuffer iota_of_kind(MemoryKind kind, int32_t first = 0) {
  return iota_int32({8, 6}, first).copy_to(kind);
}

// A strided 4 x 3 view (rows reversed, every other column) of an iota_of_kind array.
NDBuffer strided_of_kind(MemoryKind kind, int32_t first = 0) {
  return iota_of_kind(kind, first).sliced(1, 1, 2, 3).sliced(0, 7, -2, 4);
}

std::string fmt_kinds(MemoryKind from, MemoryKind to) {
  return std::string(memory_kind_name(from)) + " -> " + std::string(memory_kind_name(to));
}

cudaMemoryType pointer_type(const void* p) {
  cudaPointerAttributes attributes{};
  EXPECT_EQ(cudaPointerGetAttributes(&attributes, p), cudaSuccess);
  return attributes.type;
}

TEST_F(Gpu, BuffersOfEachKindAreTheRightMemory) {
  Buffer device = Buffer::allocate(1 << 20, MemoryKind::device);
  Buffer pinned = Buffer::allocate(1 << 20, MemoryKind::pinned);
  EXPECT_EQ(pointer_type(device.data()), cudaMemoryTypeDevice);
  EXPECT_EQ(pointer_type(pinned.data()), cudaMemoryTypeHost);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(device.data()) % 256, 0u);
  EXPECT_THROW(device.bytes(), InvalidArgumentError);
  EXPECT_NO_THROW(pinned.bytes());
}

TEST_F(Gpu, ContiguousCopiesBetweenEveryPairOfKinds) {
  const NDBuffer source = iota_int32({8, 6}, 1000);
  const auto expected = int32_elements(source);
  Stream stream = Stream::create();
  for (MemoryKind from : kKinds) {
    const NDBuffer a = source.copy_to(from);
    ASSERT_EQ(a.kind(), from);
    for (MemoryKind to : kKinds) {
      SCOPED_TRACE(fmt_kinds(from, to));
      NDBuffer synchronous = a.copy_to(to);
      EXPECT_EQ(synchronous.kind(), to);
      EXPECT_EQ(elements_anywhere(synchronous), expected);
      NDBuffer queued = a.copy_to(to, stream);
      stream.synchronize();
      EXPECT_EQ(elements_anywhere(queued), expected);
      // Flat buffers, both overloads.
      Buffer bytes = a.buffer().copy_to(to, stream);
      stream.synchronize();
      EXPECT_EQ(elements_anywhere(NDBuffer(bytes.copy_to(to), kInt32, {8, 6})), expected);
      Buffer target = Buffer::allocate(bytes.size(), to);
      copy_bytes(target.data(), to, a.data(), from, bytes.size());
      EXPECT_EQ(elements_anywhere(NDBuffer(target, kInt32, {8, 6})), expected);
    }
  }
}

TEST_F(Gpu, StridedCopiesBetweenEveryPairOfKinds) {
  const auto expected = int32_elements(strided_of_kind(MemoryKind::host, 7));
  Stream stream = Stream::create();
  for (MemoryKind from : kKinds) {
    const NDBuffer view = strided_of_kind(from, 7);
    ASSERT_FALSE(view.is_c_contiguous());
    for (MemoryKind to : kKinds) {
      SCOPED_TRACE(fmt_kinds(from, to));
      // Into a new contiguous array.
      NDBuffer copy = view.copy_to(to, stream);
      stream.synchronize();
      EXPECT_TRUE(copy.is_c_contiguous());
      EXPECT_EQ(elements_anywhere(copy), expected);
      // Into a strided view of another array: the elements around it are untouched.
      NDBuffer base = iota_of_kind(to, -100);
      NDBuffer target = base.sliced(1, 1, 2, 3).sliced(0, 7, -2, 4);
      target.assign(view, stream);
      stream.synchronize();
      EXPECT_EQ(elements_anywhere(target), expected);
      auto all = elements_anywhere(base);
      int changed = 0;
      for (size_t i = 0; i < all.size(); ++i) changed += all[i] != -100 + static_cast<int>(i);
      EXPECT_EQ(changed, 12);
      // Contiguous source into a strided destination.
      NDBuffer target2 = iota_of_kind(to, 0).sliced(1, 0, 2, 3).sliced(0, 0, 2, 4);
      target2.assign(copy, stream);
      stream.synchronize();
      EXPECT_EQ(elements_anywhere(target2), expected);
    }
  }
}

TEST_F(Gpu, DeviceStridedCopiesOfOddElementSizes) {
  // 3-byte raw elements take the byte-wise kernel, complex128 the 16-byte one.
  for (const char* name : {"r24", "complex128", "uint16"}) {
    SCOPED_TRACE(name);
    const DataType dtype = DataType::from_name(name);
    NDBuffer host = NDBuffer::allocate(dtype, {5, 7});
    for (int64_t i = 0; i < host.nbytes(); ++i) host.data()[i] = static_cast<std::byte>(i * 7 + 1);
    NDBuffer device = host.copy_to(MemoryKind::device);
    NDBuffer view = device.permuted(std::vector<int64_t>{1, 0}).sliced(0, 6, -1, 7);
    NDBuffer back = view.copy_to(MemoryKind::host);
    NDBuffer expected =
        host.permuted(std::vector<int64_t>{1, 0}).sliced(0, 6, -1, 7).copy_to(MemoryKind::host);
    ASSERT_EQ(back.nbytes(), expected.nbytes());
    EXPECT_EQ(std::memcmp(back.data(), expected.data(), static_cast<size_t>(back.nbytes())), 0);
  }
}

TEST_F(Gpu, DLPackRoundTripsForDeviceAndPinnedArrays) {
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  for (MemoryKind kind : {MemoryKind::device, MemoryKind::pinned}) {
    SCOPED_TRACE(std::string(memory_kind_name(kind)));
    NDBuffer view = strided_of_kind(kind, 3);
    DLManagedTensorVersioned* t = to_dlpack_versioned(view);
    EXPECT_EQ(t->dl_tensor.device.device_type, kind == MemoryKind::device ? kDLCUDA : kDLCUDAHost);
    if (kind == MemoryKind::device) {
      EXPECT_EQ(t->dl_tensor.device.device_id, current);
    }
    EXPECT_EQ(t->dl_tensor.data, view.data());
    NDBuffer back = from_dlpack(t);
    EXPECT_EQ(back.kind(), kind);
    EXPECT_EQ(back.data(), view.data());
    EXPECT_EQ(back.byte_strides(), view.byte_strides());
    EXPECT_EQ(elements_anywhere(back), elements_anywhere(view));
    NDBuffer legacy = from_dlpack(to_dlpack(view));
    EXPECT_EQ(elements_anywhere(legacy), elements_anywhere(view));
  }
}

TEST_F(Gpu, CudaArrayInterfaceOfDeviceArrays) {
  NDBuffer a = iota_of_kind(MemoryKind::device);
  auto cai = cuda_array_interface(a);
  EXPECT_EQ(cai.shape, (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(cai.typestr, "<i4");
  EXPECT_EQ(cai.data, reinterpret_cast<uintptr_t>(a.data()));
  EXPECT_FALSE(cai.strides.has_value());
  EXPECT_FALSE(cai.stream.has_value());
  EXPECT_EQ(cai.version, 3);
  EXPECT_EQ(cuda_array_interface(a, Stream()).stream, uintptr_t{1});
  Stream s = Stream::create();
  EXPECT_EQ(cuda_array_interface(a, s).stream, reinterpret_cast<uintptr_t>(s.native()));
  auto strided = cuda_array_interface(a.sliced(1, 0, 2, 3));
  ASSERT_TRUE(strided.strides.has_value());
  EXPECT_EQ(*strided.strides, (std::vector<int64_t>{24, 8}));
}

TEST_F(Gpu, DevicePoolKeepsFreedMemoryForReuse) {
  auto pool = std::make_shared<DevicePoolMemoryResource>();
  const size_t bytes = size_t{64} << 20;
  void* p = pool->allocate(bytes, 256);
  EXPECT_GE(pool->used_bytes(), bytes);
  pool->deallocate(p, bytes, 256);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(pool->used_bytes(), 0u);
  EXPECT_GE(pool->reserved_bytes(), bytes);  // kept, not given back
  void* q = pool->allocate(bytes, 256);
  EXPECT_EQ(q, p);
  pool->deallocate(q, bytes, 256);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  pool->trim(0);
  EXPECT_EQ(pool->reserved_bytes(), 0u);
  EXPECT_THROW(pool->allocate(16, 4096), InvalidArgumentError);
}

TEST_F(Gpu, PinnedPoolReusesBlocksOfTheSameSizeClass) {
  PinnedPoolMemoryResource pool(size_t{1} << 20);
  void* p = pool.allocate(1000, 64);
  EXPECT_EQ(pointer_type(p), cudaMemoryTypeHost);
  pool.deallocate(p, 1000, 64);
  EXPECT_EQ(pool.cached_bytes(), 1024u);
  void* q = pool.allocate(900, 64);  // same 1 KiB class
  EXPECT_EQ(q, p);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  // Classes are eighths of the next power of two: 600 KiB takes 640 KiB.
  void* mid = pool.allocate(600 << 10, 64);
  pool.deallocate(mid, 600 << 10, 64);
  EXPECT_EQ(pool.cached_bytes(), size_t{640} << 10);
  EXPECT_EQ(pool.allocate(520 << 10, 64), mid);  // also the 640 KiB class
  pool.deallocate(mid, 520 << 10, 64);
  pool.release_cached();
  void* big = pool.allocate(size_t{2} << 20, 64);  // over the cache limit: not kept
  pool.deallocate(big, size_t{2} << 20, 64);
  // A block whose released work is done is given back at the next release that finds the cache
  // over its limit (the release itself may come before the GPU has seen its event).
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  pool.deallocate(q, 900, 64);
  EXPECT_EQ(pool.cached_bytes(), 1024u);
  pool.release_cached();
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

// A request whose class has no free block takes one of a class up to a quarter larger, which
// goes back to its own class when released; a block twice the size is left alone.
TEST_F(Gpu, PinnedPoolServesARequestFromTheNextLargerClasses) {
  PinnedPoolMemoryResource pool(size_t{1} << 20);
  void* block = pool.allocate(1000, 64);  // the 1 KiB class
  pool.deallocate(block, 1000, 64);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  void* smaller = pool.allocate(800, 64);  // the 896-byte class
  EXPECT_EQ(smaller, block);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.deallocate(smaller, 800, 64);
  EXPECT_EQ(pool.cached_bytes(), 1024u);  // back in its own class
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  void* half = pool.allocate(500, 64);  // the 512-byte class: too small for it
  EXPECT_NE(half, block);
  EXPECT_EQ(pool.allocate(1024, 64), block);
  pool.deallocate(half, 500, 64);
  pool.deallocate(block, 1024, 64);
  pool.release_cached();
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

// With WorkingSet::follow the cache keeps as much as was in use at once (a read's staging batches
// in flight) and a quarter more, so the same work again pins nothing new; a fixed bound gives the
// rest back.
TEST_F(Gpu, PinnedPoolFollowingItsWorkingSetKeepsWhatWasInUseAtOnce) {
  const size_t bytes = size_t{1} << 20;
  for (const auto mode : {PinnedPoolMemoryResource::WorkingSet::follow,
                          PinnedPoolMemoryResource::WorkingSet::fixed}) {
    const bool follow = mode == PinnedPoolMemoryResource::WorkingSet::follow;
    SCOPED_TRACE(follow ? "follow" : "fixed");
    PinnedPoolMemoryResource pool(bytes, mode);
    std::vector<void*> blocks;
    for (int k = 0; k < 4; ++k) blocks.push_back(pool.allocate(bytes, 64));
    // Released once the stream has seen their events, so that a trim may give them back.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (void* b : blocks) pool.deallocate(b, bytes, 64);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // A release that finds the cache over its bound trims it.
    void* again = pool.allocate(bytes, 64);
    pool.deallocate(again, bytes, 64);
    EXPECT_EQ(pool.cached_bytes(), follow ? 4 * bytes : bytes);
    if (follow) {
      std::vector<void*> reused;
      for (int k = 0; k < 4; ++k) reused.push_back(pool.allocate(bytes, 64));
      std::sort(reused.begin(), reused.end());
      std::sort(blocks.begin(), blocks.end());
      EXPECT_EQ(reused, blocks);  // the same blocks: nothing pinned anew
      for (void* b : reused) pool.deallocate(b, bytes, 64);
      // Up to a quarter over the peak stays cached (here a block of another class); past that
      // the cache is trimmed back under it.
      void* other = pool.allocate(640 << 10, 64);  // no block of its class or the next: new
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      pool.deallocate(other, 640 << 10, 64);
      EXPECT_EQ(pool.cached_bytes(), 4 * bytes + (640 << 10));
      void* large = pool.allocate(2 * bytes, 64);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      pool.deallocate(large, 2 * bytes, 64);  // over 5 MiB: 2 MiB given back (whichever blocks)
      EXPECT_EQ(pool.cached_bytes(), 4 * bytes + (640 << 10));
    }
    pool.release_cached();
    EXPECT_EQ(pool.cached_bytes(), 0u);
  }
}

// Holds back the work queued on a stream after it: a host function that returns once open() is
// called (or the gate is destroyed, so that a failed assertion leaves nothing blocked).
class StreamGate {
 public:
  explicit StreamGate(const Stream& stream)
      : waiter_(new std::shared_future<void>(go_.get_future().share())) {
    const cudaError_t status = cudaLaunchHostFunc(
        stream.native(),
        [](void* f) {
          auto* future = static_cast<std::shared_future<void>*>(f);
          future->wait();
          delete future;
        },
        waiter_);
    if (status != cudaSuccess) {
      delete waiter_;
      throw std::runtime_error("cudaLaunchHostFunc failed");
    }
  }
  ~StreamGate() { open(); }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  void open() {
    if (!opened_) go_.set_value();
    opened_ = true;
  }

 private:
  std::promise<void> go_;
  std::shared_future<void>* waiter_;  // owned by the host function once it is queued
  bool opened_ = false;
};

// A block released on a stream whose queued work has not run yet is not handed out again, and
// the allocation does not wait for that work either: it gets a new block. Once the work has run,
// the released block is reused.
TEST_F(Gpu, PinnedPoolAllocatesAfreshRatherThanWaitForBlocksInUse) {
  PinnedPoolMemoryResource pool(size_t{64} << 20);
  Stream stream = Stream::create();
  StreamGate gate(stream);  // the stream's work runs once the test opens the gate
  const size_t bytes = size_t{4} << 20;
  void* in_use = pool.allocate(bytes, 64);
  pool.deallocate_async(in_use, bytes, 64, stream);  // reusable once the gate has opened
  EXPECT_EQ(pool.cached_bytes(), bytes);

  auto fresh = std::async(std::launch::async, [&] { return pool.allocate(bytes, 64); });
  const bool answered = fresh.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  gate.open();
  ASSERT_TRUE(answered) << "the allocation waited for the stream's work";
  void* other = fresh.get();
  EXPECT_NE(other, in_use);
  EXPECT_EQ(pool.cached_bytes(), bytes);  // the block in use stays cached

  stream.synchronize();
  EXPECT_EQ(pool.allocate(bytes, 64), in_use);  // its work has run: reused
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.deallocate(in_use, bytes, 64);
  pool.deallocate(other, bytes, 64);
  pool.release_cached();
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

// With the cache at its bound (blocks released on work that has not run), an allocation waits
// for the oldest block of its class instead of pinning more memory.
TEST_F(Gpu, PinnedPoolAtItsBoundWaitsForABlockInUse) {
  const size_t bytes = size_t{4} << 20;
  PinnedPoolMemoryResource pool(bytes);
  Stream stream = Stream::create();
  StreamGate gate(stream);
  void* in_use = pool.allocate(bytes, 64);
  pool.deallocate_async(in_use, bytes, 64, stream);
  EXPECT_EQ(pool.cached_bytes(), bytes);  // in use: kept over nothing, at the bound

  auto waiting = std::async(std::launch::async, [&] { return pool.allocate(bytes, 64); });
  const bool answered_early =
      waiting.wait_for(std::chrono::milliseconds(300)) == std::future_status::ready;
  gate.open();
  EXPECT_FALSE(answered_early) << "the allocation pinned more memory past the bound";
  EXPECT_EQ(waiting.get(), in_use);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  stream.synchronize();
  pool.deallocate(in_use, bytes, 64);
  pool.release_cached();
}

// Stream::wait_for: work queued on one stream after the call runs only once the other stream's
// earlier work has run (here a host function held closed until the test opens it).
TEST_F(Gpu, StreamWaitForOrdersWorkAcrossStreams) {
  Stream first = Stream::create(), second = Stream::create();
  StreamGate gate(first);
  second.wait_for(first);
  Buffer source = Buffer::allocate(1 << 20, MemoryKind::pinned);
  std::memset(source.data(), 7, source.size());
  Buffer device = source.copy_to(MemoryKind::device, second);
  // The copy waits behind the closed gate.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const cudaError_t before = cudaStreamQuery(second.native());
  gate.open();
  EXPECT_EQ(before, cudaErrorNotReady);
  cudaGetLastError();
  second.synchronize();
  const Buffer back = device.copy_to(MemoryKind::host);
  EXPECT_EQ(std::count(back.data(), back.data() + back.size(), std::byte{7}),
            static_cast<std::ptrdiff_t>(back.size()));
}

TEST_F(Gpu, CopiesOnOneStreamRunInOrder) {
  // pinned -> device -> device -> pinned, each queued without waiting: only stream order makes
  // the last copy see the first one's data. Large buffers make a race visible.
  const size_t n = size_t{16} << 20;
  Stream stream = Stream::create();
  for (int round = 0; round < 3; ++round) {
    Buffer source = Buffer::allocate(n * 4, MemoryKind::pinned);
    auto* values = reinterpret_cast<int32_t*>(source.data());
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(i * 3 + round);
    Buffer device = source.copy_to(MemoryKind::device, stream);
    Buffer device2 = device.copy_to(MemoryKind::device, stream);
    Buffer back = device2.copy_to(MemoryKind::pinned, stream);
    stream.synchronize();
    const auto* got = reinterpret_cast<const int32_t*>(back.data());
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += got[i] != static_cast<int32_t>(i * 3 + round);
    EXPECT_EQ(wrong, 0u) << "round " << round;
  }
}

TEST_F(Gpu, StreamOrderedBuffersOutliveTheirStreamHandle) {
  Buffer b;
  {
    Stream s = Stream::create();
    b = Buffer::allocate(1 << 20, MemoryKind::device, s);
    EXPECT_EQ(cudaMemsetAsync(b.data(), 0x5A, b.size(), s.native()), cudaSuccess);
  }  // the handle is gone; the Buffer's deleter still holds the stream
  Buffer host = b.copy_to(MemoryKind::host);
  EXPECT_EQ(host.data()[12345], std::byte{0x5A});
  b = Buffer();  // freed on the (still valid) stream
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(Gpu, DeviceAllocatorCallbacksReplaceThePool) {
  int allocations = 0, frees = 0;
  set_device_allocator(
      [&](size_t bytes, size_t) {
        void* p = nullptr;
        if (cudaMalloc(&p, bytes) != cudaSuccess) return static_cast<void*>(nullptr);
        ++allocations;
        return p;
      },
      [&](void* p, size_t) {
        cudaFree(p);
        ++frees;
      });
  {
    NDBuffer a = iota_of_kind(MemoryKind::device, 9);
    EXPECT_EQ(allocations, 1);
    EXPECT_EQ(elements_anywhere(a), int32_elements(iota_int32({8, 6}, 9)));
  }
  EXPECT_EQ(frees, 1);
  set_device_allocator(nullptr, nullptr);
  NDBuffer pooled = iota_of_kind(MemoryKind::device);
  EXPECT_EQ(allocations, 1);
}

}  // namespace
}  // namespace cuzarr
