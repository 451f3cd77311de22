#include "cuzarr/memory/memory_kind.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

std::string_view memory_kind_name(MemoryKind kind) noexcept {
  switch (kind) {
    case MemoryKind::host:
      return "host";
    case MemoryKind::pinned:
      return "pinned";
    case MemoryKind::device:
      return "device";
  }
  return "unknown";
}

MemoryKind parse_memory_kind(std::string_view name) {
  if (name == "host" || name == "cpu") return MemoryKind::host;
  if (name == "pinned") return MemoryKind::pinned;
  if (name == "device" || name == "cuda" || name == "gpu") return MemoryKind::device;
  throw InvalidArgumentError(
      fmt::format("unknown memory kind \"{}\" (expected host, pinned or device)", name));
}

}  // namespace cuzarr
