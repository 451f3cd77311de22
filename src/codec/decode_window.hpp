// The size of the pieces a streaming decoder (BytesToBytesCodec::decode_to_sink) delivers: small
// enough that a piece stays in the core's L2 cache between being decoded and being scattered into
// a strided destination, large enough that the per-piece overheads vanish.
#pragma once

#include <cstddef>

namespace cuzarr {

/// Target bytes of one decoded piece (a tuning constant; codecs round it to their own units).
inline constexpr size_t kDecodeWindowBytes = size_t{512} << 10;

}  // namespace cuzarr
