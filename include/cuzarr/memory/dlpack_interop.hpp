// NDBuffer <-> DLPack: export any NDBuffer (host, pinned, device) as a DLPack managed tensor that
// keeps the Buffer alive, and import a producer's managed tensor as an NDBuffer that calls the
// producer's deleter exactly once when the last handle goes. No bytes are copied either way.
#pragma once

#include <cstdint>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/memory/dlpack.h"
#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr {

/// The DLPack type of `dtype`: bool -> kDLBool, int*/uint* -> kDLInt/kDLUInt, float* -> kDLFloat,
/// complex* -> kDLComplex (lanes 1). Throws UnsupportedError naming a type DLPack cannot express
/// (r<N> raw types).
DLDataType to_dlpack_data_type(DataType dtype);
/// The cuzarr type of a DLPack type. Throws UnsupportedError naming the DLPack type when cuzarr has
/// no such type (bfloat16, vectors with lanes > 1, odd widths).
DataType from_dlpack_data_type(DLDataType dtype);

/// The DLPack device of memory of `kind` at `pointer`: kDLCPU, kDLCUDAHost, or kDLCUDA with the
/// device that owns the pointer (asked from CUDA).
DLDevice to_dlpack_device(MemoryKind kind, const void* pointer);

/// Exports `array` (DLPack 1.0). The returned tensor holds a reference to the Buffer, the shape
/// and the strides; its deleter releases them. `read_only` sets DLPACK_FLAG_BITMASK_READ_ONLY.
/// Throws UnsupportedError for data types DLPack cannot express, InvalidArgumentError when a
/// stride is not a multiple of the element size (DLPack counts strides in elements).
DLManagedTensorVersioned* to_dlpack_versioned(const NDBuffer& array, bool read_only = false);
/// The same as a legacy (pre-1.0) DLManagedTensor.
DLManagedTensor* to_dlpack(const NDBuffer& array);

/// Imports a DLPack 1.x tensor, taking ownership of it in every case: on success the NDBuffer's
/// last handle calls tensor->deleter(tensor) (if not null); when the import throws, the deleter is
/// called before the exception leaves. kDLCPU -> host, kDLCUDAHost -> pinned, kDLCUDA -> device.
/// Throws UnsupportedError for another major version, device type or data type,
/// InvalidArgumentError for a null tensor or data pointer, a negative extent, or a read-only
/// tensor unless `allow_read_only` (cuzarr views have no read-only flag: the caller then promises
/// not to write).
NDBuffer from_dlpack(DLManagedTensorVersioned* tensor, bool allow_read_only = false);
/// The same for a legacy DLManagedTensor.
NDBuffer from_dlpack(DLManagedTensor* tensor);

}  // namespace cuzarr
