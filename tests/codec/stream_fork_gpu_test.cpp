// StreamFork: work on the fork starts after the parent's earlier work, and the parent's later work
// starts after the fork's, whether join() is called or the fork is destroyed.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "codec/cuda/stream_fork.hpp"
#include "gpu_batch_support.hpp"

namespace cuzarr {
namespace {

using gpu::detail::StreamFork;

class GpuStreamFork : public test::GpuTest {};

// Large enough that a copy on the fork that did not wait for the parent's memset would read the
// old bytes.
constexpr size_t kBytes = size_t{256} << 20;

/// Parent: fill `a` with `value`; fork: copy a to b; parent: copy b to the host. With `join` the
/// fork is joined explicitly, else by its destructor. Returns how many bytes differ from value.
size_t bytes_not_seen(cudaStream_t parent, bool join, unsigned char value) {
  test::DeviceMemory a(kBytes), b(kBytes);
  test::cuda_ok(cudaMemset(b.get(), 0, kBytes));
  test::cuda_ok(cudaDeviceSynchronize());
  test::cuda_ok(cudaMemsetAsync(a.get(), value, kBytes, parent));
  {
    StreamFork fork(parent, true);
    test::cuda_ok(cudaMemcpyAsync(b.get(), a.get(), kBytes, cudaMemcpyDeviceToDevice, fork.get()));
    if (join) fork.join();
  }
  std::vector<unsigned char> host(kBytes, 0);
  test::cuda_ok(cudaMemcpyAsync(host.data(), b.get(), kBytes, cudaMemcpyDeviceToHost, parent));
  test::cuda_ok(cudaStreamSynchronize(parent));
  return static_cast<size_t>(
      std::count_if(host.begin(), host.end(), [&](unsigned char c) { return c != value; }));
}

TEST_F(GpuStreamFork, OrdersAgainstANonBlockingParentBothWays) {
  cudaStream_t parent = nullptr;
  test::cuda_ok(cudaStreamCreateWithFlags(&parent, cudaStreamNonBlocking));
  EXPECT_EQ(bytes_not_seen(parent, true, 0x5a), 0u);
  EXPECT_EQ(bytes_not_seen(parent, false, 0xa5), 0u) << "joined by the destructor";
  test::cuda_ok(cudaStreamDestroy(parent));
}

TEST_F(GpuStreamFork, OrdersAgainstTheDefaultStream) {
  EXPECT_EQ(bytes_not_seen(nullptr, true, 0x3c), 0u);
  EXPECT_EQ(bytes_not_seen(nullptr, false, 0xc3), 0u) << "joined by the destructor";
}

}  // namespace
}  // namespace cuzarr
