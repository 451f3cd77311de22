// BytesToBytesCodec::decode_to_sink for zstd and blosc: the pieces, in order, are exactly what
// decode() produces, every piece is small (no chunk-sized buffer), a size that is not the
// decoded size delivers nothing, and corrupt input throws CorruptDataError.
#include <gtest/gtest.h>
#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_test_arrays.hpp"
#include "codec_test_calls.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/zstd_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using test::decode_one;
using test::encode_one;
using test::representation;
using test::to_vector;

// No piece may be larger than this: a chunk of several MiB never sits in one buffer.
constexpr size_t kLargestPiece = size_t{1} << 20;

struct Streamed {
  std::vector<std::byte> bytes;
  size_t pieces = 0;
  size_t largest_piece = 0;
};

// Runs decode_to_sink; `accepted` is its result.
Streamed stream(const BytesToBytesCodec& codec, const Buffer& in, size_t size, bool& accepted) {
  Streamed s;
  accepted = codec.decode_to_sink(in.bytes(), size, [&](std::span<const std::byte> piece) {
    s.bytes.insert(s.bytes.end(), piece.begin(), piece.end());
    ++s.pieces;
    s.largest_piece = std::max(s.largest_piece, piece.size());
  });
  return s;
}

void expect_streams_like_decode(const BytesToBytesCodec& codec, const Buffer& encoded,
                                const ChunkRepresentation& rep, const NDBuffer& array) {
  const auto size = static_cast<size_t>(rep.nbytes());
  const auto decoded = decode_one(codec, encoded, rep);
  ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
  bool accepted = false;
  const Streamed s = stream(codec, encoded, size, accepted);
  ASSERT_TRUE(accepted);
  EXPECT_EQ(s.bytes, to_vector(decoded.bytes));
  ASSERT_EQ(s.bytes.size(), size);
  EXPECT_EQ(std::memcmp(s.bytes.data(), array.data(), size), 0);
  EXPECT_LE(s.largest_piece, kLargestPiece);
  EXPECT_GT(s.pieces, size / kLargestPiece);

  // Any other size: declined, nothing delivered.
  for (size_t other : {size - 1, size + 1}) {
    bool other_accepted = true;
    const Streamed none = stream(codec, encoded, other, other_accepted);
    EXPECT_FALSE(other_accepted) << other;
    EXPECT_EQ(none.pieces, 0u) << other;
  }
}

Buffer buffer_of(const NDBuffer& a) {
  return Buffer::copy_of(std::span<const std::byte>(a.data(), static_cast<size_t>(a.nbytes())));
}

TEST(ZstdStreamingDecode, PiecesAreTheDecodedChunk) {
  const auto rep = representation(DataType(DataTypeKind::float32), {3, 517, 1031});  // ~6.1 MiB
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 7);
  const auto codec = ZstdCodec::create({{"level", 1}, {"checksum", true}}, rep);
  const auto encoded = encode_one(*codec, buffer_of(array), rep);
  ASSERT_TRUE(encoded.status.ok);
  expect_streams_like_decode(*codec, encoded.bytes, rep, array);
}

TEST(ZstdStreamingDecode, FramesBackToBackAreOneStream) {
  const auto rep = representation(DataType(DataTypeKind::uint16), {1500, 1000});
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 8);
  const auto size = static_cast<size_t>(rep.nbytes());
  std::vector<std::byte> frames;
  for (size_t at : {size_t{0}, size / 3}) {
    const size_t end = at == 0 ? size / 3 : size;
    std::vector<std::byte> frame(ZSTD_compressBound(end - at));
    const size_t n = ZSTD_compress(frame.data(), frame.size(), array.data() + at, end - at, 1);
    ASSERT_FALSE(ZSTD_isError(n));
    frames.insert(frames.end(), frame.begin(), frame.begin() + static_cast<ptrdiff_t>(n));
  }
  const auto codec = ZstdCodec::create(nlohmann::json::object(), rep);
  expect_streams_like_decode(*codec, Buffer::copy_of(frames), rep, array);
}

TEST(ZstdStreamingDecode, CorruptFramesThrow) {
  const auto rep = representation(DataType(DataTypeKind::uint16), {1024, 1024});
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 9);
  const auto codec = ZstdCodec::create({{"level", 1}, {"checksum", true}}, rep);
  const auto encoded = to_vector(encode_one(*codec, buffer_of(array), rep).bytes);
  const auto size = static_cast<size_t>(rep.nbytes());
  // A flipped byte in the middle of the frame: a bad block or, at the latest, a bad checksum.
  auto flipped = encoded;
  flipped[flipped.size() / 2] ^= std::byte{0x5A};
  bool accepted = false;
  EXPECT_THROW(stream(*codec, Buffer::copy_of(flipped), size, accepted), CorruptDataError);
}

// Runs decode_stream_to_sink with a source that hands out at most `step` bytes per call.
Streamed stream_input(const BytesToBytesCodec& codec, const std::vector<std::byte>& encoded,
                      size_t step, size_t size, bool& accepted, size_t* largest_read = nullptr) {
  Streamed s;
  size_t at = 0;
  const auto source = [&](std::span<std::byte> into) {
    const size_t n = std::min({into.size(), step, encoded.size() - at});
    if (largest_read) *largest_read = std::max(*largest_read, into.size());
    std::memcpy(into.data(), encoded.data() + at, n);
    at += n;
    return n;
  };
  accepted = codec.decode_stream_to_sink(
      encoded.size(), source, size, [&](std::span<const std::byte> piece) {
        s.bytes.insert(s.bytes.end(), piece.begin(), piece.end());
        ++s.pieces;
        s.largest_piece = std::max(s.largest_piece, piece.size());
      });
  return s;
}

TEST(ZstdStreamingDecode, InputReadPieceByPiece) {
  const auto rep = representation(DataType(DataTypeKind::uint16), {1500, 1000});
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 15);
  const auto size = static_cast<size_t>(rep.nbytes());
  const auto codec = ZstdCodec::create({{"level", 1}, {"checksum", true}}, rep);
  const auto one_frame = to_vector(encode_one(*codec, buffer_of(array), rep).bytes);
  // Two frames back to back (the first records only a third of the chunk).
  std::vector<std::byte> two_frames;
  for (size_t at : {size_t{0}, size / 3}) {
    const size_t end = at == 0 ? size / 3 : size;
    std::vector<std::byte> frame(ZSTD_compressBound(end - at));
    const size_t n = ZSTD_compress(frame.data(), frame.size(), array.data() + at, end - at, 1);
    ASSERT_FALSE(ZSTD_isError(n));
    two_frames.insert(two_frames.end(), frame.begin(), frame.begin() + static_cast<ptrdiff_t>(n));
  }
  const std::vector<const std::vector<std::byte>*> inputs = {&one_frame, &two_frames};
  for (const auto* encoded : inputs) {
    for (size_t step : {size_t{1} << 30, size_t{4093}}) {  // whole pieces, and short reads
      bool accepted = false;
      size_t largest_read = 0;
      const Streamed s = stream_input(*codec, *encoded, step, size, accepted, &largest_read);
      ASSERT_TRUE(accepted);
      ASSERT_EQ(s.bytes.size(), size);
      EXPECT_EQ(std::memcmp(s.bytes.data(), array.data(), size), 0);
      EXPECT_LE(s.largest_piece, kLargestPiece);
      EXPECT_LE(largest_read, kLargestPiece);
    }
  }
  // Truncated input, a flipped byte (checksum), a chunk of another size: errors.
  bool accepted = false;
  const std::vector<std::byte> truncated(one_frame.begin(), one_frame.end() - 100);
  EXPECT_THROW(stream_input(*codec, truncated, 1 << 20, size, accepted), CorruptDataError);
  auto flipped = one_frame;
  flipped[flipped.size() / 2] ^= std::byte{0x5A};
  EXPECT_THROW(stream_input(*codec, flipped, 1 << 20, size, accepted), CorruptDataError);
  EXPECT_THROW(stream_input(*codec, two_frames, 1 << 20, size + 2, accepted), CorruptDataError);
  // A frame whose content size exceeds the chunk, or is not recorded: declined, nothing given.
  const Streamed none = stream_input(*codec, one_frame, 1 << 20, size - 2, accepted);
  EXPECT_FALSE(accepted);
  EXPECT_EQ(none.pieces, 0u);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  std::vector<std::byte> unsized(ZSTD_compressBound(size));
  const size_t n = ZSTD_compress2(cctx, unsized.data(), unsized.size(), array.data(), size);
  ZSTD_freeCCtx(cctx);
  ASSERT_FALSE(ZSTD_isError(n));
  unsized.resize(n);
  const Streamed declined = stream_input(*codec, unsized, 1 << 20, size, accepted);
  EXPECT_FALSE(accepted);
  EXPECT_EQ(declined.pieces, 0u);
}

#if CUZARR_HAVE_BLOSC

struct BloscCase {
  const char* cname;
  const char* shuffle;
  int clevel;
  DataTypeKind type;
  int64_t blocksize;  // 0: c-blosc chooses
};

class BloscStreamingDecode : public ::testing::TestWithParam<BloscCase> {};

TEST_P(BloscStreamingDecode, PiecesAreTheDecodedChunk) {
  const BloscCase c = GetParam();
  // An odd number of elements: the last block is shorter than the others.
  const auto rep = representation(DataType(c.type), {5, 301, 799});
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 11);
  const auto codec = BloscCodec::create({{"cname", c.cname},
                                         {"clevel", c.clevel},
                                         {"shuffle", c.shuffle},
                                         {"blocksize", c.blocksize}},
                                        rep);
  const auto encoded = encode_one(*codec, buffer_of(array), rep);
  ASSERT_TRUE(encoded.status.ok) << encoded.status.message;
  size_t typesize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(encoded.bytes.data(), &typesize, &flags);
  EXPECT_EQ(typesize, rep.data_type.size());
  if (c.clevel == 0) {
    EXPECT_TRUE(flags & BLOSC_MEMCPYED) << "expected a memcpyed chunk";
  }
  expect_streams_like_decode(*codec, encoded.bytes, rep, array);
}

TEST_P(BloscStreamingDecode, InputReadPieceByPiece) {
  const BloscCase c = GetParam();
  const auto rep = representation(DataType(c.type), {5, 301, 799});
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 12);
  const auto size = static_cast<size_t>(rep.nbytes());
  const auto codec = BloscCodec::create({{"cname", c.cname},
                                         {"clevel", c.clevel},
                                         {"shuffle", c.shuffle},
                                         {"blocksize", c.blocksize}},
                                        rep);
  const auto encoded = to_vector(encode_one(*codec, buffer_of(array), rep).bytes);
  size_t typesize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(encoded.data(), &typesize, &flags);
  for (size_t step : {size_t{1} << 30, size_t{4093}}) {  // whole pieces, and short reads
    bool accepted = false;
    const Streamed s = stream_input(*codec, encoded, step, size, accepted);
    if (flags & BLOSC_MEMCPYED) {  // plain copies go the buffered way
      EXPECT_FALSE(accepted);
      EXPECT_EQ(s.pieces, 0u);
      continue;
    }
    ASSERT_TRUE(accepted);
    ASSERT_EQ(s.bytes.size(), size);
    EXPECT_EQ(std::memcmp(s.bytes.data(), array.data(), size), 0);
    EXPECT_GT(s.pieces, 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configurations, BloscStreamingDecode,
    ::testing::Values(BloscCase{"lz4", "shuffle", 5, DataTypeKind::float32, 0},
                      BloscCase{"lz4", "bitshuffle", 5, DataTypeKind::uint16, 0},
                      BloscCase{"lz4", "noshuffle", 5, DataTypeKind::float64, 0},
                      BloscCase{"lz4", "shuffle", 5, DataTypeKind::uint16, 1 << 16},
                      BloscCase{"zstd", "shuffle", 3, DataTypeKind::float64, 3 << 15},
                      BloscCase{"blosclz", "bitshuffle", 9, DataTypeKind::float32, 0},
                      BloscCase{"lz4", "shuffle", 0, DataTypeKind::float32, 0}),
    [](const ::testing::TestParamInfo<BloscCase>& info) {
      return std::string(info.param.cname) + "_" + info.param.shuffle + "_clevel" +
             std::to_string(info.param.clevel) + "_" + DataType(info.param.type).name() + "_block" +
             std::to_string(info.param.blocksize);
    });

// Offsets of the compressed blocks follow the 16-byte header (c-blosc 1.x format).
TEST(BloscStreamingDecodeErrors, CorruptBlockOffsetThrowsAfterTheGoodBlocks) {
  const auto rep = representation(DataType(DataTypeKind::uint16), {1024, 1024});
  NDBuffer array = NDBuffer::allocate(rep.data_type, rep.shape);
  for (int64_t i = 0; i < array.size(); ++i) array.data_as<uint16_t>()[i] = (i / 7) & 0xFFFF;
  const auto codec = BloscCodec::create(
      {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"blocksize", 1 << 16}}, rep);
  auto encoded = to_vector(encode_one(*codec, buffer_of(array), rep).bytes);
  size_t typesize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(encoded.data(), &typesize, &flags);
  ASSERT_FALSE(flags & BLOSC_MEMCPYED) << "expected compressed blocks";
  const size_t size = static_cast<size_t>(rep.nbytes());
  const size_t blocks = size / (1 << 16);
  ASSERT_GT(encoded.size(), 16 + 4 * blocks);
  // The last block's offset points past the end of the buffer.
  const uint32_t past_end = 0x7FFFFFF0u;
  std::memcpy(encoded.data() + 16 + 4 * (blocks - 1), &past_end, 4);
  bool accepted = false;
  try {
    (void)stream(*codec, Buffer::copy_of(encoded), size, accepted);
    FAIL() << "a corrupt block offset was accepted";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("blosc"), std::string::npos) << e.what();
  }
  // The non-streaming decode rejects it too.
  EXPECT_FALSE(decode_one(*codec, Buffer::copy_of(encoded), rep).status.ok);
}

TEST(BloscStreamingDecodeErrors, StreamedInputThatEndsEarlyOrIsOutOfOrder) {
  const auto rep = representation(DataType(DataTypeKind::uint16), {1024, 1024});
  NDBuffer array = NDBuffer::allocate(rep.data_type, rep.shape);
  for (int64_t i = 0; i < array.size(); ++i) array.data_as<uint16_t>()[i] = (i / 5) & 0xFFFF;
  const auto codec = BloscCodec::create(
      {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"blocksize", 1 << 16}}, rep);
  const auto encoded = to_vector(encode_one(*codec, buffer_of(array), rep).bytes);
  size_t typesize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(encoded.data(), &typesize, &flags);
  ASSERT_FALSE(flags & BLOSC_MEMCPYED) << "expected compressed blocks";
  const size_t size = static_cast<size_t>(rep.nbytes());
  // The whole input streams.
  bool whole = false;
  const Streamed all = stream_input(*codec, encoded, 1 << 20, size, whole);
  ASSERT_TRUE(whole);
  ASSERT_EQ(all.bytes.size(), size);
  EXPECT_EQ(std::memcmp(all.bytes.data(), array.data(), size), 0);
  // The source ends before the size the store reported: an error naming the bytes read.
  size_t at = 0;
  const size_t available = encoded.size() - 1000;
  const auto short_source = [&](std::span<std::byte> into) {
    const size_t n = std::min(into.size(), available - at);
    std::memcpy(into.data(), encoded.data() + at, n);
    at += n;
    return n;
  };
  try {
    (void)codec->decode_stream_to_sink(encoded.size(), short_source, size,
                                       [](std::span<const std::byte>) {});
    FAIL() << "a short input was accepted";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("input ended"), std::string::npos) << e.what();
  }
  // Block offsets out of order, or past the end: declined before any piece (the buffered decode
  // then reports the chunk).
  for (const uint32_t offset : {uint32_t{20}, uint32_t{0x7FFFFFF0u}}) {
    auto damaged = encoded;
    std::memcpy(damaged.data() + 16 + 4 * 3, &offset, 4);
    bool accepted = true;
    const Streamed s = stream_input(*codec, damaged, 1 << 20, size, accepted);
    EXPECT_FALSE(accepted) << offset;
    EXPECT_EQ(s.pieces, 0u) << offset;
  }
}

TEST(BloscStreamingDecodeErrors, TruncatedOrGarbageInputThrows) {
  const auto rep = representation(DataType(DataTypeKind::uint16), {256, 256});
  const NDBuffer array = test::make_array(rep.data_type, rep.shape, 13);
  const auto codec = BloscCodec::create({{"cname", "lz4"}}, rep);
  const auto encoded = to_vector(encode_one(*codec, buffer_of(array), rep).bytes);
  const size_t size = static_cast<size_t>(rep.nbytes());
  bool accepted = false;
  const std::vector<std::byte> truncated(encoded.begin(), encoded.end() - 10);
  EXPECT_THROW(stream(*codec, Buffer::copy_of(truncated), size, accepted), CorruptDataError);
  const auto garbage = test::random_bytes(encoded.size(), 14);
  EXPECT_THROW(stream(*codec, Buffer::copy_of(garbage), size, accepted), CorruptDataError);
  const std::vector<std::byte> tiny(encoded.begin(), encoded.begin() + 8);
  EXPECT_THROW(stream(*codec, Buffer::copy_of(tiny), size, accepted), CorruptDataError);
}

#endif

}  // namespace
}  // namespace cuzarr
