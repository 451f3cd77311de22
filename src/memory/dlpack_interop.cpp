#include "cuzarr/memory/dlpack_interop.hpp"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/shape.hpp"

#if CUZARR_HAVE_CUDA
#include "memory/cuda_check.hpp"
#endif

namespace cuzarr {
namespace {

// One allocation per exported tensor: the managed struct first, then what it points into.
template <class Managed>
struct ExportedTensor {
  Managed managed{};
  NDBuffer array;  // keeps the Buffer alive
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
};

template <class Managed>
void delete_exported(Managed* self) {
  if (self != nullptr) delete static_cast<ExportedTensor<Managed>*>(self->manager_ctx);
}

template <class Managed>
Managed* export_tensor(const NDBuffer& array) {
  const DLDataType dtype = to_dlpack_data_type(array.dtype());
  const auto elem = static_cast<int64_t>(array.dtype().size());
  auto holder = std::make_unique<ExportedTensor<Managed>>();
  holder->array = array;
  holder->shape.assign(array.shape().begin(), array.shape().end());
  for (size_t d = 0; d < array.ndim(); ++d) {
    const int64_t stride = array.byte_strides()[d];
    if (stride % elem != 0) {
      throw InvalidArgumentError(fmt::format(
          "DLPack export: stride {} bytes of dimension {} is not a multiple of the {}-byte "
          "element size (DLPack strides count elements)",
          stride, d, elem));
    }
    holder->strides.push_back(stride / elem);
  }
  DLTensor& t = holder->managed.dl_tensor;
  t.data = array.data();
  t.device = to_dlpack_device(array.kind(), array.data());
  t.ndim = static_cast<int32_t>(array.ndim());
  t.dtype = dtype;
  t.shape = holder->shape.data();
  t.strides = holder->strides.data();
  t.byte_offset = 0;
  holder->managed.manager_ctx = holder.get();
  holder->managed.deleter = &delete_exported<Managed>;
  return &holder.release()->managed;
}

MemoryKind memory_kind_of(DLDevice device) {
  switch (device.device_type) {
    case kDLCPU:
      return MemoryKind::host;
    case kDLCUDAHost:
      return MemoryKind::pinned;
    case kDLCUDA:
    case kDLCUDAManaged:  // reachable by the GPU; cuzarr treats it as device memory
      return MemoryKind::device;
    default:
      throw UnsupportedError(
          fmt::format("DLPack import: device type {} is not supported (expected "
                      "kDLCPU, kDLCUDAHost, kDLCUDA or kDLCUDAManaged)",
                      static_cast<int>(device.device_type)));
  }
}

// a * b for signed values; throws InvalidArgumentError naming `what` on overflow.
int64_t multiply(int64_t a, int64_t b, const char* what) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    throw InvalidArgumentError(fmt::format("DLPack import: {} overflows: {} * {}", what, a, b));
  return product;
}

// The NDBuffer view of `t`; `owner` keeps the producer's tensor alive.
NDBuffer import_tensor(const DLTensor& t, std::shared_ptr<const void> owner) {
  const MemoryKind kind = memory_kind_of(t.device);
  const DataType dtype = from_dlpack_data_type(t.dtype);
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    throw InvalidArgumentError(
        fmt::format("DLPack import: ndim {} with {} shape", t.ndim, t.shape ? "a" : "no"));
  }
  const auto elem = static_cast<int64_t>(dtype.size());
  Shape shape(t.shape, t.shape + t.ndim);
  for (int64_t extent : shape) {
    if (extent < 0)
      throw InvalidArgumentError(
          fmt::format("DLPack import: negative extent in shape {}", shape_to_string(shape)));
  }
  std::vector<int64_t> strides;
  if (t.strides == nullptr) {
    strides = c_order_strides(shape, elem);
  } else {
    for (int32_t d = 0; d < t.ndim; ++d) strides.push_back(multiply(t.strides[d], elem, "stride"));
  }
  auto* base = static_cast<std::byte*>(t.data) + t.byte_offset;
  if (element_count(shape) == 0) {
    return NDBuffer(Buffer::wrap(base, 0, kind, std::move(owner)), dtype, std::move(shape),
                    std::move(strides), 0);
  }
  if (t.data == nullptr) throw InvalidArgumentError("DLPack import: null data pointer");
  // The bytes the view touches: [base + lo, base + hi).
  int64_t lo = 0, hi = elem;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t span = multiply(shape[d] - 1, strides[d], "extent");
    if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
      throw InvalidArgumentError("DLPack import: the tensor's extent overflows");
  }
  int64_t extent = 0;
  if (__builtin_sub_overflow(hi, lo, &extent))
    throw InvalidArgumentError("DLPack import: the tensor's extent overflows");
  const auto size = static_cast<size_t>(extent);
  return NDBuffer(Buffer::wrap(base + lo, size, kind, std::move(owner)), dtype, std::move(shape),
                  std::move(strides), -lo);
}

// Shared ownership of a producer's tensor: the last reference calls its deleter once.
template <class Managed>
std::shared_ptr<const void> take_ownership(Managed* tensor) {
  return std::shared_ptr<const void>(tensor, [](const void* p) {
    auto* m = static_cast<Managed*>(const_cast<void*>(p));
    if (m->deleter != nullptr) m->deleter(m);
  });
}

}  // namespace

DLDataType to_dlpack_data_type(DataType dtype) {
  const auto bits = static_cast<uint8_t>(dtype.size() * 8);
  switch (dtype.kind()) {
    case DataTypeKind::boolean:
      return {kDLBool, 8, 1};
    case DataTypeKind::int8:
    case DataTypeKind::int16:
    case DataTypeKind::int32:
    case DataTypeKind::int64:
      return {kDLInt, bits, 1};
    case DataTypeKind::uint8:
    case DataTypeKind::uint16:
    case DataTypeKind::uint32:
    case DataTypeKind::uint64:
      return {kDLUInt, bits, 1};
    case DataTypeKind::float16:
    case DataTypeKind::float32:
    case DataTypeKind::float64:
      return {kDLFloat, bits, 1};
    case DataTypeKind::complex64:
    case DataTypeKind::complex128:
      return {kDLComplex, bits, 1};
    case DataTypeKind::bfloat16:
      return {kDLBfloat, 16, 1};
    default:
      break;
  }
  throw UnsupportedError(
      fmt::format("data type \"{}\" has no DLPack equivalent", dtype.description()));
}

DataType from_dlpack_data_type(DLDataType dtype) {
  const auto unsupported = [&] {
    return UnsupportedError(
        fmt::format("DLPack data type (code {}, {} bits, {} lanes) has no cuzarr data type",
                    dtype.code, dtype.bits, dtype.lanes));
  };
  if (dtype.lanes != 1) throw unsupported();
  switch (dtype.code) {
    case kDLBool:
      if (dtype.bits == 8) return DataType(DataTypeKind::boolean);
      break;
    case kDLInt:
      switch (dtype.bits) {
        case 8:
          return DataType(DataTypeKind::int8);
        case 16:
          return DataType(DataTypeKind::int16);
        case 32:
          return DataType(DataTypeKind::int32);
        case 64:
          return DataType(DataTypeKind::int64);
      }
      break;
    case kDLUInt:
      switch (dtype.bits) {
        case 8:
          return DataType(DataTypeKind::uint8);
        case 16:
          return DataType(DataTypeKind::uint16);
        case 32:
          return DataType(DataTypeKind::uint32);
        case 64:
          return DataType(DataTypeKind::uint64);
      }
      break;
    case kDLFloat:
      switch (dtype.bits) {
        case 16:
          return DataType(DataTypeKind::float16);
        case 32:
          return DataType(DataTypeKind::float32);
        case 64:
          return DataType(DataTypeKind::float64);
      }
      break;
    case kDLComplex:
      if (dtype.bits == 64) return DataType(DataTypeKind::complex64);
      if (dtype.bits == 128) return DataType(DataTypeKind::complex128);
      break;
    case kDLBfloat:
      if (dtype.bits == 16) return DataType(DataTypeKind::bfloat16);
      break;
    default:
      break;
  }
  throw unsupported();
}

DLDevice to_dlpack_device(MemoryKind kind, const void* pointer) {
  switch (kind) {
    case MemoryKind::host:
      return {kDLCPU, 0};
    case MemoryKind::pinned:
      return {kDLCUDAHost, 0};
    case MemoryKind::device:
      break;
  }
  int device = 0;
#if CUZARR_HAVE_CUDA
  cudaPointerAttributes attributes{};
  if (pointer != nullptr && cudaPointerGetAttributes(&attributes, pointer) == cudaSuccess &&
      attributes.type == cudaMemoryTypeDevice) {
    device = attributes.device;
  } else {
    cudaGetLastError();  // not a device pointer CUDA knows: report the current device
    cudaGetDevice(&device);
  }
#else
  (void)pointer;
#endif
  return {kDLCUDA, device};
}

DLManagedTensorVersioned* to_dlpack_versioned(const NDBuffer& array, bool read_only) {
  auto* managed = export_tensor<DLManagedTensorVersioned>(array);
  managed->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  managed->flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  return managed;
}

DLManagedTensor* to_dlpack(const NDBuffer& array) { return export_tensor<DLManagedTensor>(array); }

NDBuffer from_dlpack(DLManagedTensorVersioned* tensor, bool allow_read_only) {
  if (tensor == nullptr) throw InvalidArgumentError("DLPack import: null tensor");
  auto owner = take_ownership(tensor);  // from here on, every exit calls the deleter once
  // DLPack spec: a consumer must not read past `version` when the major version differs.
  if (tensor->version.major != DLPACK_MAJOR_VERSION) {
    throw UnsupportedError(fmt::format(
        "DLPack import: tensor of DLPack version {}.{}, this build reads major version {}",
        tensor->version.major, tensor->version.minor, DLPACK_MAJOR_VERSION));
  }
  if ((tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY) && !allow_read_only) {
    throw InvalidArgumentError(
        "DLPack import: the tensor is read-only (pass allow_read_only to accept it)");
  }
  return import_tensor(tensor->dl_tensor, std::move(owner));
}

NDBuffer from_dlpack(DLManagedTensor* tensor) {
  if (tensor == nullptr) throw InvalidArgumentError("DLPack import: null tensor");
  auto owner = take_ownership(tensor);
  return import_tensor(tensor->dl_tensor, std::move(owner));
}

}  // namespace cuzarr
