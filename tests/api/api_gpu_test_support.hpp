// Shared by the api layer's GPU tests: a fixture that skips without a CUDA device, and helpers.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "cuzarr/api/array.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "gpu_test.hpp"

namespace cuzarr::test {

inline const DataType kInt32(DataTypeKind::int32);

class ApiGpu : public ::cuzarr::test::GpuTest {};

inline NDBuffer iota_int32(Shape shape, int32_t first = 0) {
  NDBuffer b = NDBuffer::allocate(kInt32, std::move(shape));
  std::iota(b.data_as<int32_t>(), b.data_as<int32_t>() + b.size(), first);
  return b;
}

// The elements of any view, read back through a host copy.
inline std::vector<int32_t> values(const NDBuffer& b) {
  NDBuffer dense = b.copy_to(MemoryKind::host);
  return {dense.data_as<int32_t>(), dense.data_as<int32_t>() + dense.size()};
}

// The message of the CorruptDataError a device read of `array` throws ("" when none).
inline std::string device_read_error(const Array& array) {
  try {
    array.read({}, MemoryKind::device);
  } catch (const CorruptDataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace cuzarr::test
