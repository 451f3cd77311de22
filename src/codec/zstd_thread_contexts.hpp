// One libzstd compression and one decompression context per thread, created on first use and
// reused across chunks (creating a context per chunk costs more than decoding a small one).
#pragma once

#include <zstd.h>

namespace cuzarr {

/// This thread's compression context; std::bad_alloc when libzstd cannot make one.
ZSTD_CCtx* zstd_thread_compression_context();
/// This thread's decompression context; std::bad_alloc when libzstd cannot make one.
ZSTD_DCtx* zstd_thread_decompression_context();

}  // namespace cuzarr
