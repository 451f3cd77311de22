#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

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
// the element type when size and alignment allow (or a 16-byte word of a row, see
// rows_of_words); otherwise unsigned char moves element_size bytes one by one. kNarrow: every
// item has fewer than 2^32 elements, so an element's index splits into coordinates with 32-bit
// divisions (a 64-bit one is a long software sequence).
template <class Word, bool kNarrow>
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
    using Index = std::conditional_t<kNarrow, uint32_t, int64_t>;
    auto rest = static_cast<Index>(e);
    int64_t s = 0, t = 0;
    for (int d = item.ndim - 1; d >= 0; --d) {
      const auto extent = static_cast<Index>(item.shape[d]);
      const Index next = rest / extent;
      const auto index = static_cast<int64_t>(rest - next * extent);
      rest = next;
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

/// Whether the item's rows can move as 16-byte words: its innermost dimension is contiguous on
/// both sides and every row starts and ends on a 16-byte boundary. (A unit swap stays inside its
/// element, and elements of 1 to 16 bytes stay inside a word.)
bool rows_of_words(const DeviceScatterItem& item, size_t element_size) {
  if (item.ndim == 0 || 16 % element_size != 0) return false;
  const int inner = item.ndim - 1;
  const auto size = static_cast<int64_t>(element_size);
  if (item.source_strides[inner] != size || item.destination_strides[inner] != size) return false;
  if (item.shape[inner] * size % 16 != 0) return false;
  if (reinterpret_cast<uintptr_t>(item.source) % 16 ||
      reinterpret_cast<uintptr_t>(item.destination) % 16)
    return false;
  for (int d = 0; d < inner; ++d) {
    if (item.source_strides[d] % 16 || item.destination_strides[d] % 16) return false;
  }
  return true;
}

/// The same copy in 16-byte words (rows_of_words holds).
DeviceScatterItem as_words(DeviceScatterItem item, size_t element_size) {
  const int inner = item.ndim - 1;
  item.shape[inner] = item.shape[inner] * static_cast<int64_t>(element_size) / 16;
  item.source_strides[inner] = 16;
  item.destination_strides[inner] = 16;
  return item;
}

template <class Word>
void launch(const DeviceScatterItem* items, const uint64_t* first_block, int count, uint64_t blocks,
            bool narrow, size_t element_size, size_t swap_unit, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>(blocks);
  const auto size = static_cast<int>(element_size), unit = static_cast<int>(swap_unit);
  if (narrow) {
    scatter_kernel<Word, true>
        <<<grid, kThreads, 0, stream>>>(items, first_block, count, size, unit);
  } else {
    scatter_kernel<Word, false>
        <<<grid, kThreads, 0, stream>>>(items, first_block, count, size, unit);
  }
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

void scatter_on_device(std::span<const DeviceScatterItem> given, size_t element_size,
                       size_t swap_unit, Stream stream) {
  if (given.empty()) return;
  if (given.size() > (size_t{1} << 30)) throw UnsupportedError("scatter of too many chunks");
  // Rows of 16-byte words when every item allows them (whole chunks of a C-order array whose
  // rows are multiples of 16 bytes): 2 to 16 times fewer threads and index computations.
  const bool by_words = std::all_of(given.begin(), given.end(), [&](const DeviceScatterItem& i) {
    return rows_of_words(i, element_size);
  });
  std::vector<DeviceScatterItem> words;
  if (by_words) {
    words.reserve(given.size());
    for (const DeviceScatterItem& item : given) words.push_back(as_words(item, element_size));
  }
  const std::span<const DeviceScatterItem> items =
      by_words ? std::span<const DeviceScatterItem>(words) : given;
  // Blocks per item, as prefix sums; items with no elements still get one (idle) block.
  std::vector<uint64_t> first_block(items.size());
  uint64_t blocks = 0;
  bool words_fit = true, narrow = true;
  for (size_t i = 0; i < items.size(); ++i) {
    first_block[i] = blocks;
    int64_t count = 1;
    for (int d = 0; d < items[i].ndim; ++d) count *= items[i].shape[d];
    blocks += static_cast<uint64_t>(
        std::max<int64_t>(1, (count + kElementsPerBlock - 1) / kElementsPerBlock));
    words_fit = words_fit && aligned(items[i], element_size);
    narrow = narrow && count < (int64_t{1} << 32);
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
  const auto go = [&](auto word) {
    using Word = decltype(word);
    launch<Word>(device_items, device_table, count, blocks, narrow, element_size, unit, s);
  };
  if (by_words)
    go(Word16{});
  else if (words_fit && element_size == 1 && unit == 0)
    go(uint8_t{});
  else if (words_fit && element_size == 2)
    go(uint16_t{});
  else if (words_fit && element_size == 4)
    go(uint32_t{});
  else if (words_fit && element_size == 8)
    go(uint64_t{});
  else if (words_fit && element_size == 16)
    go(Word16{});
  else
    go(static_cast<unsigned char>(0));
}

}  // namespace cuzarr::detail
