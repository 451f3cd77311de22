#include "api/compressor_memory.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"

namespace cuzarr {

bool involves_device_memory(std::span<const Buffer> inputs, std::optional<MemoryKind> output_kind) {
  bool device = output_kind == MemoryKind::device || output_kind == MemoryKind::pinned;
  for (const Buffer& input : inputs) device = device || !is_host_accessible(input.kind());
  if (!device) return false;
  const std::string reason = cuda_unavailable_reason();
  if (!reason.empty())
    throw UnsupportedError(
        fmt::format("compressor: pinned or device memory needs CUDA: {}", reason));
  return output_kind == MemoryKind::device ||
         std::any_of(inputs.begin(), inputs.end(),
                     [](const Buffer& b) { return b.kind() == MemoryKind::device; });
}

std::vector<Buffer> host_accessible_inputs(std::span<const Buffer> inputs, const Stream& stream,
                                           std::vector<bool>& staged) {
  std::vector<Buffer> result;
  result.reserve(inputs.size());
  staged.assign(inputs.size(), false);
  bool copied = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (is_host_accessible(inputs[i].kind())) {
      result.push_back(inputs[i]);
    } else {
      result.push_back(inputs[i].copy_to(MemoryKind::pinned, stream));
      staged[i] = copied = true;
    }
  }
  if (copied) stream.synchronize();
  return result;
}

MemoryKind output_kind_of(const Buffer& input, std::optional<MemoryKind> requested) {
  return requested.value_or(input.kind());
}

Buffer allocate_assembly_buffer(size_t size, MemoryKind final_kind) {
  return Buffer::allocate(size,
                          final_kind == MemoryKind::host ? MemoryKind::host : MemoryKind::pinned);
}

Buffer deliver_output(const Buffer& assembled, MemoryKind final_kind, const Stream& stream) {
  if (final_kind != MemoryKind::device) return assembled;
  Buffer result = assembled.copy_to(MemoryKind::device, stream);
  stream.synchronize();
  return result;
}

std::string chunk_label(size_t batch_size, size_t buffer, size_t chunk) {
  if (batch_size == 1) return fmt::format("chunk {}", chunk);
  return fmt::format("buffer {}, chunk {}", buffer, chunk);
}

std::string buffer_prefix(size_t batch_size, size_t buffer) {
  if (batch_size == 1) return {};
  return fmt::format("buffer {}: ", buffer);
}

}  // namespace cuzarr
