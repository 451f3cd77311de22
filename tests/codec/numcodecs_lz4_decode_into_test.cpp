// numcodecs.lz4's decode_into (the codec chain's direct path): decodes a chunk straight into the
// caller's memory exactly when the header records the destination's size, declines other sizes
// without writing, and reports corrupt blocks as CorruptDataError.
#include <gtest/gtest.h>

#include <algorithm>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/core/error.hpp"
#include "numcodecs_test_support.hpp"

namespace cuzarr::test {
namespace {

using numcodecs_test::from_hex;
using numcodecs_test::make;

const DataType kType(DataTypeKind::uint16);
const ChunkRepresentation kRep = representation(kType, {64, 48});

std::shared_ptr<BytesToBytesCodec> lz4_codec() {
  return make<BytesToBytesCodec>("numcodecs.lz4", {{"acceleration", 1}}, kRep);
}

// numcodecs.LZ4().encode(b"hello hello hello hello numcodecs!"): 34 decoded bytes.
constexpr const char* kHello = "220000006e68656c6c6f200600a06e756d636f6465637321";

Buffer encode_chunk(const BytesToBytesCodec& codec, const Buffer& raw) {
  std::vector<Buffer> in{raw}, out(1);
  std::vector<ChunkStatus> status(1);
  codec.encode(in, out, kRep, status);
  throw_if_failed(status, [](size_t) { return std::string("lz4 test chunk"); });
  return out[0];
}

Buffer decode_chunk(const BytesToBytesCodec& codec, const Buffer& encoded) {
  std::vector<Buffer> in{encoded}, out(1);
  std::vector<ChunkStatus> status(1);
  codec.decode(in, out, kRep, status);
  throw_if_failed(status, [](size_t) { return std::string("lz4 test chunk"); });
  return out[0];
}

bool all_equal(std::span<const std::byte> bytes, std::byte value) {
  return std::all_of(bytes.begin(), bytes.end(), [&](std::byte b) { return b == value; });
}

TEST(NumcodecsLz4DecodeInto, DecodesIntoCallerMemoryLikeDecode) {
  auto codec = lz4_codec();
  const NDBuffer source = make_array(kType, kRep.shape, 11);
  const Buffer raw = Buffer::copy_of(
      std::span<const std::byte>(source.data(), static_cast<size_t>(source.nbytes())));
  const Buffer encoded = encode_chunk(*codec, raw);
  Buffer out = Buffer::allocate(raw.size());
  ASSERT_TRUE(codec->decode_into(encoded.bytes(), out.bytes(), kRep, 1));
  EXPECT_TRUE(std::equal(out.bytes().begin(), out.bytes().end(), raw.bytes().begin()));
  const Buffer decoded = decode_chunk(*codec, encoded);
  ASSERT_EQ(decoded.size(), out.size());
  EXPECT_TRUE(std::equal(out.bytes().begin(), out.bytes().end(), decoded.bytes().begin()));
}

TEST(NumcodecsLz4DecodeInto, NumcodecsBytesDecodeIntoCallerMemory) {
  auto codec = lz4_codec();
  Buffer out = Buffer::allocate(34);
  ASSERT_TRUE(codec->decode_into(from_hex(kHello).bytes(), out.bytes(), kRep, 1));
  EXPECT_EQ(out.as_string_view(), "hello hello hello hello numcodecs!");
}

TEST(NumcodecsLz4DecodeInto, OtherSizesAndShortInputsAreDeclinedWithoutWriting) {
  auto codec = lz4_codec();
  const Buffer encoded = from_hex(kHello);
  for (size_t size : {size_t{0}, size_t{33}, size_t{35}, size_t{4096}}) {
    Buffer out = Buffer::allocate(std::max<size_t>(size, 1)).slice(0, size);
    std::fill(out.bytes().begin(), out.bytes().end(), std::byte{0xAB});
    EXPECT_FALSE(codec->decode_into(encoded.bytes(), out.bytes(), kRep, 1)) << size;
    EXPECT_TRUE(all_equal(out.bytes(), std::byte{0xAB})) << size;
  }
  Buffer out = Buffer::allocate(34);
  EXPECT_FALSE(codec->decode_into(encoded.bytes().first(3), out.bytes(), kRep, 1));
}

TEST(NumcodecsLz4DecodeInto, CorruptBlocksOfTheDestinationSizeThrowCorruptData) {
  auto codec = lz4_codec();
  Buffer out = Buffer::allocate(34);
  // The right header, a truncated block.
  const Buffer full = from_hex(kHello);
  EXPECT_THROW(codec->decode_into(full.bytes().first(full.size() - 6), out.bytes(), kRep, 1),
               CorruptDataError);
  // The right header, a garbage block.
  const Buffer garbage = from_hex("22000000ffffffffffffffff");
  EXPECT_THROW(codec->decode_into(garbage.bytes(), out.bytes(), kRep, 1), CorruptDataError);
  // A header claiming far more than a 1-byte block can hold.
  Buffer big = Buffer::allocate(1 << 20);
  const Buffer bomb = from_hex("0000100000");
  try {
    codec->decode_into(bomb.bytes(), big.bytes(), kRep, 1);
    ADD_FAILURE() << "an impossible header was accepted";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("numcodecs.lz4"), std::string::npos) << e.what();
  }
}

TEST(NumcodecsLz4DecodeInto, ChainDecodesIntoContiguousDestinations) {
  auto chain = CodecChain::create(
      parse_specs(nlohmann::json::parse(
          R"([{"name":"bytes","configuration":{"endian":"little"}},{"name":"numcodecs.lz4","configuration":{"acceleration":1}}])")),
      kRep);
  std::vector<NDBuffer> arrays, out;
  std::vector<const std::byte*> where;
  for (uint32_t i = 0; i < 4; ++i) {
    arrays.push_back(make_array(kType, kRep.shape, 40 + i));
    out.push_back(NDBuffer::allocate(kType, kRep.shape));
    where.push_back(out.back().data());
  }
  std::vector<Buffer> encoded(arrays.size());
  std::vector<ChunkStatus> status(arrays.size());
  chain->encode(arrays, encoded, status);
  throw_if_failed(status, [](size_t i) { return "chunk " + std::to_string(i); });
  // One corrupt chunk fails alone.
  encoded[2] = encoded[2].slice(0, encoded[2].size() / 2);
  chain->decode(encoded, out, status);
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (i == 2) {
      EXPECT_FALSE(status[i].ok);
      EXPECT_EQ(status[i].code, ErrorCode::corrupt_data);
      continue;
    }
    ASSERT_TRUE(status[i].ok) << status[i].message;
    EXPECT_EQ(out[i].data(), where[i]) << "decoded somewhere else";
    EXPECT_TRUE(same_elements(out[i], arrays[i])) << i;
  }
}

}  // namespace
}  // namespace cuzarr::test
