// Chunks whose codecs only lay the elements out in C order ("bytes" with no byte swap, nothing
// else) need no decoding: a chunk whose place in a host output is fully covered is read from the
// store straight into that place, run by run (Store::read_into), with no chunk-sized buffer.
#pragma once

#include <span>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr {

/// True when a chunk encoded by `chain` is its elements in C order exactly as they lie in host
/// memory: the chain is one "bytes" codec that swaps no bytes, for a fixed-size data type.
bool stores_raw_elements(const CodecChain& chain);

/// The contiguous byte runs of the host view `view`, in the C order of its elements (a run spans
/// several dimensions where the layout allows: a C-contiguous view is one run).
std::vector<std::span<std::byte>> c_order_byte_runs(const NDBuffer& view);

}  // namespace cuzarr
