// CodecChain's direct path: [bytes, zstd] and [bytes, blosc] chains decode straight into a
// C-contiguous destination; every other case (strided destinations, byte swaps, zstd frames
// without a content size, corrupt input) still decodes correctly or fails by chunk.
#include <gtest/gtest.h>
#include <zstd.h>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::test {
namespace {

const DataType kType(DataTypeKind::uint16);
const ChunkRepresentation kRep = representation(kType, {16, 32});

std::shared_ptr<CodecChain> chain_of(const char* json) {
  return CodecChain::create(parse_specs(nlohmann::json::parse(json)), kRep);
}

constexpr const char* kZstd =
    R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}])";
constexpr const char* kBlosc =
    R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":2}}])";
constexpr const char* kZstdBigEndian =
    R"([{"name":"bytes","configuration":{"endian":"big"}},{"name":"zstd","configuration":{"level":1}}])";

std::vector<Buffer> encode(const CodecChain& chain, const std::vector<NDBuffer>& arrays) {
  std::vector<Buffer> encoded(arrays.size());
  std::vector<ChunkStatus> status(arrays.size());
  chain.encode(arrays, encoded, status);
  throw_if_failed(status, [](size_t i) { return "chunk " + std::to_string(i); });
  return encoded;
}

std::vector<NDBuffer> sources(size_t n) {
  std::vector<NDBuffer> arrays;
  for (size_t i = 0; i < n; ++i)
    arrays.push_back(make_array(kType, kRep.shape, static_cast<uint32_t>(i + 1)));
  return arrays;
}

void expect_decodes_into_destinations(const char* chain_json) {
  auto chain = chain_of(chain_json);
  const auto arrays = sources(5);
  auto encoded = encode(*chain, arrays);
  std::vector<NDBuffer> out;
  std::vector<const std::byte*> where;
  for (size_t i = 0; i < arrays.size(); ++i) {
    out.push_back(NDBuffer::allocate(kType, kRep.shape));
    where.push_back(out.back().data());
  }
  std::vector<ChunkStatus> status(arrays.size());
  chain->decode(encoded, out, status);
  for (size_t i = 0; i < arrays.size(); ++i) {
    ASSERT_TRUE(status[i].ok) << status[i].message;
    EXPECT_EQ(out[i].data(), where[i]) << "decoded somewhere else";
    EXPECT_TRUE(same_elements(out[i], arrays[i])) << i;
  }
}

TEST(CodecChainDirectDecode, ZstdIntoContiguousDestinations) {
  expect_decodes_into_destinations(kZstd);
}

TEST(CodecChainDirectDecode, BloscIntoContiguousDestinations) {
  try {
    chain_of(kBlosc);
  } catch (const UnsupportedError& e) {
    GTEST_SKIP() << e.what();
  }
  expect_decodes_into_destinations(kBlosc);
}

TEST(CodecChainDirectDecode, ByteSwappedChainsStillDecodeIntoDestinations) {
  expect_decodes_into_destinations(kZstdBigEndian);
}

TEST(CodecChainDirectDecode, StridedAndMissingDestinationsAndUnknownFrameSizes) {
  auto chain = chain_of(kZstd);
  const auto arrays = sources(3);
  auto encoded = encode(*chain, arrays);
  // Chunk 2: a frame without a content size in its header (streaming writers).
  {
    const NDBuffer& a = arrays[2];
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    Buffer frame = Buffer::allocate(ZSTD_compressBound(static_cast<size_t>(a.nbytes())));
    ZSTD_inBuffer in{a.data(), static_cast<size_t>(a.nbytes()), 0};
    ZSTD_outBuffer o{frame.data(), frame.size(), 0};
    ASSERT_EQ(ZSTD_compressStream2(c, &o, &in, ZSTD_e_end), 0u);
    ZSTD_freeCCtx(c);
    encoded[2] = frame.slice(0, o.pos);
  }
  std::vector<NDBuffer> out = {strided_copy(NDBuffer::allocate(kType, kRep.shape)), NDBuffer(),
                               NDBuffer::allocate(kType, kRep.shape)};
  const std::byte* strided_at = out[0].data();
  const std::byte* unknown_at = out[2].data();
  std::vector<ChunkStatus> status(3);
  chain->decode(encoded, out, status);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(status[i].ok) << status[i].message;
    EXPECT_TRUE(same_elements(out[i], arrays[i])) << i;
  }
  EXPECT_EQ(out[0].data(), strided_at);
  EXPECT_EQ(out[2].data(), unknown_at);
}

TEST(CodecChainDirectDecode, CorruptChunksFailAloneAndNameTheCodec) {
  // With a checksum, so that every damage is detected.
  auto chain = chain_of(
      R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1,"checksum":true}}])");
  const auto arrays = sources(3);
  auto encoded = encode(*chain, arrays);
  // Same content size in the header, damaged body.
  Buffer damaged = Buffer::copy_of(encoded[1].bytes());
  for (size_t i = damaged.size() / 2; i < damaged.size(); ++i) damaged.data()[i] ^= std::byte{0x5A};
  encoded[1] = damaged;
  std::vector<NDBuffer> out;
  for (int i = 0; i < 3; ++i) out.push_back(NDBuffer::allocate(kType, kRep.shape));
  std::vector<ChunkStatus> status(3);
  chain->decode(encoded, out, status);
  EXPECT_TRUE(status[0].ok);
  EXPECT_TRUE(status[2].ok);
  ASSERT_FALSE(status[1].ok);
  EXPECT_EQ(status[1].code, ErrorCode::corrupt_data);
  EXPECT_NE(status[1].message.find("zstd"), std::string::npos) << status[1].message;
  EXPECT_TRUE(same_elements(out[2], arrays[2]));
}

// Chunks larger than the streaming piece, with elements (3 bytes) that pieces split, decode into
// reversed, every-other-element views.
TEST(CodecChainDirectDecode, LargeChunksStreamIntoStridedViewsAcrossPieces) {
  for (const DataType& type : {DataType(DataTypeKind::uint16), DataType(DataTypeKind::raw, 24)}) {
    SCOPED_TRACE(type.name());
    const ChunkRepresentation rep = representation(type, {301, 517});
    auto chain = CodecChain::create(parse_specs(nlohmann::json::parse(kZstd)), rep);
    const std::vector<NDBuffer> arrays = {make_array(type, rep.shape, 11)};
    std::vector<Buffer> encoded(1);
    std::vector<ChunkStatus> status(1);
    chain->encode(arrays, encoded, rep, status);
    ASSERT_TRUE(status[0].ok) << status[0].message;
    std::vector<NDBuffer> out = {strided_copy(NDBuffer::allocate(type, rep.shape))};
    const std::byte* at = out[0].data();
    chain->decode(encoded, out, rep, status);
    ASSERT_TRUE(status[0].ok) << status[0].message;
    EXPECT_EQ(out[0].data(), at);
    EXPECT_TRUE(same_elements(out[0], arrays[0]));
  }
}

}  // namespace
}  // namespace cuzarr::test
