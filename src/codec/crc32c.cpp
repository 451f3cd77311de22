#include "cuzarr/codec/crc32c.hpp"

#include <cstring>

#include "codec/cuda/crc32c_table.hpp"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace cuzarr {
namespace {

// The slicing-by-8 tables of CRC-32C (Castagnoli), shared with the GPU kernels.
constexpr gpu::Crc32cTables kTables = gpu::make_crc32c_tables();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const unsigned char* p, size_t n,
                                                        uint32_t crc) {
  uint64_t c = ~crc;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7u) != 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
    --n;
  }
  return ~static_cast<uint32_t>(c);
}

bool detect_sse42() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#endif

}  // namespace

uint32_t crc32c_software(std::span<const std::byte> data, uint32_t crc) noexcept {
  return ~gpu::crc32c_update(~crc, reinterpret_cast<const unsigned char*>(data.data()), data.size(),
                             kTables.table);
}

bool crc32c_has_hardware() noexcept {
#if defined(__x86_64__)
  static const bool has = detect_sse42();
  return has;
#else
  return false;
#endif
}

uint32_t crc32c(std::span<const std::byte> data, uint32_t crc) noexcept {
#if defined(__x86_64__)
  if (crc32c_has_hardware())
    return crc32c_sse42(reinterpret_cast<const unsigned char*>(data.data()), data.size(), crc);
#endif
  return crc32c_software(data, crc);
}

}  // namespace cuzarr
