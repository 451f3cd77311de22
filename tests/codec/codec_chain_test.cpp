#include "cuzarr/codec/codec_chain.hpp"

#include <gtest/gtest.h>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/transpose_codec.hpp"

namespace cuzarr::test {
namespace {

const DataType kType(DataTypeKind::int32);
const ChunkRepresentation kRep = representation(kType, {6, 4});

std::shared_ptr<CodecChain> chain_of(const char* json, const ChunkRepresentation& rep = kRep) {
  return CodecChain::create(parse_specs(nlohmann::json::parse(json)), rep);
}

void expect_invalid(const char* json, std::initializer_list<const char*> fragments) {
  try {
    chain_of(json);
    FAIL() << "accepted " << json;
  } catch (const InvalidArgumentError& e) {
    for (const char* f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << " lacks " << f;
  }
}

TEST(CodecChain, ValidatesTheOrderAndNamesCodecAndPosition) {
  expect_invalid(R"([{"name":"gzip"},{"name":"bytes","configuration":{"endian":"little"}}])",
                 {"codecs[0]", "\"gzip\"", "before the array -> bytes"});
  expect_invalid(
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"transpose","configuration":{"order":[1,0]}}])",
      {"codecs[1]", "\"transpose\"", "after the array -> bytes"});
  expect_invalid(
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"bytes","configuration":{"endian":"big"}}])",
      {"codecs[1]", "second"});
  expect_invalid(R"([{"name":"transpose","configuration":{"order":[1,0]}}])",
                 {"no array -> bytes"});
  expect_invalid(R"([])", {"no array -> bytes"});
  // Errors from a codec's configuration get the position prepended.
  expect_invalid(R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes"}])",
                 {"codecs[1]", "\"bytes\"", "\"endian\""});
  try {
    chain_of(R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"lzma"}])");
    FAIL();
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("codecs[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"lzma\""), std::string::npos) << e.what();
  }
}

TEST(CodecChain, TracksTheRepresentationThroughArrayToArrayCodecs) {
  auto chain = chain_of(
      R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}])");
  ASSERT_EQ(chain->array_to_array().size(), 1u);
  EXPECT_EQ(chain->array_to_array()[0]->encoded_representation(kRep).shape, (Shape{4, 6}));
  EXPECT_EQ(chain->array_to_bytes()->name(), "bytes");
  ASSERT_EQ(chain->bytes_to_bytes().size(), 1u);
  EXPECT_EQ(chain->to_json(),
            nlohmann::json::parse(R"([{"name":"transpose","configuration":{"order":[1,0]}},
      {"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}])"));
  // to_json() resolves back into the same chain.
  EXPECT_EQ(CodecChain::create(parse_specs(chain->to_json()), kRep)->to_json(), chain->to_json());
}

TEST(CodecChain, FixedEncodedSize) {
  EXPECT_EQ(chain_of(R"([{"name":"bytes","configuration":{"endian":"little"}}])")
                ->fixed_encoded_size(kRep),
            96);
  EXPECT_EQ(
      chain_of(
          R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}},
                         {"name":"crc32c"},{"name":"crc32c"}])")
          ->fixed_encoded_size(kRep),
      104);
  EXPECT_EQ(
      chain_of(
          R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"},{"name":"gzip"}])")
          ->fixed_encoded_size(kRep),
      std::nullopt);
  EXPECT_EQ(
      chain_of(
          R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"},{"name":"crc32c"}])")
          ->fixed_encoded_size(kRep),
      std::nullopt);
}

TEST(CodecChain, BatchesOfZeroAndOne) {
  auto chain = chain_of(
      R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}])");
  std::vector<NDBuffer> none_in;
  std::vector<Buffer> none_out;
  std::vector<ChunkStatus> none_status;
  chain->encode(none_in, none_out, none_status);
  std::vector<NDBuffer> none_decoded;
  chain->decode(none_out, none_decoded, none_status);

  std::vector<NDBuffer> one{make_array(kType, {6, 4}, 5)};
  std::vector<Buffer> encoded(1);
  std::vector<ChunkStatus> status(1);
  chain->encode(one, encoded, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  std::vector<NDBuffer> decoded(1);
  chain->decode(encoded, decoded, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  EXPECT_TRUE(same_elements(decoded[0], one[0]));

  // Mismatched batch sizes are a programming error.
  std::vector<Buffer> two(2);
  EXPECT_THROW(chain->encode(one, two, status), InvalidArgumentError);
}

TEST(CodecChain, ChunksThatFailedBeforeAreSkippedAndOthersAreUnaffected) {
  auto chain = chain_of(
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"},{"name":"gzip"}])");
  std::vector<NDBuffer> arrays{make_array(kType, {6, 4}, 1), make_array(kType, {6, 4}, 2),
                               make_array(kType, {6, 4}, 3)};
  std::vector<Buffer> encoded(3);
  std::vector<ChunkStatus> status(3);
  status[0].fail(ErrorCode::not_found, "earlier failure");
  chain->encode(arrays, encoded, status);
  EXPECT_EQ(status[0].message, "earlier failure");
  EXPECT_TRUE(encoded[0].empty());
  EXPECT_TRUE(status[1].ok && status[2].ok);

  // A chunk with the wrong shape fails alone.
  arrays[2] = make_array(kType, {4, 6}, 3);
  status.assign(3, {});
  chain->encode(arrays, encoded, status);
  EXPECT_TRUE(status[0].ok && status[1].ok);
  EXPECT_FALSE(status[2].ok);
  EXPECT_EQ(status[2].code, ErrorCode::invalid_argument);

  std::vector<NDBuffer> decoded(3);
  std::vector<ChunkStatus> decode_status(3);
  decode_status[2].fail(ErrorCode::not_found, "missing");
  chain->decode(encoded, decoded, decode_status);
  EXPECT_TRUE(decode_status[0].ok && decode_status[1].ok);
  EXPECT_EQ(decode_status[2].message, "missing");
  EXPECT_TRUE(same_elements(decoded[1], arrays[1]));
}

TEST(CodecChain, DecodeIntoProvidedArraysThroughTransposeNeedsNoExtraCopy) {
  auto chain = chain_of(
      R"([{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}}])");
  std::vector<NDBuffer> arrays{make_array(kType, {6, 4}, 8)};
  std::vector<Buffer> encoded(1);
  std::vector<ChunkStatus> status(1);
  chain->encode(arrays, encoded, status);
  ASSERT_TRUE(status[0].ok);
  NDBuffer target = NDBuffer::allocate(kType, {6, 4});
  std::vector<NDBuffer> out{target};
  chain->decode(encoded, out, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  EXPECT_EQ(out[0].data(), target.data());
  EXPECT_EQ(out[0].byte_strides(), target.byte_strides());
  EXPECT_TRUE(same_elements(target, arrays[0]));
  // A target of another shape is replaced, not written.
  NDBuffer wrong = NDBuffer::allocate(kType, {4, 6});
  out = {wrong};
  chain->decode(encoded, out, status);
  ASSERT_TRUE(status[0].ok);
  EXPECT_NE(out[0].data(), wrong.data());
  EXPECT_TRUE(same_elements(out[0], arrays[0]));
}

}  // namespace
}  // namespace cuzarr::test
