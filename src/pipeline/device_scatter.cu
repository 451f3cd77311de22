#include <algorithm>
#include <cstring>
#include <string>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "memory/cuda_check.hpp"
#include "pipeline/device_scatter.hpp"

namespace cuzarr::detail {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kElementsPerBlock = kThreads * 16;

struct alignas(16) Word16 {
  uint64_t lo, hi;
};

// Reverses the bytes of every `unit`-byte unit of `word` (unit <= 1: unchanged).
template <class Word>
__device__ Word swap_units(Word word, int unit) {
  if (unit <= 1) return word;
  unsigned char b[sizeof(Word)];
  memcpy(b, &word, sizeof(Word));
  for (int off = 0; off + unit <= static_cast<int>(sizeof(Word)); off += unit) {
    for (int i = 0, j = unit - 1; i < j; ++i, --j) {
      const unsigned char t = b[off + i];
      b[off + i] = b[off + j];
      b[off + j] = t;
    }
  }
  memcpy(&word, b, sizeof(Word));
  return word;
}

// Item of block `block`: the last item whose first block is <= block.
__device__ int find_item(const uint64_t* first_block, int count, uint64_t block) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (first_block[mid] <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Each block copies up to kElementsPerBlock consecutive (C-order) elements of one item. Word is
// the element type when size and alignment allow; otherwise unsigned char moves element_size
// bytes one by one.
template <class Word>
__global__ void scatter_kernel(const DeviceScatterItem* items, const uint64_t* first_block,
                               int item_count, int element_size, int swap_unit) {
  const uint64_t block = blockIdx.x;
  const int k = find_item(first_block, item_count, block);
  const DeviceScatterItem& item = items[k];
  int64_t count = 1;
  for (int d = 0; d < item.ndim; ++d) count *= item.shape[d];
  const int64_t begin = static_cast<int64_t>(block - first_block[k]) * kElementsPerBlock;
  const int64_t end = min(count, begin + kElementsPerBlock);
  const auto* src = reinterpret_cast<const unsigned char*>(item.source);
  auto* dst = reinterpret_cast<unsigned char*>(item.destination);
  for (int64_t e = begin + threadIdx.x; e < end; e += blockDim.x) {
    int64_t rest = e, s = 0, t = 0;
    for (int d = item.ndim - 1; d >= 0; --d) {
      const int64_t index = rest % item.shape[d];
      rest /= item.shape[d];
      s += index * item.source_strides[d];
      t += index * item.destination_strides[d];
    }
    if constexpr (sizeof(Word) > 1) {
      *reinterpret_cast<Word*>(dst + t) =
          swap_units(*reinterpret_cast<const Word*>(src + s), swap_unit);
    } else {
      for (int b = 0; b < element_size; ++b) {
        int from = b;
        if (swap_unit > 1) from = (b / swap_unit) * swap_unit + (swap_unit - 1 - b % swap_unit);
        dst[t + b] = src[s + from];
      }
    }
  }
}

bool aligned(const DeviceScatterItem& item, size_t alignment) {
  const auto a = static_cast<int64_t>(alignment);
  if (reinterpret_cast<uintptr_t>(item.source) % alignment ||
      reinterpret_cast<uintptr_t>(item.destination) % alignment)
    return false;
  for (int d = 0; d < item.ndim; ++d) {
    if (item.source_strides[d] % a || item.destination_strides[d] % a) return false;
  }
  return true;
}

template <class Word>
void launch(const DeviceScatterItem* items, const uint64_t* first_block, int count, uint64_t blocks,
            size_t element_size, size_t swap_unit, cudaStream_t stream) {
  scatter_kernel<Word><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      items, first_block, count, static_cast<int>(element_size), static_cast<int>(swap_unit));
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

bool make_scatter_item(const NDBuffer& source, const NDBuffer& destination,
                       DeviceScatterItem& item) {
  item = DeviceScatterItem{};
  item.source = source.data();
  item.destination = destination.data();
  const auto& shape = source.shape();
  const auto& ss = source.byte_strides();
  const auto& ds = destination.byte_strides();
  int n = 0;
  int64_t dims[64][3];  // shape, source stride, destination stride (outer to inner)
  if (shape.size() > 64) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (n > 0) {
      // Merge with the previous (outer) dimension when both sides are contiguous across them.
      auto& prev = dims[n - 1];
      if (prev[1] == ss[d] * shape[d] && prev[2] == ds[d] * shape[d]) {
        prev[0] *= shape[d];
        prev[1] = ss[d];
        prev[2] = ds[d];
        continue;
      }
    }
    dims[n][0] = shape[d];
    dims[n][1] = ss[d];
    dims[n][2] = ds[d];
    ++n;
  }
  if (n > kMaxScatterDims) return false;
  item.ndim = n;
  for (int d = 0; d < n; ++d) {
    item.shape[d] = dims[d][0];
    item.source_strides[d] = dims[d][1];
    item.destination_strides[d] = dims[d][2];
  }
  return true;
}

void scatter_on_device(std::span<const DeviceScatterItem> items, size_t element_size,
                       size_t swap_unit, Stream stream) {
  if (items.empty()) return;
  if (items.size() > (size_t{1} << 30)) throw UnsupportedError("scatter of too many chunks");
  // Blocks per item, as prefix sums; items with no elements still get one (idle) block.
  std::vector<uint64_t> first_block(items.size());
  uint64_t blocks = 0;
  bool words_fit = true;
  for (size_t i = 0; i < items.size(); ++i) {
    first_block[i] = blocks;
    int64_t count = 1;
    for (int d = 0; d < items[i].ndim; ++d) count *= items[i].shape[d];
    blocks += static_cast<uint64_t>(
        std::max<int64_t>(1, (count + kElementsPerBlock - 1) / kElementsPerBlock));
    words_fit = words_fit && aligned(items[i], element_size);
  }
  if (blocks > 0x7fffffffu) throw UnsupportedError("scatter of more than 2^31 blocks");

  // Descriptors and block table in one pinned buffer, uploaded with one copy.
  const size_t items_bytes = items.size() * sizeof(DeviceScatterItem);
  const size_t table_bytes = first_block.size() * sizeof(uint64_t);
  Buffer staged = Buffer::allocate(items_bytes + table_bytes, MemoryKind::pinned, stream);
  std::memcpy(staged.data(), items.data(), items_bytes);
  std::memcpy(staged.data() + items_bytes, first_block.data(), table_bytes);
  Buffer on_device = staged.copy_to(MemoryKind::device, stream);
  const auto* device_items = reinterpret_cast<const DeviceScatterItem*>(on_device.data());
  const auto* device_table = reinterpret_cast<const uint64_t*>(on_device.data() + items_bytes);
  const int count = static_cast<int>(items.size());
  const cudaStream_t s = to_cuda(stream.native());
  const size_t unit = swap_unit > 1 ? swap_unit : 0;
  if (words_fit && element_size == 1 && unit == 0)
    launch<uint8_t>(device_items, device_table, count, blocks, element_size, unit, s);
  else if (words_fit && element_size == 2)
    launch<uint16_t>(device_items, device_table, count, blocks, element_size, unit, s);
  else if (words_fit && element_size == 4)
    launch<uint32_t>(device_items, device_table, count, blocks, element_size, unit, s);
  else if (words_fit && element_size == 8)
    launch<uint64_t>(device_items, device_table, count, blocks, element_size, unit, s);
  else if (words_fit && element_size == 16)
    launch<Word16>(device_items, device_table, count, blocks, element_size, unit, s);
  else
    launch<unsigned char>(device_items, device_table, count, blocks, element_size, unit, s);
}

}  // namespace cuzarr::detail
