// GPU tests of the device scatter (decoded chunks into their place in a device array): every
// kernel variant (rows of 16-byte words, element words, bytes; 32- and 64-bit index splits) is
// checked byte for byte against the same copy done on the host. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuzarr/memory/buffer.hpp"
#include "gpu_test.hpp"
#include "pipeline/device_scatter.hpp"

namespace cuzarr {
namespace {

class DeviceScatter : public ::cuzarr::test::GpuTest {};

/// A copy of an item: `shape` elements of `element_size` bytes from source_offset + strides in
/// the source to destination_offset + strides in the destination (byte offsets and strides).
struct Copy {
  std::vector<int64_t> shape, source_strides, destination_strides;
  int64_t source_offset = 0, destination_offset = 0;
};

/// The C-order strides of `shape` (bytes), times `step` on the innermost dimension.
std::vector<int64_t> c_strides(const std::vector<int64_t>& shape, int64_t element_size,
                               int64_t step = 1) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = element_size * step;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/// The host model: the copy's bytes moved element by element, each `unit` reversed.
void copy_on_host(const Copy& c, const std::vector<unsigned char>& source,
                  std::vector<unsigned char>& destination, size_t element_size, size_t unit) {
  int64_t count = 1;
  for (int64_t extent : c.shape) count *= extent;
  for (int64_t e = 0; e < count; ++e) {
    int64_t rest = e, s = c.source_offset, t = c.destination_offset;
    for (size_t d = c.shape.size(); d-- > 0;) {
      const int64_t index = rest % c.shape[d];
      rest /= c.shape[d];
      s += index * c.source_strides[d];
      t += index * c.destination_strides[d];
    }
    for (size_t b = 0; b < element_size; ++b) {
      size_t from = b;
      if (unit > 1) from = b / unit * unit + (unit - 1 - b % unit);
      destination[static_cast<size_t>(t) + b] = source[static_cast<size_t>(s) + from];
    }
  }
}

/// Runs `copies` as one scatter on the GPU and on the host model; compares the whole destination
/// (bytes outside the copies must stay as they were).
void expect_scatter_like_host(const std::vector<Copy>& copies, size_t element_size, size_t unit,
                              size_t source_bytes, size_t destination_bytes,
                              const std::string& what) {
  std::mt19937 rng(static_cast<uint32_t>(source_bytes * 7 + element_size));
  std::vector<unsigned char> source(source_bytes), destination(destination_bytes);
  for (auto& b : source) b = static_cast<unsigned char>(rng());
  for (auto& b : destination) b = static_cast<unsigned char>(rng());
  Stream stream = Stream::create();
  Buffer device_source =
      Buffer::copy_of(std::as_bytes(std::span(source))).copy_to(MemoryKind::device);
  Buffer device_destination =
      Buffer::copy_of(std::as_bytes(std::span(destination))).copy_to(MemoryKind::device);
  std::vector<detail::DeviceScatterItem> items;
  for (const Copy& c : copies) {
    detail::DeviceScatterItem item;
    item.source = device_source.data() + c.source_offset;
    item.destination = device_destination.data() + c.destination_offset;
    item.ndim = static_cast<int32_t>(c.shape.size());
    for (size_t d = 0; d < c.shape.size(); ++d) {
      item.shape[d] = c.shape[d];
      item.source_strides[d] = c.source_strides[d];
      item.destination_strides[d] = c.destination_strides[d];
    }
    items.push_back(item);
    copy_on_host(c, source, destination, element_size, unit);
  }
  detail::scatter_on_device(items, element_size, unit, stream);
  const Buffer back = device_destination.copy_to(MemoryKind::host, stream);
  stream.synchronize();
  ASSERT_EQ(back.size(), destination.size()) << what;
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < destination.size(); ++i) {
    if (static_cast<unsigned char>(back.data()[i]) != destination[i] && mismatches++ == 0)
      first = i;
  }
  EXPECT_EQ(mismatches, 0u) << what << ": first at byte " << first;
}

/// Chunks of `chunk` elements (C order, one after the other in the source) placed at `origins`
/// of an array of `array` elements, the innermost dimension with step `step`.
std::vector<Copy> chunks_into_array(const std::vector<int64_t>& chunk,
                                    const std::vector<int64_t>& array,
                                    const std::vector<std::vector<int64_t>>& origins,
                                    int64_t element_size, int64_t source_skew = 0,
                                    int64_t step = 1) {
  int64_t chunk_bytes = element_size;
  for (int64_t extent : chunk) chunk_bytes *= extent;
  const std::vector<int64_t> array_strides = c_strides(array, element_size);
  std::vector<Copy> copies;
  for (size_t k = 0; k < origins.size(); ++k) {
    Copy c;
    c.shape = chunk;
    c.source_strides = c_strides(chunk, element_size);
    c.destination_strides = array_strides;
    c.destination_strides.back() *= step;
    c.source_offset = static_cast<int64_t>(k) * chunk_bytes + source_skew;
    for (size_t d = 0; d < chunk.size(); ++d)
      c.destination_offset += origins[k][d] * array_strides[d];
    copies.push_back(c);
  }
  return copies;
}

size_t bytes_of(const std::vector<int64_t>& shape, size_t element_size) {
  size_t n = element_size;
  for (int64_t extent : shape) n *= static_cast<size_t>(extent);
  return n;
}

TEST_F(DeviceScatter, WholeChunksMoveLikeTheHostCopyForEveryElementSize) {
  // Rows of 16 bytes or more on 16-byte boundaries: the 16-byte word path, with and without
  // byte swaps (big-endian data), for element sizes 1 to 16.
  const std::vector<int64_t> array = {12, 10, 64}, chunk = {4, 5, 32};
  const std::vector<std::vector<int64_t>> origins = {{0, 0, 0}, {4, 5, 32}, {8, 0, 32}};
  for (size_t size : {1, 2, 4, 8, 16}) {
    for (size_t unit : {size_t{0}, size}) {
      if (unit == 1) continue;
      const auto copies = chunks_into_array(chunk, array, origins, static_cast<int64_t>(size));
      expect_scatter_like_host(
          copies, size, unit, 3 * bytes_of(chunk, size), bytes_of(array, size),
          "element size " + std::to_string(size) + " unit " + std::to_string(unit));
    }
  }
  // Units smaller than the element (complex numbers: two 4-byte halves).
  const auto copies = chunks_into_array(chunk, array, origins, 8);
  expect_scatter_like_host(copies, 8, 4, 3 * bytes_of(chunk, 8), bytes_of(array, 8),
                           "element size 8 unit 4");
}

TEST_F(DeviceScatter, RowsOffWordBoundariesMoveLikeTheHostCopy) {
  // Rows of 7 uint16 (14 bytes); chunks at odd columns (rows start off 16-byte boundaries); a
  // source that starts 2 bytes in; a strided destination; odd element sizes (3 bytes).
  const std::vector<int64_t> array = {9, 8, 40};
  const std::vector<std::vector<int64_t>> at = {{0, 0, 0}, {3, 4, 7}, {6, 0, 21}};
  expect_scatter_like_host(chunks_into_array({3, 4, 7}, array, at, 2), 2, 0,
                           3 * bytes_of({3, 4, 7}, 2), bytes_of(array, 2), "rows of 14 bytes");
  expect_scatter_like_host(chunks_into_array({3, 4, 16}, array, {{0, 0, 1}, {3, 4, 17}}, 2), 2, 2,
                           2 * bytes_of({3, 4, 16}, 2), bytes_of(array, 2), "rows at odd columns");
  expect_scatter_like_host(chunks_into_array({3, 4, 16}, array, {{0, 0, 0}, {3, 4, 16}}, 4, 2), 4,
                           4, 2 * bytes_of({3, 4, 16}, 4) + 2, bytes_of(array, 4),
                           "a source 2 bytes in");
  expect_scatter_like_host(chunks_into_array({3, 4, 8}, array, {{0, 0, 0}, {3, 4, 1}}, 2, 0, 2), 2,
                           0, 2 * bytes_of({3, 4, 8}, 2), bytes_of(array, 2),
                           "a destination with step 2");
  expect_scatter_like_host(chunks_into_array({3, 4, 16}, array, {{0, 0, 0}, {6, 4, 16}}, 3), 3, 3,
                           2 * bytes_of({3, 4, 16}, 3), bytes_of(array, 3), "3-byte elements");
  // One item off the word path sends the whole scatter down the element path.
  auto mixed = chunks_into_array({3, 4, 16}, array, {{0, 0, 0}, {3, 4, 16}}, 2);
  const auto odd = chunks_into_array({3, 4, 7}, array, {{6, 0, 3}}, 2);
  mixed.push_back(odd[0]);
  mixed.back().source_offset = 2 * static_cast<int64_t>(bytes_of({3, 4, 16}, 2));
  expect_scatter_like_host(mixed, 2, 0, 2 * bytes_of({3, 4, 16}, 2) + bytes_of({3, 4, 7}, 2),
                           bytes_of(array, 2), "words and an odd item in one scatter");
}

TEST_F(DeviceScatter, ItemsOfMoreThan2To32ElementsSplitTheirIndexIn64Bits) {
  // 2^32 + 16 one-byte elements in rows of 16 bytes (2^28 + 1 words, under 2^32: the narrow
  // split) and, with rows of 15 bytes, as bytes (the 64-bit split). The source is a broadcast
  // (stride 0 on the outer dimension), so only the destination takes 4 GiB.
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const int64_t rows = (int64_t{1} << 28) + 1;
  if (free_bytes < size_t{6} << 30) GTEST_SKIP() << "needs 6 GiB of free GPU memory";
  for (int64_t row : {16, 15}) {
    const int64_t count = rows * row;
    std::vector<unsigned char> pattern(static_cast<size_t>(row));
    for (int64_t i = 0; i < row; ++i)
      pattern[static_cast<size_t>(i)] = static_cast<unsigned char>(i * 37 + 1);
    Stream stream = Stream::create();
    Buffer source = Buffer::copy_of(std::as_bytes(std::span(pattern))).copy_to(MemoryKind::device);
    Buffer destination = Buffer::allocate(static_cast<size_t>(count), MemoryKind::device, stream);
    detail::DeviceScatterItem item;
    item.source = source.data();
    item.destination = destination.data();
    item.ndim = 2;
    item.shape[0] = rows;
    item.shape[1] = row;
    item.source_strides[0] = 0;
    item.source_strides[1] = 1;
    item.destination_strides[0] = row;
    item.destination_strides[1] = 1;
    const detail::DeviceScatterItem items[] = {item};
    detail::scatter_on_device(items, 1, 0, stream);
    stream.synchronize();
    // The first and last rows and one in the middle.
    for (int64_t r : {int64_t{0}, rows / 2 + 3, rows - 1}) {
      std::vector<unsigned char> got(static_cast<size_t>(row));
      ASSERT_EQ(
          cudaMemcpy(got.data(), destination.data() + r * row, got.size(), cudaMemcpyDeviceToHost),
          cudaSuccess);
      EXPECT_EQ(got, pattern) << "rows of " << row << ", row " << r;
    }
  }
}

}  // namespace
}  // namespace cuzarr
