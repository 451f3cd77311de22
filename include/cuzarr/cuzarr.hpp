// cuzarr: chunked, compressed N-dimensional arrays in the Zarr v2 and v3 formats.
// Include this header for the whole public API.
#pragma once

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/api/consolidated.hpp"
#include "cuzarr/api/copy.hpp"
#include "cuzarr/core/bfloat16.hpp"
#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/float8.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/core/shape.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/memory_resource.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "cuzarr/store/store.hpp"
