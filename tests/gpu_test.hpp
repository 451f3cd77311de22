// The base of GPU test fixtures: each test skips, with the reason, when the machine has no CUDA
// device (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace cuzarr::test {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      GTEST_SKIP() << "no CUDA device: "
                   << (status != cudaSuccess ? cudaGetErrorString(status)
                                             : "cudaGetDeviceCount() returned 0");
    }
  }
};

}  // namespace cuzarr::test
