#include "cuzarr/codec/blosc_codec.hpp"

#include <gtest/gtest.h>
#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif

#include <cstring>

#include "codec_test_arrays.hpp"
#include "codec_test_calls.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

#if !CUZARR_HAVE_BLOSC

TEST(BloscCodec, CreateSaysBloscWasNotBuilt) {
  EXPECT_FALSE(BloscCodec::available());
  try {
    BloscCodec::create(nlohmann::json::object(), test::representation(DataType(), {8}));
    FAIL() << "create() succeeded without c-blosc";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("blosc support was not built"), std::string::npos)
        << e.what();
  }
}

TEST(BloscCodec, CompressionAndHeaders) { GTEST_SKIP() << "blosc support was not built"; }

#else

using test::decode_one;
using test::encode_one;
using test::representation;
using test::to_vector;

const auto kRep = representation(DataType(DataTypeKind::int32), {2000});

std::vector<std::byte> smooth_int32(size_t count) {
  std::vector<std::byte> data(count * 4);
  for (size_t i = 0; i < count; ++i) {
    int32_t v = static_cast<int32_t>(i * 3);
    std::memcpy(data.data() + 4 * i, &v, 4);
  }
  return data;
}

TEST(BloscCodec, DefaultsFollowTheDataTypeAndJsonIsExplicit) {
  auto codec = BloscCodec::create(nlohmann::json::object(), kRep);
  EXPECT_EQ(codec->to_json(),
            nlohmann::json::parse(R"({"name":"blosc","configuration":{"cname":"zstd","clevel":5,
      "shuffle":"shuffle","typesize":4,"blocksize":0}})"));
  auto bytes = BloscCodec::create(nlohmann::json::object(),
                                  representation(DataType(DataTypeKind::uint8), {10}));
  EXPECT_EQ(bytes->shuffle(), BloscCodec::Shuffle::bitshuffle);
  EXPECT_EQ(bytes->typesize(), 1);
  auto full = BloscCodec::create(
      nlohmann::json::parse(
          R"({"cname":"lz4","clevel":1,"shuffle":"noshuffle","typesize":8,"blocksize":4096})"),
      kRep);
  EXPECT_EQ(
      full->to_json()["configuration"],
      nlohmann::json::parse(
          R"({"cname":"lz4","clevel":1,"shuffle":"noshuffle","typesize":8,"blocksize":4096})"));
}

TEST(BloscCodec, BadConfigurationsNameTheField) {
  try {
    BloscCodec::create({{"cname", "snappy2"}}, kRep);
    FAIL();
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("snappy2"), std::string::npos) << e.what();
  }
  for (const auto& [bad, field] :
       {std::pair{R"({"clevel":10})", "clevel"}, std::pair{R"({"shuffle":"byte"})", "shuffle"},
        std::pair{R"({"typesize":0})", "typesize"}, std::pair{R"({"blocksize":-1})", "blocksize"},
        std::pair{R"({"cname":5})", "cname"}, std::pair{R"({"level":5})", "level"}}) {
    try {
      BloscCodec::create(nlohmann::json::parse(bad), kRep);
      FAIL() << bad;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("blosc"), std::string::npos) << e.what();
    }
  }
}

TEST(BloscCodec, HeaderRecordsTypesizeShuffleAndCompressor) {
  auto data = smooth_int32(2000);
  for (const char* cname : {"lz4", "lz4hc", "blosclz", "zstd", "zlib"}) {
    for (const char* shuffle : {"noshuffle", "shuffle", "bitshuffle"}) {
      auto codec =
          BloscCodec::create({{"cname", cname}, {"clevel", 5}, {"shuffle", shuffle}}, kRep);
      auto encoded = encode_one(*codec, Buffer::copy_of(data), kRep);
      ASSERT_TRUE(encoded.status.ok) << encoded.status.message;
      size_t typesize = 0;
      int flags = 0;
      blosc_cbuffer_metainfo(encoded.bytes.data(), &typesize, &flags);
      EXPECT_EQ(typesize, 4u);
      if (!(flags & BLOSC_MEMCPYED)) {
        EXPECT_EQ((flags & BLOSC_DOSHUFFLE) != 0, std::string(shuffle) == "shuffle")
            << cname << " " << shuffle;
        EXPECT_EQ((flags & BLOSC_DOBITSHUFFLE) != 0, std::string(shuffle) == "bitshuffle")
            << cname << " " << shuffle;
      }
      if (std::string(shuffle) != "noshuffle") {
        EXPECT_LT(encoded.bytes.size(), data.size() / 2) << cname << " " << shuffle;
      }
      // The reference library decodes it...
      std::vector<std::byte> out(data.size());
      EXPECT_EQ(blosc_decompress(encoded.bytes.data(), out.data(), out.size()),
                static_cast<int>(data.size()));
      EXPECT_EQ(out, data);
      // ...and so does the codec.
      auto decoded = decode_one(*codec, encoded.bytes, kRep);
      ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
      EXPECT_EQ(to_vector(decoded.bytes), data);
    }
  }
  auto explicit_typesize = BloscCodec::create({{"typesize", 2}}, kRep);
  auto encoded = encode_one(*explicit_typesize, Buffer::copy_of(data), kRep);
  size_t typesize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(encoded.bytes.data(), &typesize, &flags);
  EXPECT_EQ(typesize, 2u);
}

TEST(BloscCodec, EmptyAndTinyInputsRoundTrip) {
  auto codec = BloscCodec::create({{"cname", "lz4"}}, kRep);
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{17}}) {
    auto data = test::random_bytes(n, 8);
    auto encoded = encode_one(*codec, Buffer::copy_of(data), kRep);
    ASSERT_TRUE(encoded.status.ok) << encoded.status.message;
    auto decoded = decode_one(*codec, encoded.bytes, kRep);
    ASSERT_TRUE(decoded.status.ok) << n << ": " << decoded.status.message;
    EXPECT_EQ(to_vector(decoded.bytes), data);
  }
}

TEST(BloscCodec, CorruptHeadersNeverReadOutOfBounds) {
  auto codec = BloscCodec::create({{"cname", "lz4"}, {"shuffle", "shuffle"}}, kRep);
  auto data = smooth_int32(2000);
  auto good = to_vector(encode_one(*codec, Buffer::copy_of(data), kRep).bytes);
  auto set_u32 = [](std::vector<std::byte> v, size_t at, uint32_t x) {
    for (int b = 0; b < 4; ++b) v[at + b] = static_cast<std::byte>(x >> (8 * b));
    return v;
  };
  std::vector<std::pair<std::string, std::vector<std::byte> > > cases{
      {"truncated", std::vector<std::byte>(good.begin(), good.end() - 10)},
      {"header only", std::vector<std::byte>(good.begin(), good.begin() + 16)},
      {"cbytes beyond input", set_u32(good, 12, static_cast<uint32_t>(good.size() + 1000))},
      {"huge nbytes", set_u32(good, 4, 0x7FFF0000u)},
      {"blocksize zero", set_u32(good, 8, 0)},
      {"bad version",
       [&] {
         auto v = good;
         v[0] = std::byte{0xEE};
         return v;
       }()},
      {"garbage", test::random_bytes(200, 9)},
      {"short", test::random_bytes(10, 10)},
      {"empty", {}},
  };
  for (const auto& [label, bytes] : cases) {
    auto decoded = decode_one(*codec, Buffer::copy_of(bytes), kRep);
    EXPECT_FALSE(decoded.status.ok) << label;
    EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data) << label;
    EXPECT_NE(decoded.status.message.find("blosc"), std::string::npos)
        << label << ": " << decoded.status.message;
  }
}

#endif  // CUZARR_HAVE_BLOSC

}  // namespace
}  // namespace cuzarr
