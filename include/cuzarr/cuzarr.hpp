// cuzarr: chunked, compressed N-dimensional arrays in the Zarr v2 and v3 formats.
// Include this header for the whole public API.
#pragma once

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/core/shape.hpp"
#include "cuzarr/memory/allocator_callbacks.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/cuda_array_interface.hpp"
#include "cuzarr/memory/cuda_device.hpp"
#include "cuzarr/memory/cuda_memory_resources.hpp"
#include "cuzarr/memory/dlpack_interop.hpp"
#include "cuzarr/memory/memory_resource.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/stream.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "cuzarr/store/store.hpp"
