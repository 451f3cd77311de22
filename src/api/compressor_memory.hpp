// How the Compressor moves data between memory kinds: device inputs are staged into pinned host
// memory for host backends, outputs are assembled in host memory (pinned when they go on to the
// device) and copied to the kind the caller asked for.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

/// True when an input is in device memory or the output is asked for there. Then throws
/// UnsupportedError naming the reason when the build has no CUDA or no GPU is usable.
bool involves_device_memory(std::span<const Buffer> inputs, std::optional<MemoryKind> output_kind);

/// The inputs, each host-accessible: device buffers copied into pinned memory on `stream` (the
/// call waits for the copies). `staged[i]` says whether input i was copied.
std::vector<Buffer> host_accessible_inputs(std::span<const Buffer> inputs, const Stream& stream,
                                           std::vector<bool>& staged);

/// The kind of the output of input `input`: `requested`, else the input's kind.
MemoryKind output_kind_of(const Buffer& input, std::optional<MemoryKind> requested);

/// A host-accessible buffer to assemble an output of `final_kind` in: pinned when it goes on to
/// the device or when pinned is wanted, else pageable host.
Buffer allocate_assembly_buffer(size_t size, MemoryKind final_kind);

/// `assembled` in `final_kind` (copied to the device on `stream`, waited for, when asked).
Buffer deliver_output(const Buffer& assembled, MemoryKind final_kind, const Stream& stream);

/// "chunk 3" for a call of one buffer, "buffer 1, chunk 3" for a batch.
std::string chunk_label(size_t batch_size, size_t buffer, size_t chunk);
/// "" for a call of one buffer, "buffer 1: " for a batch.
std::string buffer_prefix(size_t batch_size, size_t buffer);

}  // namespace cuzarr
