#include "cuzarr/codec/zstd_codec.hpp"

#include <gtest/gtest.h>
#include <zstd.h>

#include "codec_test_arrays.hpp"
#include "codec_test_calls.hpp"

namespace cuzarr {
namespace {

using test::decode_one;
using test::encode_one;
using test::representation;
using test::to_vector;

const auto kRep = representation(DataType(DataTypeKind::float32), {1000});

std::vector<std::byte> compressible(size_t n, uint32_t seed) {
  auto data = test::random_bytes(n, seed);
  for (size_t i = 0; i < n; i += 3) data[i] = std::byte{7};
  return data;
}

// A zstd frame written by the streaming API without a content size in its header.
std::vector<std::byte> frame_without_content_size(std::span<const std::byte> data) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  std::vector<std::byte> out(ZSTD_compressBound(data.size()));
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  EXPECT_EQ(ZSTD_compressStream2(c, &o, &in, ZSTD_e_end), 0u);
  ZSTD_freeCCtx(c);
  out.resize(o.pos);
  EXPECT_EQ(ZSTD_getFrameContentSize(out.data(), out.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  return out;
}

TEST(ZstdCodec, ConfigurationAndJson) {
  EXPECT_EQ(
      ZstdCodec::create({{"level", -3}, {"checksum", true}}, kRep)->to_json(),
      nlohmann::json::parse(R"({"name":"zstd","configuration":{"level":-3,"checksum":true}})"));
  EXPECT_EQ(
      ZstdCodec::create(nlohmann::json::object(), kRep)->to_json(),
      nlohmann::json::parse(R"({"name":"zstd","configuration":{"level":0,"checksum":false}})"));
  for (const char* bad :
       {R"({"level":23})", R"({"level":"1"})", R"({"checksum":1})", R"({"level":1,"x":0})"}) {
    try {
      ZstdCodec::create(nlohmann::json::parse(bad), kRep);
      FAIL() << bad;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("zstd"), std::string::npos) << e.what();
    }
  }
}

TEST(ZstdCodec, ChecksumFlagIsWrittenAndVerified) {
  auto data = compressible(4000, 1);
  auto with = ZstdCodec::create({{"level", 3}, {"checksum", true}}, kRep);
  auto without = ZstdCodec::create({{"level", 3}, {"checksum", false}}, kRep);
  auto a = encode_one(*with, Buffer::copy_of(data), kRep);
  auto b = encode_one(*without, Buffer::copy_of(data), kRep);
  ASSERT_TRUE(a.status.ok && b.status.ok);
  EXPECT_EQ(a.bytes.size(), b.bytes.size() + 4);
  EXPECT_EQ(ZSTD_getFrameContentSize(a.bytes.data(), a.bytes.size()), data.size());
  // A flipped checksum byte is detected.
  auto bad = to_vector(a.bytes);
  bad.back() ^= std::byte{1};
  auto decoded = decode_one(*with, Buffer::copy_of(bad), kRep);
  EXPECT_FALSE(decoded.status.ok);
  EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data);
  EXPECT_NE(decoded.status.message.find("checksum"), std::string::npos) << decoded.status.message;
}

TEST(ZstdCodec, DecodesFramesWithoutContentSizeAndFramesBackToBack) {
  auto codec = ZstdCodec::create({{"level", 1}}, kRep);
  auto data = compressible(4000, 2);
  auto decoded = decode_one(*codec, Buffer::copy_of(frame_without_content_size(data)), kRep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);

  // Two frames with sizes, then one without: streaming decode of all three.
  auto part1 =
      to_vector(encode_one(*codec, Buffer::copy_of(std::span(data).first(1000)), kRep).bytes);
  auto part2 = to_vector(
      encode_one(*codec, Buffer::copy_of(std::span(data).subspan(1000, 1000)), kRep).bytes);
  auto part3 = frame_without_content_size(std::span(data).subspan(2000));
  std::vector<std::byte> known = part1;
  known.insert(known.end(), part2.begin(), part2.end());
  decoded = decode_one(*codec, Buffer::copy_of(known), kRep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), std::vector<std::byte>(data.begin(), data.begin() + 2000));
  known.insert(known.end(), part3.begin(), part3.end());
  decoded = decode_one(*codec, Buffer::copy_of(known), kRep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);

  // A streamed frame much larger than the chunk's nbytes hint still decodes (below the limit).
  auto small = representation(DataType(DataTypeKind::uint8), {10});
  decoded = decode_one(*codec, Buffer::copy_of(frame_without_content_size(data)), small);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(to_vector(decoded.bytes), data);
}

TEST(ZstdCodec, AHeaderClaimingAHugeSizeIsRejectedBeforeAllocating) {
  // Frame header: magic, descriptor 0xC0 (8-byte content size, not single segment), window
  // descriptor, content size 2^40, then one empty raw last block.
  std::vector<std::byte> frame;
  for (int b : {0x28, 0xB5, 0x2F, 0xFD, 0xC0, 0x50}) frame.push_back(static_cast<std::byte>(b));
  const uint64_t claimed = uint64_t{1} << 40;
  for (int b = 0; b < 8; ++b) frame.push_back(static_cast<std::byte>(claimed >> (8 * b)));
  for (int b : {0x01, 0x00, 0x00}) frame.push_back(static_cast<std::byte>(b));
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), claimed);
  auto codec = ZstdCodec::create({{"level", 1}}, kRep);
  auto decoded = decode_one(*codec, Buffer::copy_of(frame), kRep);
  ASSERT_FALSE(decoded.status.ok);
  EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data);
  EXPECT_NE(decoded.status.message.find("limit"), std::string::npos) << decoded.status.message;

  // A content size that is small but wrong is caught too.
  std::vector<std::byte> lying = frame;
  for (int b = 0; b < 8; ++b) lying[6 + b] = static_cast<std::byte>(b == 0 ? 100 : 0);
  decoded = decode_one(*codec, Buffer::copy_of(lying), kRep);
  EXPECT_FALSE(decoded.status.ok);
  EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data);
}

TEST(ZstdCodec, StreamingBombStopsAtTheLimit) {
  auto tiny = representation(DataType(DataTypeKind::uint8), {16});
  std::vector<std::byte> zeros(80u << 20, std::byte{0});
  auto bomb = frame_without_content_size(zeros);
  zeros = {};
  auto decoded = decode_one(*ZstdCodec::create({{"level", 1}}, tiny), Buffer::copy_of(bomb), tiny);
  ASSERT_FALSE(decoded.status.ok);
  EXPECT_NE(decoded.status.message.find("limit"), std::string::npos) << decoded.status.message;
}

TEST(ZstdCodec, CorruptInputReportsZstdsErrorName) {
  auto codec = ZstdCodec::create({{"level", 3}, {"checksum", true}}, kRep);
  auto data = compressible(4000, 6);
  auto good = to_vector(encode_one(*codec, Buffer::copy_of(data), kRep).bytes);
  auto streamed = frame_without_content_size(data);
  std::vector<std::byte> truncated(good.begin(), good.end() - 5);
  std::vector<std::byte> truncated_stream(streamed.begin(), streamed.end() - 5);
  auto trailing = good;
  trailing.push_back(std::byte{0x42});
  auto bad_magic = good;
  bad_magic[0] ^= std::byte{0xFF};
  for (const auto& [label, bytes] :
       {std::pair{"truncated", truncated}, std::pair{"truncated stream", truncated_stream},
        std::pair{"trailing", trailing}, std::pair{"bad magic", bad_magic},
        std::pair{"garbage", test::random_bytes(64, 7)},
        std::pair{"three bytes", std::vector<std::byte>(3, std::byte{0x28})},
        std::pair{"empty", std::vector<std::byte>{}}}) {
    auto decoded = decode_one(*codec, Buffer::copy_of(bytes), kRep);
    EXPECT_FALSE(decoded.status.ok) << label;
    EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data) << label;
    EXPECT_NE(decoded.status.message.find("zstd"), std::string::npos)
        << label << ": " << decoded.status.message;
  }
}

}  // namespace
}  // namespace cuzarr
