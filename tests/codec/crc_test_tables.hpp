// The CRC-32 lane tables (checksum_lanes.hpp) built once on the CPU, for the emulated-warp tests.
#pragma once

#include <memory>

#include "codec/cuda/checksum_lanes.hpp"

namespace cuzarr::test {

inline const gpu::Crc32LaneTables& crc32_lane_tables() {
  static const auto tables = [] {
    auto t = std::make_unique<gpu::Crc32LaneTables>();
    gpu::make_crc32_lane_tables(*t);
    return t;
  }();
  return *tables;
}

}  // namespace cuzarr::test
