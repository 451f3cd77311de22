// Little-endian loads and stores of unaligned integers, for the CPU and the GPU.
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

CUZARR_HOST_DEVICE inline uint32_t load_le16(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8;
}
CUZARR_HOST_DEVICE inline uint32_t load_le32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
CUZARR_HOST_DEVICE inline void store_le16(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}
CUZARR_HOST_DEVICE inline void store_le32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

}  // namespace cuzarr::gpu
