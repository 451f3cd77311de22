#include "cuzarr/codec/gzip_codec.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include "codec_test_arrays.hpp"
#include "codec_test_calls.hpp"

namespace cuzarr {
namespace {

using test::decode_one;
using test::encode_one;
using test::representation;
using test::to_vector;

// A gzip member written by zlib directly.
std::vector<std::byte> reference_gzip(std::span<const std::byte> data, int level) {
  z_stream s{};
  EXPECT_EQ(deflateInit2(&s, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<std::byte> out(deflateBound(&s, data.size()));
  s.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

const auto kRep = representation(DataType(DataTypeKind::uint8), {4000});

TEST(GzipCodec, ConfigurationAndJson) {
  EXPECT_EQ(GzipCodec::create({{"level", 7}}, kRep)->to_json(),
            nlohmann::json::parse(R"({"name":"gzip","configuration":{"level":7}})"));
  EXPECT_EQ(GzipCodec::create(nlohmann::json::object(), kRep)->level(), 5);
  for (const char* bad : {R"({"level":10})", R"({"level":-1})", R"({"level":"9"})",
                          R"({"level":1.5})", R"({"lvl":1})"}) {
    try {
      GzipCodec::create(nlohmann::json::parse(bad), kRep);
      FAIL() << bad;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
    }
  }
}

TEST(GzipCodec, WritesAGzipMemberAndReadsZlibsOutput) {
  auto codec = GzipCodec::create({{"level", 9}}, kRep);
  auto data = test::random_bytes(4000, 1);
  for (size_t i = 0; i < 3000; ++i) data[i] = std::byte{0};
  auto encoded = encode_one(*codec, Buffer::copy_of(data), kRep);
  ASSERT_TRUE(encoded.status.ok);
  // RFC 1952 header: ID1 ID2 CM=8.
  ASSERT_GE(encoded.bytes.size(), 18u);
  EXPECT_EQ(encoded.bytes.data()[0], std::byte{0x1F});
  EXPECT_EQ(encoded.bytes.data()[1], std::byte{0x8B});
  EXPECT_EQ(encoded.bytes.data()[2], std::byte{8});
  EXPECT_LT(encoded.bytes.size(), 1500u);

  auto decoded = decode_one(*codec, Buffer::copy_of(reference_gzip(data, 1)), kRep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);
}

TEST(GzipCodec, DecodesConcatenatedMembersAndZlibStreams) {
  auto codec = GzipCodec::create({{"level", 1}}, kRep);
  auto data = test::random_bytes(3000, 2);
  auto first = reference_gzip(std::span(data).first(1000), 3);
  auto second = reference_gzip(std::span(data).subspan(1000), 6);
  first.insert(first.end(), second.begin(), second.end());
  auto decoded = decode_one(*codec, Buffer::copy_of(first), kRep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);

  std::vector<std::byte> zlib_stream(compressBound(data.size()));
  uLongf size = zlib_stream.size();
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(zlib_stream.data()), &size,
                     reinterpret_cast<const Bytef*>(data.data()), data.size()),
            Z_OK);
  zlib_stream.resize(size);
  decoded = decode_one(*codec, Buffer::copy_of(zlib_stream), kRep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);
}

TEST(GzipCodec, OutputLargerThanTheChunkGrowsAndEmptyDataRoundTrips) {
  // The representation only hints the size: a stream 10x larger still decodes.
  auto small = representation(DataType(DataTypeKind::uint8), {100});
  auto codec = GzipCodec::create({{"level", 1}}, small);
  auto data = test::random_bytes(1000, 3);
  auto decoded = decode_one(*codec, Buffer::copy_of(reference_gzip(data, 1)), small);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);

  auto encoded = encode_one(*codec, Buffer(), small);
  ASSERT_TRUE(encoded.status.ok);
  decoded = decode_one(*codec, encoded.bytes, small);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(decoded.bytes.size(), 0u);
}

TEST(GzipCodec, DecompressionBombStopsAtTheLimit) {
  auto tiny = representation(DataType(DataTypeKind::uint8), {16});
  std::vector<std::byte> zeros(80u << 20, std::byte{0});  // 80 MiB > 8 * 16 + 64 MiB
  auto bomb = reference_gzip(zeros, 1);
  zeros = {};
  auto codec = GzipCodec::create({{"level", 1}}, tiny);
  auto decoded = decode_one(*codec, Buffer::copy_of(bomb), tiny);
  ASSERT_FALSE(decoded.status.ok);
  EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data);
  EXPECT_NE(decoded.status.message.find("limit"), std::string::npos) << decoded.status.message;
}

TEST(GzipCodec, CorruptInputReportsZlibsMessage) {
  auto codec = GzipCodec::create({{"level", 5}}, kRep);
  auto data = test::random_bytes(4000, 4);
  auto good = reference_gzip(data, 5);
  auto flipped = good;
  flipped[good.size() / 2] ^= std::byte{0x40};
  auto bad_crc = good;
  bad_crc[good.size() - 6] ^= std::byte{1};  // inside the CRC32 trailer
  std::vector<std::byte> truncated(good.begin(), good.end() - 3);
  for (const auto& [label, bytes] :
       {std::pair{"flipped", flipped}, std::pair{"bad crc", bad_crc},
        std::pair{"truncated", truncated}, std::pair{"garbage", test::random_bytes(100, 5)},
        std::pair{"empty", std::vector<std::byte>{}}}) {
    auto decoded = decode_one(*codec, Buffer::copy_of(bytes), kRep);
    EXPECT_FALSE(decoded.status.ok) << label;
    EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data) << label;
    EXPECT_NE(decoded.status.message.find("gzip"), std::string::npos)
        << label << ": " << decoded.status.message;
  }
  auto decoded = decode_one(*codec, Buffer::copy_of(bad_crc), kRep);
  EXPECT_NE(decoded.status.message.find("incorrect data check"), std::string::npos)
      << decoded.status.message;
}

}  // namespace
}  // namespace cuzarr
