// DirectChunkEncoder for chains of the bytes codec alone (uncompressed arrays): the elements in C
// order written straight into caller memory, exactly the bytes codec's output, for C-contiguous
// and strided chunks, inside uncompressed shards too; byte-swapping chains keep the staged path.
#include <gtest/gtest.h>

#include "codec/direct_chunk_encoder.hpp"
#include "codec_test_arrays.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::test {
namespace {

const DataType kType(DataTypeKind::uint16);
const ChunkRepresentation kRep = representation(kType, {12, 8, 10});

constexpr const char* kBytes = R"([{"name":"bytes","configuration":{"endian":"little"}}])";
constexpr const char* kBytesBigEndian = R"([{"name":"bytes","configuration":{"endian":"big"}}])";
constexpr const char* kShardOfBytes = R"([{"name":"sharding_indexed","configuration":{
    "chunk_shape":[4,4,5],
    "codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
    "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}])";

std::shared_ptr<CodecChain> chain_of(const char* json) {
  return CodecChain::create(parse_specs(nlohmann::json::parse(json)), kRep);
}

std::vector<std::byte> bytes_of(const Buffer& b) {
  return std::vector<std::byte>(b.data(), b.data() + b.size());
}

// The bytes codec's own (staged) encoding of `chunk`.
std::vector<std::byte> bytes_codec_encode(const CodecChain& chain, const NDBuffer& chunk) {
  const NDBuffer arrays[1] = {chunk};
  Buffer out[1];
  ChunkStatus status[1];
  chain.array_to_bytes()->encode(arrays, out, kRep, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return bytes_of(out[0]);
}

std::vector<std::byte> chain_encode(const CodecChain& chain, const NDBuffer& chunk) {
  const NDBuffer arrays[1] = {chunk};
  Buffer out[1];
  ChunkStatus status[1];
  chain.encode(arrays, out, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return bytes_of(out[0]);
}

TEST(DirectEncodeBytesOnly, WritesTheElementsInCOrderForContiguousAndStridedChunks) {
  const auto chain = chain_of(kBytes);
  const auto direct = DirectChunkEncoder::for_chain(*chain);
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(direct->bound(), static_cast<size_t>(kRep.nbytes()));
  for (uint32_t seed : {1u, 2u}) {
    const NDBuffer dense = make_array(kType, kRep.shape, seed);
    const NDBuffer strided = strided_copy(dense);
    ASSERT_FALSE(strided.is_c_contiguous());
    const auto expected = bytes_codec_encode(*chain, dense);
    ASSERT_EQ(expected.size(), static_cast<size_t>(kRep.nbytes()));
    for (const NDBuffer* chunk : {&dense, &strided}) {
      std::vector<std::byte> out(direct->bound() + 3, std::byte{0xEE});
      ASSERT_EQ(direct->encode(*chunk, out), expected.size());
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()));
      EXPECT_EQ(out.back(), std::byte{0xEE}) << "wrote past the chunk";
      EXPECT_EQ(chain_encode(*chain, *chunk), expected);
    }
  }
}

TEST(DirectEncodeBytesOnly, TooSmallAnOutputOrAnotherShapeIsRejected) {
  const auto chain = chain_of(kBytes);
  const auto direct = DirectChunkEncoder::for_chain(*chain);
  ASSERT_TRUE(direct.has_value());
  const NDBuffer dense = make_array(kType, kRep.shape, 3);
  std::vector<std::byte> small(direct->bound() - 1);
  EXPECT_THROW(direct->encode(dense, small), InvalidArgumentError);
  std::vector<std::byte> out(direct->bound());
  EXPECT_THROW(direct->encode(make_array(kType, {12, 8, 9}, 3), out), InvalidArgumentError);
}

TEST(DirectEncodeBytesOnly, ByteSwappingChainsKeepTheStagedPath) {
  const auto chain = chain_of(kBytesBigEndian);
  EXPECT_FALSE(DirectChunkEncoder::for_chain(*chain).has_value());
  const NDBuffer dense = make_array(kType, kRep.shape, 4);
  const auto encoded = chain_encode(*chain, strided_copy(dense));
  ASSERT_EQ(encoded.size(), static_cast<size_t>(kRep.nbytes()));
  // Big-endian: the first element's high byte comes first.
  const auto first = static_cast<uint16_t>(dense.data()[0]) |
                     static_cast<uint16_t>(static_cast<uint16_t>(dense.data()[1]) << 8);
  EXPECT_EQ(static_cast<uint16_t>(encoded[0]), first >> 8);
  EXPECT_EQ(static_cast<uint16_t>(encoded[1]), first & 0xFF);
}

TEST(DirectEncodeBytesOnly, ShardsOfUncompressedInnerChunksRoundTrip) {
  const auto chain = chain_of(kShardOfBytes);
  const NDBuffer dense = make_array(kType, kRep.shape, 9);
  const auto from_dense = chain_encode(*chain, dense);
  EXPECT_EQ(chain_encode(*chain, strided_copy(dense)), from_dense);
  const Buffer in[1] = {Buffer::copy_of(std::span<const std::byte>(from_dense))};
  NDBuffer decoded[1];
  ChunkStatus status[1];
  chain->decode(in, decoded, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  EXPECT_TRUE(same_elements(decoded[0], dense));
}

}  // namespace
}  // namespace cuzarr::test
