// ShardingCodec::encode_shard, the one-shard encode into reused scratch memory the write path
// uses: byte-identical to the batched encode() for direct ([bytes, zstd], [bytes, blosc]) and
// other inner chains, index at the start or end, strided shards, partly and wholly empty shards.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/sharding_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::test {
namespace {

using json = nlohmann::json;

const DataType kType(DataTypeKind::uint16);
const ChunkRepresentation kShard = representation(kType, {8, 12});

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 0}, {"checksum", false}}}};
const json kBlosc = {
    {"name", "blosc"},
    {"configuration", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 2}}}};

std::vector<std::byte> bytes_of(std::span<const std::byte> bytes) {
  return std::vector<std::byte>(bytes.begin(), bytes.end());
}

// The stored shard: the parts joined.
std::vector<std::byte> bytes_of(std::span<const std::span<const std::byte>> parts) {
  std::vector<std::byte> joined;
  for (const auto& part : parts) joined.insert(joined.end(), part.begin(), part.end());
  return joined;
}

std::vector<std::byte> batched_encode(const ShardingCodec& codec, const NDBuffer& shard) {
  const NDBuffer in[1] = {shard};
  Buffer out[1];
  ChunkStatus status[1];
  codec.encode(in, out, kShard, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return bytes_of(out[0].bytes());
}

// A shard of [8, 12] with [4, 4] inner chunks (a 2 x 3 grid) in which the inner chunks listed in
// `empty` (linear C-order positions) hold only the fill value 0.
NDBuffer shard_with_empty_chunks(uint32_t seed, std::initializer_list<int> empty) {
  NDBuffer shard = make_array(kType, kShard.shape, seed);
  auto* values = shard.data_as<uint16_t>();
  for (int64_t i = 0; i < shard.size(); ++i)
    if (values[i] == 0) values[i] = 1;  // only the chunks chosen below hold the fill value
  for (int chunk : empty) {
    const int64_t row0 = chunk / 3 * 4, col0 = chunk % 3 * 4;
    for (int64_t r = row0; r < row0 + 4; ++r)
      for (int64_t c = col0; c < col0 + 4; ++c) values[r * 12 + c] = 0;
  }
  return shard;
}

using Params = std::tuple<const char*, const char*>;  // inner codecs, index location

class EncodeShard : public ::testing::TestWithParam<Params> {
 protected:
  std::shared_ptr<ShardingCodec> codec() {
    const std::string inner = std::get<0>(GetParam());
    json codecs = json::array({kBytes});
    if (inner == "zstd") codecs.push_back(kZstd);
    if (inner == "blosc") codecs.push_back(kBlosc);
    return ShardingCodec::create({{"chunk_shape", {4, 4}},
                                  {"codecs", codecs},
                                  {"index_codecs", {kBytes, {{"name", "crc32c"}}}},
                                  {"index_location", std::get<1>(GetParam())}},
                                 kShard);
  }
  void SetUp() override {
    if (std::string(std::get<0>(GetParam())) == "blosc" && !BloscCodec::available())
      GTEST_SKIP() << "blosc support was not built";
  }
};

TEST_P(EncodeShard, MatchesTheBatchedEncodeAndReusesItsScratch) {
  const auto sharding = codec();
  ShardingCodec::EncodeScratch scratch;
  // One scratch for several shards, the larger first: later shards reuse its memory.
  for (const auto& [seed, empty] : std::vector<std::pair<uint32_t, std::vector<int>>>{
           {1, {}}, {2, {1, 5}}, {3, {0, 2, 3, 4}}, {4, {}}}) {
    NDBuffer dense = shard_with_empty_chunks(seed, {});
    for (int chunk : empty) {
      const NDBuffer view = dense.sliced(0, chunk / 3 * 4, 1, 4).sliced(1, chunk % 3 * 4, 1, 4);
      view.fill(kShard.fill_value);
    }
    const auto expected = batched_encode(*sharding, dense);
    EXPECT_EQ(bytes_of(sharding->encode_shard(dense, scratch)), expected) << "seed " << seed;
    EXPECT_EQ(bytes_of(sharding->encode_shard(strided_copy(dense), scratch)), expected)
        << "seed " << seed << ", strided";
  }
}

TEST_P(EncodeShard, EmptyInnerChunksAreLeftOutAsInEncode) {
  const auto sharding = codec();
  ShardingCodec::EncodeScratch scratch;
  const NDBuffer shard = shard_with_empty_chunks(9, {0, 4});
  const auto encoded = bytes_of(sharding->encode_shard(shard, scratch));
  EXPECT_EQ(encoded, batched_encode(*sharding, shard));
  // Decodes back to the same elements.
  const Buffer in[1] = {Buffer::copy_of(std::span<const std::byte>(encoded))};
  NDBuffer out[1];
  ChunkStatus status[1];
  sharding->decode(in, out, kShard, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  EXPECT_TRUE(same_elements(out[0], shard));
}

TEST_P(EncodeShard, AShardOfOnlyTheFillValueEncodesToNothing) {
  const auto sharding = codec();
  ShardingCodec::EncodeScratch scratch;
  NDBuffer shard = NDBuffer::allocate(kType, kShard.shape);
  shard.fill(kShard.fill_value);
  EXPECT_TRUE(sharding->encode_shard(shard, scratch).empty());
  EXPECT_TRUE(batched_encode(*sharding, shard).empty());
}

TEST_P(EncodeShard, RejectsAShardOfTheWrongShape) {
  const auto sharding = codec();
  ShardingCodec::EncodeScratch scratch;
  try {
    (void)sharding->encode_shard(make_array(kType, {8, 8}, 1), scratch);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("[8, 8]"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(InnerCodecsAndIndexLocations, EncodeShard,
                         ::testing::Combine(::testing::Values("bytes", "zstd", "blosc"),
                                            ::testing::Values("start", "end")));

}  // namespace
}  // namespace cuzarr::test
