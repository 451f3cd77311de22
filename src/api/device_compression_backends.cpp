// The GPU backends of the Compressor, by algorithm. None exists yet: every algorithm runs on the
// host. A GPU implementation (batched kernels over device chunk pointers) adds a
// CompressionBackend whose data_kind() is MemoryKind::device and returns it here; automatic
// execution then uses it for device data, and "device" execution stops throwing.
#include "api/compression_backend.hpp"

namespace cuzarr {

const CompressionBackend* device_compression_backend(CompressionAlgorithm) { return nullptr; }

}  // namespace cuzarr
