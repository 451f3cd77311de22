#include "cuzarr/codec/sharding_codec.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

// Reference CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit, to check the
// stored checksum independently of the library's implementation.
uint32_t reference_crc32c(std::span<const std::byte> data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (std::byte b : data) {
    crc ^= static_cast<uint32_t>(b);
    for (int k = 0; k < 8; ++k) crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return ~crc;
}

void append_le(std::vector<uint8_t>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

std::vector<uint8_t> bytes_of(const Buffer& b) {
  std::vector<uint8_t> v(b.size());
  if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

template <class T>
std::vector<std::byte> element_bytes(T value) {
  std::vector<std::byte> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

template <class T>
ChunkRepresentation representation(Shape shape, DataTypeKind kind, T fill) {
  return {std::move(shape), DataType(kind), element_bytes(fill)};
}

template <class T>
NDBuffer make_array(DataTypeKind kind, const Shape& shape, const std::vector<T>& values) {
  NDBuffer a = NDBuffer::allocate(DataType(kind), shape);
  EXPECT_EQ(static_cast<size_t>(a.size()), values.size());
  std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

// The elements of `a` (any strides) in C order.
template <class T>
std::vector<T> values_of(const NDBuffer& a) {
  NDBuffer dense = NDBuffer::allocate(a.dtype(), a.shape());
  dense.assign(a);
  std::vector<T> v(static_cast<size_t>(a.size()));
  std::memcpy(v.data(), dense.data(), v.size() * sizeof(T));
  return v;
}

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kCrc = {{"name", "crc32c"}};

Buffer encode_one(const ShardingCodec& codec, const NDBuffer& shard,
                  const ChunkRepresentation& rep) {
  const NDBuffer in[1] = {shard};
  Buffer out[1];
  ChunkStatus status[1];
  codec.encode(in, out, rep, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return out[0];
}

NDBuffer decode_one(const ShardingCodec& codec, const Buffer& encoded,
                    const ChunkRepresentation& rep) {
  const Buffer in[1] = {encoded};
  NDBuffer out[1];
  ChunkStatus status[1];
  codec.decode(in, out, rep, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return out[0];
}

ChunkStatus decode_status(const ShardingCodec& codec, const Buffer& encoded,
                          const ChunkRepresentation& rep) {
  const Buffer in[1] = {encoded};
  NDBuffer out[1];
  ChunkStatus status[1];
  codec.decode(in, out, rep, status);
  return status[0];
}

Buffer with_byte_flipped(const Buffer& b, size_t position) {
  Buffer copy = Buffer::copy_of(b.bytes());
  copy.data()[position] ^= std::byte{0x5a};
  return copy;
}

// Expects `f` to throw E whose message contains every one of `parts`.
template <class E, class F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL() << "expected an exception";
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << message << " lacks " << part;
  }
}

// --- The binary format, checked against hand-built shards ------------------------------------

TEST(ShardingCodec, ByteLayoutWithIndexAtEndAndChecksum) {
  // Shard [4] uint16 of inner chunks [2]; inner chunk 0 holds only the fill value.
  const auto rep = representation<uint16_t>({4}, DataTypeKind::uint16, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2}},
                                            {"codecs", {kBytes}},
                                            {"index_codecs", {kBytes, kCrc}},
                                            {"index_location", "end"}},
                                           rep);
  const Buffer encoded = encode_one(
      *codec, make_array<uint16_t>(DataTypeKind::uint16, {4}, {0, 0, 0x0102, 0x0304}), rep);

  // Sharding spec, "Binary shard format": chunk data, then the index of (offset, nbytes) pairs as
  // little-endian uint64 in C order of the inner chunk grid (2^64-1 twice for an empty chunk),
  // then (index_codecs with crc32c) the CRC-32C of the index bytes as a little-endian uint32.
  std::vector<uint8_t> expected = {0x02, 0x01, 0x04, 0x03};
  std::vector<uint8_t> index;
  append_le(index, ~uint64_t{0}, 8);
  append_le(index, ~uint64_t{0}, 8);
  append_le(index, 0, 8);
  append_le(index, 4, 8);
  const uint32_t crc = reference_crc32c(std::as_bytes(std::span(index)));
  expected.insert(expected.end(), index.begin(), index.end());
  append_le(expected, crc, 4);
  EXPECT_EQ(bytes_of(encoded), expected);
  EXPECT_EQ(codec->index_encoded_size(), 36);

  // And the hand-built shard decodes.
  EXPECT_EQ(values_of<uint16_t>(
                decode_one(*codec, Buffer::copy_of(std::as_bytes(std::span(expected))), rep)),
            (std::vector<uint16_t>{0, 0, 0x0102, 0x0304}));
}

TEST(ShardingCodec, ByteLayoutWithIndexAtStartIsCOrderOfTheGrid) {
  // Shard [2, 4] uint8, inner chunks [1, 2]: a 2 x 2 grid; chunks (0, 1) and (1, 0) are empty.
  const auto rep = representation<uint8_t>({2, 4}, DataTypeKind::uint8, 9);
  const auto codec = ShardingCodec::create({{"chunk_shape", {1, 2}},
                                            {"codecs", {kBytes}},
                                            {"index_codecs", {kBytes}},
                                            {"index_location", "start"}},
                                           rep);
  const Buffer encoded = encode_one(
      *codec, make_array<uint8_t>(DataTypeKind::uint8, {2, 4}, {1, 2, 9, 9, 9, 9, 3, 4}), rep);

  const uint64_t index_size = 4 * 16;
  std::vector<uint8_t> expected;
  append_le(expected, index_size, 8);  // (0, 0): right after the index
  append_le(expected, 2, 8);
  append_le(expected, ~uint64_t{0}, 8);  // (0, 1): empty
  append_le(expected, ~uint64_t{0}, 8);
  append_le(expected, ~uint64_t{0}, 8);  // (1, 0): empty
  append_le(expected, ~uint64_t{0}, 8);
  append_le(expected, index_size + 2, 8);  // (1, 1)
  append_le(expected, 2, 8);
  expected.insert(expected.end(), {1, 2, 3, 4});
  EXPECT_EQ(bytes_of(encoded), expected);
  EXPECT_EQ(codec->index_encoded_size(), 64);

  // A hand-built shard with another chunk order and a gap decodes too (any layout is valid).
  std::vector<uint8_t> reordered;
  append_le(reordered, index_size + 3, 8);  // (0, 0) after a one-byte gap and (1, 1)
  append_le(reordered, 2, 8);
  append_le(reordered, ~uint64_t{0}, 8);
  append_le(reordered, ~uint64_t{0}, 8);
  append_le(reordered, ~uint64_t{0}, 8);
  append_le(reordered, ~uint64_t{0}, 8);
  append_le(reordered, index_size, 8);
  append_le(reordered, 2, 8);
  reordered.insert(reordered.end(), {3, 4, 0xEE, 1, 2});
  EXPECT_EQ(values_of<uint8_t>(
                decode_one(*codec, Buffer::copy_of(std::as_bytes(std::span(reordered))), rep)),
            (std::vector<uint8_t>{1, 2, 9, 9, 9, 9, 3, 4}));
}

// --- Round trips --------------------------------------------------------------------------------

std::vector<int32_t> pattern_with_empty_chunks(const Shape& shard, const Shape& inner,
                                               int32_t fill) {
  // Inner chunks whose linear grid index is a multiple of 3 hold only the fill value.
  std::vector<int32_t> v(static_cast<size_t>(element_count(shard)));
  for (size_t i = 0; i < v.size(); ++i) {
    size_t rest = i, chunk = 0;
    Index coords(shard.size());
    for (size_t d = shard.size(); d-- > 0;) {
      coords[d] = static_cast<int64_t>(rest % static_cast<size_t>(shard[d]));
      rest /= static_cast<size_t>(shard[d]);
    }
    for (size_t d = 0; d < shard.size(); ++d) {
      chunk = chunk * static_cast<size_t>(shard[d] / inner[d]) +
              static_cast<size_t>(coords[d] / inner[d]);
    }
    v[i] = chunk % 3 == 0 ? fill : static_cast<int32_t>(i * 7919 % 1000) - 500;
  }
  return v;
}

class ShardingRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(ShardingRoundTrip, RoundTripsAndPlacesTheIndex) {
  const Shape shard{4, 6, 8}, inner{2, 3, 4};
  const auto rep = representation<int32_t>(shard, DataTypeKind::int32, 7);
  const auto codec = ShardingCodec::create({{"chunk_shape", inner},
                                            {"codecs", {kBytes}},
                                            {"index_codecs", {kBytes, kCrc}},
                                            {"index_location", GetParam()}},
                                           rep);
  const auto values = pattern_with_empty_chunks(shard, inner, 7);
  const Buffer encoded = encode_one(*codec, make_array(DataTypeKind::int32, shard, values), rep);
  // 8 inner chunks, 3 of them (linear 0, 3, 6) empty: 5 stored chunks of 24 int32.
  const int64_t index_size = 8 * 16 + 4;
  EXPECT_EQ(codec->index_encoded_size(), index_size);
  EXPECT_EQ(static_cast<int64_t>(encoded.size()), index_size + 5 * 24 * 4);
  EXPECT_EQ(values_of<int32_t>(decode_one(*codec, encoded, rep)), values);

  // The index is read where index_byte_range() says.
  const ByteRange range = codec->index_byte_range();
  uint64_t begin = 0, end = 0;
  range.resolve(encoded.size(), begin, end);
  if (GetParam() == "start") {
    EXPECT_EQ(range.kind, ByteRange::Kind::range);
    EXPECT_EQ(begin, 0u);
  } else {
    EXPECT_EQ(range.kind, ByteRange::Kind::suffix);
    EXPECT_EQ(end, encoded.size());
  }
  ASSERT_EQ(end - begin, static_cast<uint64_t>(index_size));
  const ShardIndex index =
      codec->decode_index(encoded.slice(begin, end - begin), encoded.size(), "a/c/0/0/0");
  EXPECT_EQ(index.grid, (Shape{2, 2, 2}));
  for (size_t j = 0; j < 8; ++j) {
    EXPECT_EQ(index.is_empty(j), j % 3 == 0) << j;
    if (!index.is_empty(j)) {
      EXPECT_EQ(index.nbytes[j], 96u);
    }
  }
  EXPECT_TRUE(index.is_empty(index.linear_index(Index{0, 1, 1})));  // linear 3
  EXPECT_TRUE(index.is_empty(index.linear_index(Index{1, 1, 0})));  // linear 6
  // A stored inner chunk decodes alone from its byte range (a partial read).
  const size_t m = index.linear_index(Index{1, 0, 1});  // linear 5
  const Buffer chunk_bytes = encoded.slice(index.offsets[m], index.nbytes[m]);
  const Buffer chunk_in[1] = {chunk_bytes};
  NDBuffer chunk_out[1];
  ChunkStatus chunk_status[1];
  codec->inner_chain().decode(chunk_in, chunk_out, chunk_status);
  ASSERT_TRUE(chunk_status[0].ok) << chunk_status[0].message;
  const NDBuffer expected_chunk = make_array(DataTypeKind::int32, shard, values)
                                      .sliced(0, 2, 1, 2)
                                      .sliced(1, 0, 1, 3)
                                      .sliced(2, 4, 1, 4);
  EXPECT_EQ(values_of<int32_t>(chunk_out[0]), values_of<int32_t>(expected_chunk));
}

INSTANTIATE_TEST_SUITE_P(IndexLocation, ShardingRoundTrip, ::testing::Values("start", "end"));

TEST(ShardingCodec, EmptyInnerChunksAreNotStored) {
  const auto rep = representation<uint32_t>({8}, DataTypeKind::uint32, 5);
  const auto codec = ShardingCodec::create(
      {{"chunk_shape", {2}}, {"codecs", {kBytes}}, {"index_codecs", {kBytes}}}, rep);
  std::vector<uint32_t> values(8, 5);
  values[3] = 1;  // only inner chunk 1 differs from the fill value
  const Buffer encoded = encode_one(*codec, make_array(DataTypeKind::uint32, {8}, values), rep);
  EXPECT_EQ(encoded.size(), 4u * 16 + 2 * 4);
  EXPECT_EQ(values_of<uint32_t>(decode_one(*codec, encoded, rep)), values);
}

TEST(ShardingCodec, AllEmptyShardEncodesToNothingAndDecodesToFill) {
  const auto rep = representation<uint32_t>({4, 4}, DataTypeKind::uint32, 0xABCD);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2, 2}}}, rep);
  const Buffer encoded = encode_one(
      *codec, make_array(DataTypeKind::uint32, {4, 4}, std::vector<uint32_t>(16, 0xABCD)), rep);
  EXPECT_EQ(encoded.size(), 0u);
  EXPECT_EQ(values_of<uint32_t>(decode_one(*codec, Buffer(), rep)),
            std::vector<uint32_t>(16, 0xABCD));
}

TEST(ShardingCodec, FillValueComparisonIsBytewise) {
  // A NaN fill value: chunks of that same NaN are empty, although NaN != NaN as numbers; -0.0 is
  // not the fill value 0.0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto nan_rep = representation<float>({4}, DataTypeKind::float32, nan);
  const auto nan_codec = ShardingCodec::create({{"chunk_shape", {2}}}, nan_rep);
  EXPECT_EQ(encode_one(*nan_codec,
                       make_array<float>(DataTypeKind::float32, {4}, {nan, nan, nan, nan}), nan_rep)
                .size(),
            0u);

  const auto zero_rep = representation<float>({4}, DataTypeKind::float32, 0.0f);
  const auto zero_codec = ShardingCodec::create(
      {{"chunk_shape", {2}}, {"codecs", {kBytes}}, {"index_codecs", {kBytes}}}, zero_rep);
  const Buffer encoded = encode_one(
      *zero_codec, make_array<float>(DataTypeKind::float32, {4}, {0.0f, 0.0f, 0.0f, -0.0f}),
      zero_rep);
  EXPECT_EQ(encoded.size(), 2u * 16 + 8);
  const auto decoded = values_of<float>(decode_one(*zero_codec, encoded, zero_rep));
  EXPECT_TRUE(std::signbit(decoded[3]));
}

TEST(ShardingCodec, InnerCompressionCodecsRoundTripAndShrink) {
  for (const json& compressor :
       {json{{"name", "zstd"}, {"configuration", {{"level", 3}, {"checksum", false}}}},
        json{{"name", "gzip"}, {"configuration", {{"level", 5}}}}}) {
    SCOPED_TRACE(compressor.dump());
    const Shape shard{16, 16}, inner{8, 8};
    const auto rep = representation<int32_t>(shard, DataTypeKind::int32, 0);
    const auto codec = ShardingCodec::create({{"chunk_shape", inner},
                                              {"codecs", {kBytes, compressor}},
                                              {"index_codecs", {kBytes, kCrc}}},
                                             rep);
    std::vector<int32_t> values(256);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<int32_t>(i / 16) + 1;  // compressible
    const Buffer encoded = encode_one(*codec, make_array(DataTypeKind::int32, shard, values), rep);
    EXPECT_LT(encoded.size(), 256u * 4 / 2);
    EXPECT_EQ(values_of<int32_t>(decode_one(*codec, encoded, rep)), values);
    EXPECT_EQ(codec->to_json()["configuration"]["codecs"][1]["name"], compressor["name"]);
  }
}

TEST(ShardingCodec, NestedShardingRoundTrips) {
  // Shards [8, 8] of inner shards [4, 4] of inner chunks [2, 2].
  const auto rep = representation<uint16_t>({8, 8}, DataTypeKind::uint16, 0);
  const json nested = {{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", {2, 2}},
                         {"codecs", {kBytes}},
                         {"index_codecs", {kBytes, kCrc}},
                         {"index_location", "start"}}}};
  const auto codec = ShardingCodec::create(
      {{"chunk_shape", {4, 4}}, {"codecs", {nested}}, {"index_codecs", {kBytes, kCrc}}}, rep);
  ASSERT_EQ(codec->inner_chain().array_to_bytes()->name(), "sharding_indexed");

  std::vector<uint16_t> values(64, 0);
  values[0] = 11;   // inner shard (0, 0), its chunk (0, 0)
  values[63] = 22;  // inner shard (1, 1), its chunk (1, 1)
  const Buffer encoded = encode_one(*codec, make_array(DataTypeKind::uint16, {8, 8}, values), rep);
  // Two stored inner shards, each: its 4-entry index + crc, and one 2x2 uint16 chunk.
  const size_t inner_shard = 4 * 16 + 4 + 8;
  EXPECT_EQ(encoded.size(), (4 * 16 + 4) + 2 * inner_shard);
  EXPECT_EQ(values_of<uint16_t>(decode_one(*codec, encoded, rep)), values);

  const json j = codec->to_json();
  EXPECT_EQ(j["configuration"]["codecs"][0]["name"], "sharding_indexed");
  EXPECT_EQ(j["configuration"]["codecs"][0]["configuration"]["index_location"], "start");
  EXPECT_EQ(j["configuration"]["codecs"][0]["configuration"]["chunk_shape"], json({2, 2}));
}

TEST(ShardingCodec, RegistryCreatesTheCodec) {
  const auto rep = representation<uint8_t>({4}, DataTypeKind::uint8, 0);
  const auto codec = CodecRegistry::instance().create(
      CodecSpec{"sharding_indexed",
                {{"chunk_shape", {2}}, {"codecs", {kBytes}}, {"index_codecs", {kBytes}}}},
      rep);
  ASSERT_NE(std::dynamic_pointer_cast<ShardingCodec>(codec), nullptr);
  EXPECT_EQ(codec->name(), "sharding_indexed");
}

TEST(ShardingCodec, BatchOfShardsAndDecodeIntoGivenArrays) {
  const auto rep = representation<int16_t>({2, 4}, DataTypeKind::int16, -1);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2, 2}}}, rep);
  // Shard 0 is a strided view (columns 0..3 of every other row of a 4 x 4 array); shard 1 is all
  // fill value; shard 2 is contiguous.
  std::vector<int16_t> big(16);
  std::iota(big.begin(), big.end(), int16_t{100});
  const NDBuffer strided = make_array(DataTypeKind::int16, {4, 4}, big).sliced(0, 0, 2, 2);
  const NDBuffer in[3] = {
      strided, make_array(DataTypeKind::int16, {2, 4}, std::vector<int16_t>(8, -1)),
      make_array<int16_t>(DataTypeKind::int16, {2, 4}, {1, 2, -1, -1, 3, 4, -1, -1})};
  Buffer encoded[3];
  ChunkStatus status[3];
  codec->encode(in, encoded, rep, status);
  for (const auto& s : status) ASSERT_TRUE(s.ok) << s.message;
  EXPECT_GT(encoded[0].size(), 0u);
  EXPECT_EQ(encoded[1].size(), 0u);
  EXPECT_EQ(encoded[2].size(), static_cast<size_t>(codec->index_encoded_size()) + 8);

  // Decode into views of a caller's array (reversed rows of a 6 x 4 array) and a fresh array.
  NDBuffer target = NDBuffer::allocate(DataType(DataTypeKind::int16), {6, 4});
  target.fill(element_bytes<int16_t>(0));
  NDBuffer out[3] = {target.sliced(0, 5, -1, 2), target.sliced(0, 3, -1, 2), NDBuffer()};
  const NDBuffer given0 = out[0];
  ChunkStatus decode_status_[3];
  codec->decode(encoded, out, rep, decode_status_);
  for (const auto& s : decode_status_) ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(out[0].data(), given0.data());  // decoded in place
  EXPECT_EQ(values_of<int16_t>(given0), values_of<int16_t>(strided));
  EXPECT_EQ(values_of<int16_t>(target.sliced(0, 3, -1, 2)), std::vector<int16_t>(8, -1));
  EXPECT_EQ(values_of<int16_t>(out[2]), (std::vector<int16_t>{1, 2, -1, -1, 3, 4, -1, -1}));
  EXPECT_EQ(values_of<int16_t>(target.sliced(0, 0, 1, 2)),
            std::vector<int16_t>(8, 0));  // untouched rows
}

TEST(ShardingCodec, ZeroDimensionalShard) {
  const auto rep = representation<int64_t>({}, DataTypeKind::int64, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", json::array()}}, rep);
  EXPECT_EQ(codec->index_encoded_size(), 16 + 4);
  const Buffer encoded =
      encode_one(*codec, make_array<int64_t>(DataTypeKind::int64, {}, {-42}), rep);
  EXPECT_EQ(encoded.size(), 8u + 20u);
  EXPECT_EQ(values_of<int64_t>(decode_one(*codec, encoded, rep)), std::vector<int64_t>{-42});
}

// --- Corrupt shards ------------------------------------------------------------------------------

TEST(ShardingCodec, CorruptIndexWithChecksumIsCorruptData) {
  const auto rep = representation<uint8_t>({4}, DataTypeKind::uint8, 0);
  const auto codec = ShardingCodec::create(
      {{"chunk_shape", {2}}, {"codecs", {kBytes}}, {"index_codecs", {kBytes, kCrc}}}, rep);
  const Buffer encoded =
      encode_one(*codec, make_array<uint8_t>(DataTypeKind::uint8, {4}, {1, 2, 3, 4}), rep);
  const size_t index_at = encoded.size() - static_cast<size_t>(codec->index_encoded_size());
  const Buffer corrupt = with_byte_flipped(encoded, index_at + 3);
  expect_error<CorruptDataError>(
      [&] {
        codec->decode_index(
            corrupt.slice(index_at, static_cast<size_t>(codec->index_encoded_size())),
            corrupt.size(), "arr/c/0");
      },
      {"arr/c/0", "index"});
  const ChunkStatus status = decode_status(*codec, corrupt, rep);
  EXPECT_FALSE(status.ok);
  EXPECT_EQ(status.code, ErrorCode::corrupt_data);
  EXPECT_NE(status.message.find("index"), std::string::npos) << status.message;
}

TEST(ShardingCodec, CorruptIndexWithoutChecksumIsCaughtByValidation) {
  const auto rep = representation<uint8_t>({4}, DataTypeKind::uint8, 0);
  const auto codec = ShardingCodec::create(
      {{"chunk_shape", {2}}, {"codecs", {kBytes}}, {"index_codecs", {kBytes}}}, rep);
  EXPECT_EQ(codec->index_encoded_size(), 32);
  const Buffer encoded =
      encode_one(*codec, make_array<uint8_t>(DataTypeKind::uint8, {4}, {1, 2, 3, 4}), rep);
  // Make the nbytes of inner chunk 1 huge (its most significant byte).
  const Buffer corrupt = with_byte_flipped(encoded, 4 + 16 + 8 + 7);
  const ChunkStatus status = decode_status(*codec, corrupt, rep);
  EXPECT_FALSE(status.ok);
  EXPECT_EQ(status.code, ErrorCode::corrupt_data);
  EXPECT_NE(status.message.find("[1]"), std::string::npos) << status.message;
  expect_error<CorruptDataError>(
      [&] { codec->decode_index(corrupt.slice(4, 32), corrupt.size(), "k/0"); }, {"k/0", "[1]"});
}

TEST(ShardingCodec, DecodeIndexChecksLengths) {
  const auto rep = representation<uint8_t>({4}, DataTypeKind::uint8, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2}}}, rep);
  const std::vector<std::byte> zeros35(35), zeros36(36);
  const Buffer short_index = Buffer::copy_of(std::span<const std::byte>(zeros35));
  expect_error<CorruptDataError>([&] { codec->decode_index(short_index, 100, "key1"); },
                                 {"key1", "35", "36"});
  const Buffer index = Buffer::copy_of(std::span<const std::byte>(zeros36));
  expect_error<CorruptDataError>([&] { codec->decode_index(index, 20, "key2"); }, {"key2"});
}

TEST(ShardingCodec, TruncatedShardIsCorrupt) {
  const auto rep = representation<uint8_t>({4}, DataTypeKind::uint8, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2}}}, rep);
  const Buffer encoded =
      encode_one(*codec, make_array<uint8_t>(DataTypeKind::uint8, {4}, {1, 2, 3, 4}), rep);
  for (size_t cut : {size_t{1}, size_t{10}, encoded.size() - 1}) {
    const ChunkStatus front = decode_status(*codec, encoded.slice(cut, encoded.size() - cut), rep);
    EXPECT_FALSE(front.ok) << "front cut " << cut;
    EXPECT_EQ(front.code, ErrorCode::corrupt_data);
    const ChunkStatus back = decode_status(*codec, encoded.slice(0, encoded.size() - cut), rep);
    EXPECT_FALSE(back.ok) << "back cut " << cut;
    EXPECT_EQ(back.code, ErrorCode::corrupt_data);
  }
}

TEST(ShardingCodec, CorruptInnerChunkNamesItsCoordinates) {
  const auto rep = representation<uint8_t>({4, 4}, DataTypeKind::uint8, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2, 2}},
                                            {"codecs", {kBytes, kCrc}},
                                            {"index_codecs", {kBytes}},
                                            {"index_location", "start"}},
                                           rep);
  std::vector<uint8_t> values(16, 1);
  const Buffer encoded = encode_one(*codec, make_array(DataTypeKind::uint8, {4, 4}, values), rep);
  // Chunks follow the index in C order, 4 + 4 bytes each: chunk (1, 0) is the third.
  const Buffer corrupt = with_byte_flipped(encoded, 64 + 2 * 8 + 1);
  const ChunkStatus status = decode_status(*codec, corrupt, rep);
  EXPECT_FALSE(status.ok);
  EXPECT_EQ(status.code, ErrorCode::corrupt_data);
  EXPECT_NE(status.message.find("inner chunk [1, 0]"), std::string::npos) << status.message;
}

TEST(ShardingCodec, EveryByteFlipOrTruncationDecodesOrFailsCleanly) {
  // Without a checksum on the index, flipped index bytes reach the validation; zstd inner chunks
  // make flipped data bytes reach a decompressor. Decoding must never throw or read out of bounds.
  const auto rep = representation<uint16_t>({4, 4}, DataTypeKind::uint16, 0);
  const json zstd = {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}};
  for (const char* location : {"start", "end"}) {
    SCOPED_TRACE(location);
    const auto codec = ShardingCodec::create({{"chunk_shape", {2, 2}},
                                              {"codecs", {kBytes, zstd}},
                                              {"index_codecs", {kBytes}},
                                              {"index_location", location}},
                                             rep);
    std::vector<uint16_t> values(16, 0);
    values[1] = 300;
    values[15] = 7;
    const Buffer encoded =
        encode_one(*codec, make_array(DataTypeKind::uint16, {4, 4}, values), rep);
    for (size_t i = 0; i < encoded.size(); ++i) {
      const ChunkStatus flipped = decode_status(*codec, with_byte_flipped(encoded, i), rep);
      EXPECT_TRUE(flipped.ok || flipped.code == ErrorCode::corrupt_data)
          << i << ": " << flipped.message;
      const ChunkStatus truncated = decode_status(*codec, encoded.slice(0, i), rep);
      if (i > 0) {
        EXPECT_FALSE(truncated.ok) << i;
        EXPECT_EQ(truncated.code, ErrorCode::corrupt_data) << i << ": " << truncated.message;
      } else {
        EXPECT_TRUE(truncated.ok);  // an empty value is an all-fill shard
      }
    }
  }
}

TEST(ShardingCodec, EncodeRejectsAnArrayOfTheWrongShape) {
  const auto rep = representation<uint8_t>({4}, DataTypeKind::uint8, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2}}}, rep);
  const NDBuffer in[2] = {make_array<uint8_t>(DataTypeKind::uint8, {2}, {1, 2}),
                          make_array<uint8_t>(DataTypeKind::uint8, {4}, {1, 2, 3, 4})};
  Buffer out[2];
  ChunkStatus status[2];
  codec->encode(in, out, rep, status);
  EXPECT_FALSE(status[0].ok);
  EXPECT_EQ(status[0].code, ErrorCode::invalid_argument);
  EXPECT_TRUE(status[1].ok) << status[1].message;
  EXPECT_GT(out[1].size(), 0u);
}

// --- Configuration -----------------------------------------------------------------------------

TEST(ShardingCodec, ToJsonWritesEveryField) {
  const auto rep = representation<uint16_t>({4, 4}, DataTypeKind::uint16, 0);
  const auto codec = ShardingCodec::create({{"chunk_shape", {2, 4}}}, rep);
  const json j = codec->to_json();
  EXPECT_EQ(j["name"], "sharding_indexed");
  const json& c = j["configuration"];
  EXPECT_EQ(c["chunk_shape"], json({2, 4}));
  EXPECT_EQ(c["codecs"], json::array({kBytes}));
  EXPECT_EQ(c["index_codecs"], json::array({kBytes, kCrc}));
  EXPECT_EQ(c["index_location"], "end");
  EXPECT_EQ(codec->index_location(), ShardingCodec::IndexLocation::end);
  EXPECT_EQ(codec->inner_grid(), (Shape{2, 1}));
  EXPECT_EQ(codec->inner_chunk_shape(), (Shape{2, 4}));
  // The written configuration creates the same codec.
  EXPECT_EQ(ShardingCodec::create(c, rep)->to_json(), j);
}

TEST(ShardingCodec, BadConfigurationsNameTheField) {
  const auto rep = representation<uint16_t>({4, 6}, DataTypeKind::uint16, 0);
  auto create = [&](json configuration) { return ShardingCodec::create(configuration, rep); };
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"chunk_shape", {4, 4}}});
      },
      {"chunk_shape", "divide"});
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"chunk_shape", {2}}});
      },
      {"chunk_shape", "dimensions"});
  expect_error<InvalidArgumentError>([&] { create({{"chunk_shape", {2, 0}}}); }, {"chunk_shape"});
  expect_error<InvalidArgumentError>([&] { create({{"chunk_shape", {2, -3}}}); }, {"chunk_shape"});
  expect_error<InvalidArgumentError>([&] { create({{"chunk_shape", "2,3"}}); }, {"chunk_shape"});
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"codecs", {kBytes}}});
      },
      {"chunk_shape", "required"});
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"chunk_shape", {2, 3}}, {"index_location", "middle"}});
      },
      {"index_location", "middle"});
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"chunk_shape", {2, 3}}, {"codecs", kBytes}});
      },
      {"codecs"});
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"chunk_shape", {2, 3}}, {"index_codecs", {kBytes, {{"name", "gzip"}}}}});
      },
      {"index_codecs", "fixed"});
  expect_error<InvalidArgumentError>(
      [&] {
        create({{"chunk_shape", {2, 3}}, {"shard_shape", {4, 6}}});
      },
      {"shard_shape"});
  expect_error<InvalidArgumentError>([&] { ShardingCodec::create(json::array(), rep); },
                                     {"sharding_indexed"});
  // An unknown inner codec keeps its error kind and names the field.
  expect_error<UnsupportedError>(
      [&] {
        create({{"chunk_shape", {2, 3}}, {"codecs", {{{"name", "no_such_codec"}}}}});
      },
      {"codecs", "no_such_codec"});
}

}  // namespace
}  // namespace cuzarr
