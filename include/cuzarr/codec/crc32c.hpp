// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by the Zarr v3 crc32c codec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace cuzarr {

/// CRC-32C of `data`, continuing from `crc` (the CRC of preceding data; 0 to start). Uses the
/// SSE4.2 crc32 instruction when the CPU has it, else crc32c_software().
uint32_t crc32c(std::span<const std::byte> data, uint32_t crc = 0) noexcept;
/// The same value from a table-driven (slicing-by-8) implementation that runs on any CPU.
uint32_t crc32c_software(std::span<const std::byte> data, uint32_t crc = 0) noexcept;
/// True when crc32c() uses the hardware instruction on this CPU.
bool crc32c_has_hardware() noexcept;

}  // namespace cuzarr
