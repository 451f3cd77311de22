#include "cuzarr/codec/vlen_codec.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/interned_bytes.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

std::vector<std::byte> empty_fill() { return std::vector<std::byte>(sizeof(VariableLengthValue)); }

ChunkRepresentation string_rep(Shape shape, DataTypeKind kind = DataTypeKind::string) {
  return {std::move(shape), DataType(kind), empty_fill()};
}

Buffer bytes_of(std::string_view text) { return Buffer::copy_of(text); }

struct Decoded {
  ChunkStatus status;
  NDBuffer array;
};

Decoded decode_one(const ArrayToBytesCodec& codec, const Buffer& in, const ChunkRepresentation& rep,
                   NDBuffer target = {}) {
  std::vector<Buffer> ins{in};
  std::vector<NDBuffer> outs{std::move(target)};
  std::vector<ChunkStatus> status(1);
  codec.decode(ins, outs, rep, status);
  return {status[0], outs[0]};
}

Buffer encode_one(const ArrayToBytesCodec& codec, const NDBuffer& in,
                  const ChunkRepresentation& rep) {
  std::vector<NDBuffer> ins{in};
  std::vector<Buffer> outs(1);
  std::vector<ChunkStatus> status(1);
  codec.encode(ins, outs, rep, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return outs[0];
}

// numcodecs.VLenUTF8().encode(np.array(["a", "é", ""], dtype=object)).
const std::string kNumcodecsUtf8(
    "\x03\x00\x00\x00\x01\x00\x00\x00"
    "a"
    "\x02\x00\x00\x00\xc3\xa9\x00\x00\x00\x00",
    19);

TEST(VlenCodec, EncodesLikeNumcodecs) {
  const auto rep = string_rep({3});
  const VlenCodec codec(VlenCodec::Flavor::utf8);
  const Buffer encoded =
      encode_one(codec, make_variable_length_ndbuffer({3}, {"a", "\xc3\xa9", ""}), rep);
  EXPECT_EQ(encoded.as_string_view(), kNumcodecsUtf8);
}

TEST(VlenCodec, DecodesNumcodecsBytesAndKeepsThemAlive) {
  const auto rep = string_rep({3});
  const VlenCodec codec(VlenCodec::Flavor::utf8);
  NDBuffer array;
  {
    Buffer encoded = bytes_of(kNumcodecsUtf8);
    auto decoded = decode_one(codec, encoded, rep);
    ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
    array = decoded.array;
  }  // the encoded buffer's handle is gone; the array keeps the bytes alive
  EXPECT_EQ(variable_length_to_strings(array), (std::vector<std::string>{"a", "\xc3\xa9", ""}));
}

TEST(VlenCodec, EncodesStridedViewsInCOrder) {
  const auto rep = string_rep({2, 2});
  const VlenCodec codec(VlenCodec::Flavor::bytes);
  NDBuffer source = make_variable_length_ndbuffer({2, 2}, {"a", "bb", "ccc", "dddd"},
                                                  DataType(DataTypeKind::variable_length_bytes));
  const std::array<int64_t, 2> order{1, 0};
  const Buffer encoded = encode_one(codec, source.permuted(order),
                                    string_rep({2, 2}, DataTypeKind::variable_length_bytes));
  auto back = decode_one(codec, encoded, string_rep({2, 2}, DataTypeKind::variable_length_bytes));
  ASSERT_TRUE(back.status.ok) << back.status.message;
  EXPECT_EQ(variable_length_to_strings(back.array),
            (std::vector<std::string>{"a", "ccc", "bb", "dddd"}));
  (void)rep;
}

TEST(VlenCodec, DecodesIntoAStridedTarget) {
  const auto rep = string_rep({2});
  const VlenCodec codec(VlenCodec::Flavor::utf8);
  NDBuffer out = NDBuffer::allocate(DataType(DataTypeKind::string), {4});
  const std::string two("\x02\x00\x00\x00\x01\x00\x00\x00x\x02\x00\x00\x00yz", 15);
  auto decoded = decode_one(codec, bytes_of(two), rep, out.sliced(0, 3, -2, 2));
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(variable_length_to_strings(out), (std::vector<std::string>{"", "yz", "", "x"}));
}

TEST(VlenCodec, CorruptInputFailsTheChunkWithoutReadingPastTheEnd) {
  const auto rep = string_rep({2});
  const VlenCodec codec(VlenCodec::Flavor::utf8);
  const std::pair<std::string, std::string> cases[] = {
      {std::string("\x02\x00", 2), "too short"},
      {std::string("\x03\x00\x00\x00", 4), "item count is 3"},
      {std::string("\xff\xff\xff\xff", 4), "item count is 4294967295"},
      {std::string("\x02\x00\x00\x00\x01\x00\x00\x00x", 9), "length field runs past the end"},
      {std::string("\x02\x00\x00\x00\x01\x00\x00\x00x\xff\xff\xff\x7f", 13), "runs past the end"},
      {std::string("\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00!", 13), "trailing"},
      {std::string("\x02\x00\x00\x00\x01\x00\x00\x00\xff\x00\x00\x00\x00", 13), "UTF-8"},
  };
  for (const auto& [bytes, fragment] : cases) {
    // Copy into an exactly sized buffer so that a read past the end is an out-of-bounds read.
    auto decoded = decode_one(codec, Buffer::copy_of(bytes), rep);
    EXPECT_FALSE(decoded.status.ok) << fragment;
    EXPECT_EQ(decoded.status.code, ErrorCode::corrupt_data) << fragment;
    EXPECT_NE(decoded.status.message.find(fragment), std::string::npos) << decoded.status.message;
    EXPECT_NE(decoded.status.message.find("vlen-utf8"), std::string::npos);
  }
  // vlen-bytes accepts any bytes.
  const VlenCodec bytes_codec(VlenCodec::Flavor::bytes);
  auto decoded = decode_one(bytes_codec, Buffer::copy_of(cases[6].first),
                            string_rep({2}, DataTypeKind::variable_length_bytes));
  EXPECT_TRUE(decoded.status.ok) << decoded.status.message;
}

TEST(VlenCodec, RegistryResolvesAndChecksTheDataType) {
  const auto& registry = CodecRegistry::instance();
  auto codec = registry.create(
      CodecSpec::from_json(json::parse(R"({"name":"vlen-utf8","configuration":{}})")),
      string_rep({2}));
  EXPECT_EQ(codec->to_json(), json::parse(R"({"name":"vlen-utf8","configuration":{}})"));
  EXPECT_THROW(registry.create(CodecSpec{"vlen-utf8", json::object()},
                               string_rep({2}, DataTypeKind::variable_length_bytes)),
               InvalidArgumentError);
  EXPECT_THROW(registry.create(CodecSpec{"vlen-bytes", json::object()},
                               ChunkRepresentation{
                                   {2}, DataType(DataTypeKind::int32), std::vector<std::byte>(4)}),
               InvalidArgumentError);
  EXPECT_THROW(registry.create(CodecSpec{"vlen-utf8", json{{"x", 1}}}, string_rep({2})),
               InvalidArgumentError);
}

TEST(BytesCodec, RefusesVariableLengthTypes) {
  try {
    CodecRegistry::instance().create(CodecSpec{"bytes", json{{"endian", "little"}}},
                                     string_rep({2}));
    FAIL() << "bytes accepted a string data type";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("vlen-utf8"), std::string::npos) << e.what();
  }
}

TEST(BytesCodec, SwapsUtf32UnitsAndLeavesByteStringsAlone) {
  const auto u2 = DataType::fixed_length(DataTypeKind::fixed_length_utf32, 8);
  ChunkRepresentation rep{{1}, u2, std::vector<std::byte>(8)};
  auto codec = std::dynamic_pointer_cast<ArrayToBytesCodec>(
      CodecRegistry::instance().create(CodecSpec{"bytes", json{{"endian", "big"}}}, rep));
  NDBuffer in = NDBuffer::allocate(u2, {1});
  const uint32_t units[2] = {0x41, 0xE9};
  std::memcpy(in.data(), units, 8);
  const Buffer out = encode_one(*codec, in, rep);
  EXPECT_EQ(out.as_string_view(), std::string("\x00\x00\x00\x41\x00\x00\x00\xe9", 8));

  const auto s3 = DataType::fixed_length(DataTypeKind::null_terminated_bytes, 3);
  ChunkRepresentation srep{{1}, s3, std::vector<std::byte>(3)};
  auto scodec = std::dynamic_pointer_cast<ArrayToBytesCodec>(
      CodecRegistry::instance().create(CodecSpec{"bytes", json::object()}, srep));
  NDBuffer sin = NDBuffer::allocate(s3, {1});
  std::memcpy(sin.data(), "abc", 3);
  EXPECT_EQ(encode_one(*scodec, sin, srep).as_string_view(), "abc");
}

TEST(VlenCodec, WorksAsTheInnerCodecOfSharding) {
  ChunkRepresentation shard{{4}, DataType(DataTypeKind::string), empty_fill()};
  shard.fill_value.assign(sizeof(VariableLengthValue), std::byte{0});
  const auto fill = intern_bytes("-");
  std::memcpy(shard.fill_value.data(), &fill, sizeof fill);
  const auto spec = CodecSpec::from_json(json::parse(R"({"name":"sharding_indexed","configuration":{
      "chunk_shape":[2],"codecs":[{"name":"vlen-utf8","configuration":{}},{"name":"zstd","configuration":{"level":0,"checksum":false}}],
      "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],
      "index_location":"end"}})"));
  const std::vector<CodecSpec> specs{spec};
  auto chain = CodecChain::create(specs, shard);
  // The first inner chunk holds only the fill value "-" (by content): it is not stored.
  NDBuffer in = make_variable_length_ndbuffer({4}, {"-", "-", "long value", ""});
  const Buffer encoded = encode_one(*chain, in, shard);
  // Index: 2 entries of 16 bytes + crc32c; the first entry is empty (all ones).
  ASSERT_GE(encoded.size(), 36u);
  const std::byte* index = encoded.data() + encoded.size() - 36;
  for (int k = 0; k < 16; ++k) EXPECT_EQ(index[k], std::byte{0xff});
  auto decoded = decode_one(*chain, encoded, shard);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  EXPECT_EQ(variable_length_to_strings(decoded.array),
            (std::vector<std::string>{"-", "-", "long value", ""}));
}

TEST(VlenCodec, FollowsTranspose) {
  const ChunkRepresentation rep = string_rep({2, 3});
  const std::vector<CodecSpec> specs{
      CodecSpec::from_json(json::parse(R"({"name":"transpose","configuration":{"order":[1,0]}})")),
      CodecSpec{"vlen-utf8", json::object()}};
  auto chain = CodecChain::create(specs, rep);
  const NDBuffer in = make_variable_length_ndbuffer({2, 3}, {"a", "b", "c", "d", "e", "f"});
  const Buffer encoded = encode_one(*chain, in, rep);
  // Stored in the transposed (column-major) order.
  auto flat = decode_one(VlenCodec(VlenCodec::Flavor::utf8), encoded, string_rep({6}));
  ASSERT_TRUE(flat.status.ok) << flat.status.message;
  EXPECT_EQ(variable_length_to_strings(flat.array),
            (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
  auto back = decode_one(*chain, encoded, rep);
  ASSERT_TRUE(back.status.ok) << back.status.message;
  EXPECT_EQ(variable_length_to_strings(back.array),
            (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
}

}  // namespace
}  // namespace cuzarr
