#include <algorithm>
#include <cstdint>
#include <string>

#include "cuzarr/core/error.hpp"
#include "memory/cuda_check.hpp"
#include "memory/strided_copy_device.hpp"

namespace cuzarr::detail {
namespace {

struct StridedCopyParams {
  int ndim;
  int64_t count;  // elements
  int64_t shape[kMaxStridedCopyDims];
  int64_t dst_strides[kMaxStridedCopyDims];
  int64_t src_strides[kMaxStridedCopyDims];
};

// One element per loop step (grid-stride); the element's byte offsets come from its C-order index.
// Word is the type moved per element when sizes and alignment allow it, unsigned char otherwise.
template <class Word>
__global__ void strided_copy_kernel(unsigned char* dst, const unsigned char* src,
                                    StridedCopyParams p, int64_t element_size) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.count;
       i += stride) {
    int64_t rest = i, dst_offset = 0, src_offset = 0;
    for (int d = p.ndim - 1; d >= 0; --d) {
      const int64_t index = rest % p.shape[d];
      rest /= p.shape[d];
      dst_offset += index * p.dst_strides[d];
      src_offset += index * p.src_strides[d];
    }
    if constexpr (sizeof(Word) > 1) {
      *reinterpret_cast<Word*>(dst + dst_offset) = *reinterpret_cast<const Word*>(src + src_offset);
    } else {
      for (int64_t b = 0; b < element_size; ++b) dst[dst_offset + b] = src[src_offset + b];
    }
  }
}

// True when every address the copy touches is a multiple of `alignment`.
bool aligned_to(size_t alignment, const std::byte* dst, const std::byte* src,
                const StridedCopyParams& p) {
  if (reinterpret_cast<uintptr_t>(dst) % alignment || reinterpret_cast<uintptr_t>(src) % alignment)
    return false;
  for (int d = 0; d < p.ndim; ++d) {
    if (p.dst_strides[d] % static_cast<int64_t>(alignment) ||
        p.src_strides[d] % static_cast<int64_t>(alignment))
      return false;
  }
  return true;
}

template <class Word>
void launch(std::byte* dst, const std::byte* src, const StridedCopyParams& p, size_t element_size,
            cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((p.count + kThreads - 1) / kThreads, 65535 * 8);
  strided_copy_kernel<Word><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      reinterpret_cast<unsigned char*>(dst), reinterpret_cast<const unsigned char*>(src), p,
      static_cast<int64_t>(element_size));
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void copy_strided_on_device(std::byte* dst, std::span<const int64_t> dst_strides,
                            const std::byte* src, std::span<const int64_t> src_strides,
                            std::span<const int64_t> shape, size_t element_size, Stream stream) {
  if (shape.size() > kMaxStridedCopyDims) {
    throw UnsupportedError("strided copy on the GPU of " + std::to_string(shape.size()) +
                           " dimensions (at most " + std::to_string(kMaxStridedCopyDims) + ")");
  }
  StridedCopyParams p{};
  p.ndim = static_cast<int>(shape.size());
  p.count = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    p.shape[d] = shape[d];
    p.dst_strides[d] = dst_strides[d];
    p.src_strides[d] = src_strides[d];
    p.count *= shape[d];
  }
  if (p.count == 0) return;
  const cudaStream_t s = to_cuda(stream.native());
  switch (element_size) {
    case 16:
      if (aligned_to(16, dst, src, p)) return launch<uint4>(dst, src, p, element_size, s);
      break;
    case 8:
      if (aligned_to(8, dst, src, p)) return launch<uint64_t>(dst, src, p, element_size, s);
      break;
    case 4:
      if (aligned_to(4, dst, src, p)) return launch<uint32_t>(dst, src, p, element_size, s);
      break;
    case 2:
      if (aligned_to(2, dst, src, p)) return launch<uint16_t>(dst, src, p, element_size, s);
      break;
    default:
      break;
  }
  launch<unsigned char>(dst, src, p, element_size, s);
}

}  // namespace cuzarr::detail
