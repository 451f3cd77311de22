#include "cuzarr/codec/transpose_codec.hpp"

#include <gtest/gtest.h>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/codec_chain.hpp"

namespace cuzarr {
namespace {

using test::representation;

TEST(TransposeCodec, EncodedRepresentationPermutesTheShape) {
  auto rep = representation(DataType(DataTypeKind::int32), {2, 3, 4});
  auto codec = TransposeCodec::create({{"order", {2, 0, 1}}}, rep);
  EXPECT_EQ(codec->encoded_representation(rep).shape, (Shape{4, 2, 3}));
  EXPECT_EQ(codec->inverse_order(), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(codec->to_json(),
            nlohmann::json::parse(R"({"name":"transpose","configuration":{"order":[2,0,1]}})"));
}

TEST(TransposeCodec, EncodeAndDecodeAreViews) {
  const DataType dtype(DataTypeKind::uint16);
  auto rep = representation(dtype, {3, 4});
  auto codec = TransposeCodec::create({{"order", {1, 0}}}, rep);
  std::vector<NDBuffer> in{test::make_array(dtype, {3, 4}, 1)};
  std::vector<NDBuffer> encoded(1), decoded(1);
  std::vector<ChunkStatus> status(1);
  codec->encode(in, encoded, rep, status);
  ASSERT_TRUE(status[0].ok);
  EXPECT_EQ(encoded[0].data(), in[0].data());
  EXPECT_EQ(encoded[0].shape(), (Shape{4, 3}));
  codec->decode(encoded, decoded, rep, status);
  ASSERT_TRUE(status[0].ok);
  EXPECT_EQ(decoded[0].data(), in[0].data());
  EXPECT_TRUE(decoded[0].is_c_contiguous());
  EXPECT_TRUE(test::same_elements(decoded[0], in[0]));
}

TEST(TransposeCodec, ChainWritesTheTransposedCOrder) {
  // [transpose, bytes] must write exactly a manual transposition in C order.
  const DataType dtype(DataTypeKind::int16);
  const Shape shape{2, 3, 5};
  auto rep = representation(dtype, shape);
  NDBuffer a = NDBuffer::allocate(dtype, shape);
  for (int16_t i = 0; i < 30; ++i) a.data_as<int16_t>()[i] = i;
  auto chain = CodecChain::create(
      test::parse_specs(nlohmann::json::parse(
          R"([{"name":"transpose","configuration":{"order":[2,0,1]}},{"name":"bytes","configuration":{"endian":"little"}}])")),
      rep);
  std::vector<NDBuffer> in{a};
  std::vector<Buffer> out(1);
  std::vector<ChunkStatus> status(1);
  chain->encode(in, out, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  // Encoded dims (k, i, j) with a[i][j][k] = 15 i + 5 j + k.
  std::vector<int16_t> expected;
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) expected.push_back(static_cast<int16_t>(15 * i + 5 * j + k));
  ASSERT_EQ(out[0].size(), expected.size() * 2);
  EXPECT_EQ(std::memcmp(out[0].data(), expected.data(), out[0].size()), 0);
}

TEST(TransposeCodec, RejectsOrdersThatAreNotPermutationsOfTheRank) {
  auto rep = representation(DataType(DataTypeKind::int32), {2, 3});
  for (const char* bad :
       {R"({"order":[0,0]})", R"({"order":[0,2]})", R"({"order":[0]})", R"({"order":[1,0,2]})",
        R"({"order":[-1,0]})", R"({"order":"X"})", R"({"order":[0.5,1]})", R"({})"}) {
    try {
      TransposeCodec::create(nlohmann::json::parse(bad), rep);
      FAIL() << bad;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("\"order\""), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("transpose"), std::string::npos) << e.what();
    }
  }
  // The early "C"/"F" spellings.
  EXPECT_EQ(TransposeCodec::create({{"order", "F"}}, rep)->order(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(TransposeCodec::create({{"order", "C"}}, rep)->order(), (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace cuzarr
