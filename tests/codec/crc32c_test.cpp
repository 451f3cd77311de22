#include "cuzarr/codec/crc32c.hpp"

#include <gtest/gtest.h>

#include <string_view>

#include "codec_test_arrays.hpp"

namespace cuzarr {
namespace {

std::span<const std::byte> as_bytes(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

TEST(Crc32c, KnownVectors) {
  // The check value of CRC-32C and the vectors of RFC 3720, appendix B.4.
  EXPECT_EQ(crc32c(as_bytes("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c_software(as_bytes("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c(as_bytes("")), 0u);
  std::vector<std::byte> zeros(32, std::byte{0}), ones(32, std::byte{0xFF}), ascending(32),
      descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<std::byte>(i);
    descending[i] = static_cast<std::byte>(31 - i);
  }
  for (auto* f : {&crc32c, &crc32c_software}) {
    EXPECT_EQ(f(zeros, 0), 0x8A9136AAu);
    EXPECT_EQ(f(ones, 0), 0x62A8AB43u);
    EXPECT_EQ(f(ascending, 0), 0x46DD794Eu);
    EXPECT_EQ(f(descending, 0), 0x113FDB5Cu);
  }
}

TEST(Crc32c, HardwareAndSoftwareAgreeOnEveryLengthAndAlignment) {
  auto data = test::random_bytes(4096 + 16, 5);
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t length : {size_t{0}, size_t{1}, size_t{3}, size_t{7}, size_t{8}, size_t{9},
                          size_t{15}, size_t{63}, size_t{64}, size_t{1000}, size_t{4096}}) {
      std::span<const std::byte> s(data.data() + offset, length);
      EXPECT_EQ(crc32c(s), crc32c_software(s)) << offset << " " << length;
    }
  }
}

TEST(Crc32c, ContinuesAcrossPieces) {
  auto data = test::random_bytes(1000, 9);
  std::span<const std::byte> all(data);
  const uint32_t whole = crc32c(all);
  EXPECT_EQ(crc32c(all.subspan(377), crc32c(all.first(377))), whole);
  EXPECT_EQ(crc32c_software(all.subspan(5), crc32c_software(all.first(5))), whole);
}

}  // namespace
}  // namespace cuzarr
