#include "cuzarr/codec/bytes_codec.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>

#include "codec_test_arrays.hpp"

namespace cuzarr {
namespace {

using test::representation;

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

Buffer encode_one(const BytesCodec& codec, const NDBuffer& array) {
  std::vector<NDBuffer> in{array};
  std::vector<Buffer> out(1);
  std::vector<ChunkStatus> status(1);
  codec.encode(in, out, representation(array.dtype(), array.shape()), status);
  EXPECT_TRUE(status[0].ok) << status[0].message;
  return out[0];
}

TEST(BytesCodec, BigEndianLayoutOfIntegersFloatsAndComplex) {
  auto rep = representation(DataType(DataTypeKind::uint32), {2});
  auto big = BytesCodec::create({{"endian", "big"}}, rep);
  auto little = BytesCodec::create({{"endian", "little"}}, rep);
  NDBuffer a = NDBuffer::allocate(DataType(DataTypeKind::uint32), {2});
  a.data_as<uint32_t>()[0] = 0x01020304u;
  a.data_as<uint32_t>()[1] = 0xA0B0C0D0u;
  Buffer be = encode_one(*big, a);
  EXPECT_EQ(std::vector<std::byte>(be.data(), be.data() + be.size()),
            bytes_of({0x01, 0x02, 0x03, 0x04, 0xA0, 0xB0, 0xC0, 0xD0}));
  Buffer le = encode_one(*little, a);
  EXPECT_EQ(std::vector<std::byte>(le.data(), le.data() + le.size()),
            bytes_of({0x04, 0x03, 0x02, 0x01, 0xD0, 0xC0, 0xB0, 0xA0}));

  // complex64: each float part is swapped on its own; the real part stays first.
  NDBuffer c = NDBuffer::allocate(DataType(DataTypeKind::complex64), {1});
  *c.data_as<std::complex<float>>() = {1.0f, -2.0f};  // 0x3F800000, 0xC0000000
  Buffer cbe =
      encode_one(*BytesCodec::create({{"endian", "big"}}, representation(c.dtype(), {1})), c);
  EXPECT_EQ(std::vector<std::byte>(cbe.data(), cbe.data() + cbe.size()),
            bytes_of({0x3F, 0x80, 0x00, 0x00, 0xC0, 0x00, 0x00, 0x00}));

  // float16 raw bits 0x3C00 (1.0) -> 3C 00.
  NDBuffer h = NDBuffer::allocate(DataType(DataTypeKind::float16), {1});
  *h.data_as<uint16_t>() = 0x3C00;
  Buffer hbe =
      encode_one(*BytesCodec::create({{"endian", "big"}}, representation(h.dtype(), {1})), h);
  EXPECT_EQ(std::vector<std::byte>(hbe.data(), hbe.data() + hbe.size()), bytes_of({0x3C, 0x00}));

  // r24 has no byte order: big endian writes the bytes as they are.
  NDBuffer r = NDBuffer::allocate(DataType::from_name("r24"), {1});
  std::memcpy(r.data(), bytes_of({1, 2, 3}).data(), 3);
  Buffer rbe =
      encode_one(*BytesCodec::create({{"endian", "big"}}, representation(r.dtype(), {1})), r);
  EXPECT_EQ(std::vector<std::byte>(rbe.data(), rbe.data() + rbe.size()), bytes_of({1, 2, 3}));
}

TEST(BytesCodec, EndianIsRequiredForMultiByteTypesOnly) {
  try {
    BytesCodec::create(nlohmann::json::object(),
                       representation(DataType(DataTypeKind::int16), {4}));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("\"endian\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
  }
  for (const char* one_byte : {"uint8", "int8", "bool", "r8", "r24"}) {
    auto codec = BytesCodec::create(nlohmann::json::object(),
                                    representation(DataType::from_name(one_byte), {4}));
    EXPECT_FALSE(codec->endian().has_value());
    EXPECT_EQ(codec->to_json(), nlohmann::json({{"name", "bytes"}}));
  }
  auto explicit_le = BytesCodec::create({{"endian", "little"}},
                                        representation(DataType(DataTypeKind::uint8), {4}));
  EXPECT_EQ(explicit_le->to_json(),
            nlohmann::json::parse(R"({"name":"bytes","configuration":{"endian":"little"}})"));
  EXPECT_THROW(BytesCodec::create({{"endian", "middle"}},
                                  representation(DataType(DataTypeKind::int32), {4})),
               InvalidArgumentError);
  EXPECT_THROW(
      BytesCodec::create({{"endian", 1}}, representation(DataType(DataTypeKind::int32), {4})),
      InvalidArgumentError);
  EXPECT_THROW(BytesCodec::create({{"endian", "little"}, {"order", "C"}},
                                  representation(DataType(DataTypeKind::int32), {4})),
               InvalidArgumentError);
}

TEST(BytesCodec, DecodeChecksTheSize) {
  auto rep = representation(DataType(DataTypeKind::int32), {3, 2});
  auto codec = BytesCodec::create({{"endian", "little"}}, rep);
  for (size_t size : {size_t{0}, size_t{23}, size_t{25}}) {
    std::vector<Buffer> in{Buffer::copy_of(test::random_bytes(size, 1))};
    std::vector<NDBuffer> out(1);
    std::vector<ChunkStatus> status(1);
    codec->decode(in, out, rep, status);
    ASSERT_FALSE(status[0].ok);
    EXPECT_EQ(status[0].code, ErrorCode::corrupt_data);
    EXPECT_NE(status[0].message.find("expected 24 bytes"), std::string::npos) << status[0].message;
    EXPECT_NE(status[0].message.find("got " + std::to_string(size)), std::string::npos)
        << status[0].message;
  }
}

TEST(BytesCodec, DecodeIsZeroCopyWhenNoSwapIsNeededAndCopiesOtherwise) {
  auto rep = representation(DataType(DataTypeKind::float64), {4});
  auto le = BytesCodec::create({{"endian", "little"}}, rep);
  auto be = BytesCodec::create({{"endian", "big"}}, rep);
  Buffer storage = Buffer::copy_of(test::random_bytes(40, 3));
  std::vector<Buffer> aligned{storage.slice(0, 32)};
  std::vector<NDBuffer> out(1);
  std::vector<ChunkStatus> status(1);
  le->decode(aligned, out, rep, status);
  ASSERT_TRUE(status[0].ok);
  EXPECT_EQ(out[0].data(), storage.data()) << "expected a view of the input";

  // Misaligned bytes (e.g. an inner chunk at an odd offset in a shard) are copied.
  std::vector<Buffer> misaligned{storage.slice(1, 32)};
  out[0] = NDBuffer();
  le->decode(misaligned, out, rep, status);
  ASSERT_TRUE(status[0].ok);
  EXPECT_NE(out[0].data(), storage.data() + 1);
  EXPECT_EQ(std::memcmp(out[0].data(), storage.data() + 1, 32), 0);

  // Big endian: swapped into a new array; the input is untouched.
  auto before = std::vector<std::byte>(storage.data(), storage.data() + 40);
  out[0] = NDBuffer();
  be->decode(aligned, out, rep, status);
  ASSERT_TRUE(status[0].ok);
  EXPECT_EQ(std::vector<std::byte>(storage.data(), storage.data() + 40), before);
  EXPECT_EQ(out[0].data()[0], storage.data()[7]);
  EXPECT_EQ(out[0].data()[7], storage.data()[0]);
}

TEST(BytesCodec, DecodesIntoAProvidedStridedArray) {
  const DataType dtype(DataTypeKind::int16);
  auto rep = representation(dtype, {5, 3});
  NDBuffer source = test::make_array(dtype, {5, 3}, 11);
  for (const char* endian : {"little", "big"}) {
    auto codec = BytesCodec::create({{"endian", endian}}, rep);
    Buffer encoded = encode_one(*codec, source);
    NDBuffer target = test::strided_copy(test::make_array(dtype, {5, 3}, 12));
    std::vector<Buffer> in{encoded};
    std::vector<NDBuffer> out{target};
    std::vector<ChunkStatus> status(1);
    codec->decode(in, out, rep, status);
    ASSERT_TRUE(status[0].ok) << status[0].message;
    EXPECT_EQ(out[0].data(), target.data());
    EXPECT_TRUE(test::same_elements(target, source)) << endian;
  }
}

TEST(BytesCodec, EncodeRejectsAnArrayOfTheWrongShape) {
  auto rep = representation(DataType(DataTypeKind::int32), {4});
  auto codec = BytesCodec::create({{"endian", "little"}}, rep);
  std::vector<NDBuffer> in{test::make_array(DataType(DataTypeKind::int32), {5}, 1)};
  std::vector<Buffer> out(1);
  std::vector<ChunkStatus> status(1);
  codec->encode(in, out, rep, status);
  EXPECT_FALSE(status[0].ok);
  EXPECT_EQ(status[0].code, ErrorCode::invalid_argument);
  EXPECT_EQ(codec->fixed_encoded_size(rep), 16);
}

}  // namespace
}  // namespace cuzarr
