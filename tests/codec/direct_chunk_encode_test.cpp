// Encoding [bytes, compressor] chunks without intermediate buffers: BytesToBytesCodec::
// encode_into (zstd, blosc) and CodecChain::encode's direct path give exactly the bytes of the
// staged path (bytes codec, then the compressor's batched encode), for C-contiguous and strided
// chunks; other chains keep the staged path.
#include <gtest/gtest.h>

#include "codec/direct_chunk_encoder.hpp"
#include "codec_test_arrays.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/zstd_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::test {
namespace {

const DataType kType(DataTypeKind::uint16);
const ChunkRepresentation kRep = representation(kType, {16, 40});

constexpr const char* kZstd =
    R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3,"checksum":true}}])";
constexpr const char* kBlosc =
    R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":2}}])";
constexpr const char* kZstdBigEndian =
    R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":1}}])";
constexpr const char* kGzip =
    R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":1}}])";

std::shared_ptr<CodecChain> chain_of(const char* json) {
  return CodecChain::create(parse_specs(nlohmann::json::parse(json)), kRep);
}

// Skips the blosc case in builds without c-blosc.
#define SKIP_WITHOUT_BLOSC()                              \
  if (GetParam() == kBlosc && !BloscCodec::available()) { \
    GTEST_SKIP() << "blosc support was not built";        \
  }

std::vector<std::byte> bytes_of(const Buffer& b) {
  const auto* p = b.data();
  return std::vector<std::byte>(p, p + b.size());
}

// The staged path, codec by codec: the bytes codec's copy, then the compressor's encode.
std::vector<std::byte> staged_encode(const CodecChain& chain, const NDBuffer& chunk) {
  const NDBuffer arrays[1] = {chunk};
  Buffer bytes[1], compressed[1];
  ChunkStatus status[1];
  chain.array_to_bytes()->encode(arrays, bytes, kRep, status);
  chain.bytes_to_bytes()[0]->encode(bytes, compressed, kRep, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return bytes_of(compressed[0]);
}

std::vector<std::byte> chain_encode(const CodecChain& chain, const NDBuffer& chunk) {
  const NDBuffer arrays[1] = {chunk};
  Buffer out[1];
  ChunkStatus status[1];
  chain.encode(arrays, out, status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return bytes_of(out[0]);
}

class DirectEncode : public ::testing::TestWithParam<const char*> {};

TEST_P(DirectEncode, ChainEncodeMatchesTheStagedPathForContiguousAndStridedChunks) {
  SKIP_WITHOUT_BLOSC();
  const auto chain = chain_of(GetParam());
  ASSERT_TRUE(DirectChunkEncoder::for_chain(*chain).has_value());
  for (uint32_t seed : {1u, 2u, 3u}) {
    const NDBuffer dense = make_array(kType, kRep.shape, seed);
    const NDBuffer strided = strided_copy(dense);
    ASSERT_FALSE(strided.is_c_contiguous());
    const auto expected = staged_encode(*chain, dense);
    EXPECT_EQ(chain_encode(*chain, dense), expected);
    EXPECT_EQ(chain_encode(*chain, strided), expected);
  }
}

TEST_P(DirectEncode, EncoderWritesWithinItsBoundAndDecodesBack) {
  SKIP_WITHOUT_BLOSC();
  const auto chain = chain_of(GetParam());
  const auto direct = DirectChunkEncoder::for_chain(*chain);
  ASSERT_TRUE(direct.has_value());
  EXPECT_GE(direct->bound(), static_cast<size_t>(kRep.nbytes()));
  const NDBuffer dense = make_array(kType, kRep.shape, 7);
  std::vector<std::byte> out(direct->bound());
  const size_t n = direct->encode(strided_copy(dense), out);
  ASSERT_LE(n, out.size());
  out.resize(n);
  EXPECT_EQ(out, staged_encode(*chain, dense));

  const Buffer in[1] = {Buffer::copy_of(std::span<const std::byte>(out))};
  NDBuffer decoded[1];
  ChunkStatus status[1];
  chain->decode(in, decoded, status);
  ASSERT_TRUE(status[0].ok) << status[0].message;
  EXPECT_TRUE(same_elements(decoded[0], dense));
}

TEST_P(DirectEncode, AChunkOfTheWrongShapeFailsOnlyThatChunk) {
  SKIP_WITHOUT_BLOSC();
  const auto chain = chain_of(GetParam());
  const NDBuffer arrays[2] = {make_array(kType, {16, 39}, 1), make_array(kType, kRep.shape, 2)};
  Buffer out[2];
  ChunkStatus status[2];
  chain->encode(arrays, out, status);
  EXPECT_FALSE(status[0].ok);
  EXPECT_EQ(status[0].code, ErrorCode::invalid_argument);
  EXPECT_NE(status[0].message.find("[16, 39]"), std::string::npos) << status[0].message;
  ASSERT_TRUE(status[1].ok) << status[1].message;
  EXPECT_EQ(bytes_of(out[1]), staged_encode(*chain, arrays[1]));
}

INSTANTIATE_TEST_SUITE_P(Compressors, DirectEncode, ::testing::Values(kZstd, kBlosc));

TEST(DirectEncode, OtherChainsHaveNoDirectEncoderAndStillEncode) {
  for (const char* json : {kZstdBigEndian, kGzip}) {
    const auto chain = chain_of(json);
    EXPECT_FALSE(DirectChunkEncoder::for_chain(*chain).has_value()) << json;
    const NDBuffer dense = make_array(kType, kRep.shape, 5);
    EXPECT_EQ(chain_encode(*chain, strided_copy(dense)), staged_encode(*chain, dense)) << json;
  }
}

#if CUZARR_HAVE_BLOSC
TEST(EncodeInto, ZstdAndBloscWriteWhatEncodeProduces) {
  const auto data = random_bytes(5000, 11);
  const Buffer in[1] = {Buffer::copy_of(std::span<const std::byte>(data))};
  const ZstdCodec zstd(3, false);
  const BloscCodec blosc("lz4", 5, BloscCodec::Shuffle::shuffle, 2, 0);
  for (const BytesToBytesCodec* codec : {static_cast<const BytesToBytesCodec*>(&zstd),
                                         static_cast<const BytesToBytesCodec*>(&blosc)}) {
    Buffer out[1];
    ChunkStatus status[1];
    codec->encode(in, out, kRep, status);
    ASSERT_TRUE(status[0].ok) << status[0].message;
    const auto bound = codec->encode_into_bound(data.size());
    ASSERT_TRUE(bound.has_value());
    std::vector<std::byte> direct(*bound);
    const auto n = codec->encode_into(data, direct);
    ASSERT_TRUE(n.has_value());
    direct.resize(*n);
    EXPECT_EQ(direct, bytes_of(out[0])) << codec->name();
  }
}

TEST(EncodeInto, BloscRejectsTooSmallAnOutput) {
  const BloscCodec blosc("lz4", 5, BloscCodec::Shuffle::shuffle, 2, 0);
  const auto data = random_bytes(1000, 3);
  std::vector<std::byte> out(data.size());
  EXPECT_THROW((void)blosc.encode_into(data, out), InvalidArgumentError);
}

#endif

TEST(EncodeInto, CodecsWithoutItSayNothing) {
  const auto chain = chain_of(kGzip);
  const auto& gzip = *chain->bytes_to_bytes()[0];
  EXPECT_FALSE(gzip.encode_into_bound(100).has_value());
  std::vector<std::byte> in(100), out(200);
  EXPECT_FALSE(gzip.encode_into(in, out).has_value());
}

}  // namespace
}  // namespace cuzarr::test
