// Where a buffer's bytes live.
#pragma once

#include <string_view>

namespace cuzarr {

/// Host (pageable), pinned (page-locked host, DMA-able) or device (GPU) memory.
enum class MemoryKind { host, pinned, device };

/// "host", "pinned" or "device".
std::string_view memory_kind_name(MemoryKind kind) noexcept;
/// Parses "host" / "cpu", "pinned", "device" / "cuda"; throws InvalidArgumentError otherwise.
MemoryKind parse_memory_kind(std::string_view name);
/// True when the CPU may dereference pointers of this kind (host and pinned).
constexpr bool is_host_accessible(MemoryKind kind) noexcept { return kind != MemoryKind::device; }

}  // namespace cuzarr
