// numcodecs array->array filters: reference vectors produced by numcodecs 0.16 (Python),
// round trips over data types and representations.
#include <gtest/gtest.h>

#include <cmath>

#include "codec/element_cast.hpp"
#include "codec/numcodecs_test_support.hpp"
#include "cuzarr/codec/numcodecs_delta_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using namespace numcodecs_test;
using json = nlohmann::json;

const DataType kF8(DataTypeKind::float64);
const DataType kF4(DataTypeKind::float32);
const DataType kI4(DataTypeKind::int32);
const DataType kI2(DataTypeKind::int16);
const std::vector<double> kDoubles{1.234, 2.5, -3.75, 100.01};
const std::vector<float> kFloats{1.234f, 2.5f, -3.75f, 100.01f};

// Encodes `in` with the codec and returns the encoded array's bytes as hex.
std::string encoded_hex(const ArrayToArrayCodec& codec, const NDBuffer& in,
                        const ChunkRepresentation& r) {
  NDBuffer out;
  auto st = encode_one(codec, in, out, r);
  EXPECT_TRUE(st.ok) << st.message;
  EXPECT_EQ(out.dtype(), codec.encoded_representation(r).data_type);
  EXPECT_EQ(out.shape(), codec.encoded_representation(r).shape);
  return to_hex(out);
}

TEST(NumcodecsArrayCodecs, DeltaMatchesNumcodecs) {
  // numcodecs.Delta(dtype='<i4', astype='<i2').encode([10, 12, 9, 100, -5])
  const auto r = rep(kI4, {5});
  auto codec = make<ArrayToArrayCodec>("numcodecs.delta", {{"dtype", "<i4"}, {"astype", "<i2"}}, r);
  const NDBuffer in = array_of<int32_t>(kI4, {10, 12, 9, 100, -5});
  EXPECT_EQ(encoded_hex(*codec, in, r), "0a000200fdff5b0097ff");
  NDBuffer enc, dec;
  ASSERT_TRUE(encode_one(*codec, in, enc, r).ok);
  ASSERT_TRUE(decode_one(*codec, enc, dec, r).ok);
  EXPECT_EQ(to_hex(dec), to_hex(in));
}

TEST(NumcodecsArrayCodecs, DeltaRoundTripsEveryTypeAndFollowsCOrderOfStridedInput) {
  for (const char* name : {"int8", "uint16", "int64", "uint64", "float32", "float64", "float16"}) {
    const DataType type = DataType::from_name(name);
    const auto r = rep(type, {3, 4});
    auto codec = make<ArrayToArrayCodec>("numcodecs.delta", json::object(), r);
    // Small integers (negative ones wrap for unsigned types): float sums of them are exact.
    std::vector<int32_t> values(12);
    for (int32_t k = 0; k < 12; ++k) values[static_cast<size_t>(k)] = (k * 37 + 5) % 23 - 9;
    NDBuffer in = NDBuffer::allocate(type, {3, 4});
    cast_elements(reinterpret_cast<const std::byte*>(values.data()), kI4, in.data(), type,
                  values.size(), "test");
    NDBuffer enc, dec;
    ASSERT_TRUE(encode_one(*codec, in, enc, r).ok) << name;
    ASSERT_TRUE(decode_one(*codec, enc, dec, r).ok) << name;
    EXPECT_EQ(to_hex(dec), to_hex(in)) << name;
  }
  // A transposed (non-contiguous) view is differenced in its own C order.
  const auto r = rep(kI4, {2, 2});
  auto codec = make<ArrayToArrayCodec>("numcodecs.delta", json::object(), r);
  NDBuffer base = array_of<int32_t>(kI4, {1, 2, 3, 4}).reshaped({2, 2});
  const std::array<int64_t, 2> order{1, 0};
  NDBuffer enc;
  ASSERT_TRUE(encode_one(*codec, base.permuted(order), enc, r).ok);
  EXPECT_EQ(to_hex(enc),
            to_hex(array_of<int32_t>(kI4, {1, 2, -1, 2})));  // [1, 3, 2, 4] differenced
}

// decode_in_place (the full-read path that decodes chunks into their place in the output) gives
// decode()'s bytes, the running sum carried across runs of any length; astype != dtype is refused.
TEST(NumcodecsArrayCodecs, DeltaDecodesInPlaceAcrossRuns) {
  for (const char* name : {"uint8", "int32", "float32", "float64", "float16"}) {
    const DataType type = DataType::from_name(name);
    const auto r = rep(type, {40});
    const auto delta = std::dynamic_pointer_cast<NumcodecsDeltaCodec>(
        make<ArrayToArrayCodec>("numcodecs.delta", json::object(), r));
    ASSERT_TRUE(delta) << name;
    std::vector<double> values(40);
    for (size_t k = 0; k < values.size(); ++k)
      values[k] = 0.37 * static_cast<double>((k * 29 + 3) % 41) - 5.0;
    NDBuffer enc = NDBuffer::allocate(type, {40});
    cast_elements(reinterpret_cast<const std::byte*>(values.data()), kF8, enc.data(), type,
                  values.size(), "test");
    NDBuffer dec;
    ASSERT_TRUE(decode_one(*delta, enc, dec, r).ok) << name;
    const size_t size = type.size();
    std::span<std::byte> all(enc.data(), static_cast<size_t>(enc.nbytes()));
    const std::span<std::byte> runs[] = {all.first(0), all.subspan(0, 7 * size),
                                         all.subspan(7 * size, size),
                                         all.subspan(8 * size, 32 * size)};
    delta->decode_in_place(runs);
    EXPECT_EQ(to_hex(enc), to_hex(dec)) << name;
  }
  const auto r = rep(kI4, {4});
  const auto narrowing = std::dynamic_pointer_cast<NumcodecsDeltaCodec>(
      make<ArrayToArrayCodec>("numcodecs.delta", {{"dtype", "<i4"}, {"astype", "<i2"}}, r));
  ASSERT_TRUE(narrowing);
  EXPECT_THROW(narrowing->decode_in_place({}), UnsupportedError);
}

TEST(NumcodecsArrayCodecs, FixedScaleOffsetMatchesNumcodecs) {
  {  // FixedScaleOffset(offset=1, scale=10, dtype='<f8', astype='<i2')
    const auto r = rep(kF8, {4});
    auto codec = make<ArrayToArrayCodec>(
        "numcodecs.fixedscaleoffset",
        {{"offset", 1}, {"scale", 10}, {"dtype", "<f8"}, {"astype", "<i2"}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of(kF8, kDoubles), r), "02000f00d0ffde03");
    NDBuffer enc, dec;
    ASSERT_TRUE(encode_one(*codec, array_of(kF8, kDoubles), enc, r).ok);
    ASSERT_TRUE(decode_one(*codec, enc, dec, r).ok);
    const double* d = dec.data_as<double>();
    EXPECT_DOUBLE_EQ(d[0], 1.2);
    EXPECT_DOUBLE_EQ(d[2], -3.8);
  }
  {  // float32 arithmetic, wrap-around cast to u1: FixedScaleOffset(offset=1.5, scale=3.3, '<f4',
     // '<u1')
    const auto r = rep(kF4, {4});
    auto codec = make<ArrayToArrayCodec>(
        "numcodecs.fixedscaleoffset",
        {{"offset", 1.5}, {"scale", 3.3}, {"dtype", "<f4"}, {"astype", "<u1"}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of(kF4, kFloats), r), "ff03ef45");
  }
  {  // integer chunk, int offset, float scale; ties round to even: FixedScaleOffset(5, 0.5, '<i4',
     // '<i2')
    const auto r = rep(kI4, {4});
    auto codec = make<ArrayToArrayCodec>(
        "numcodecs.fixedscaleoffset",
        {{"offset", 5}, {"scale", 0.5}, {"dtype", "<i4"}, {"astype", "<i2"}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of<int32_t>(kI4, {7, 100, -20, 33000}), r),
              "01003000f4ff7240");
  }
}

TEST(NumcodecsArrayCodecs, QuantizeMatchesNumcodecs) {
  {  // Quantize(digits=2, dtype='<f8')
    const auto r = rep(kF8, {4});
    auto codec =
        make<ArrayToArrayCodec>("numcodecs.quantize", {{"digits", 2}, {"dtype", "<f8"}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of(kF8, kDoubles), r),
              "0000000000c0f33f00000000000004400000000000000ec00000000080005940");
  }
  {  // Quantize(digits=1, dtype='<f4', astype='<f4')
    const auto r = rep(kF4, {4});
    auto codec =
        make<ArrayToArrayCodec>("numcodecs.quantize", {{"digits", 1}, {"astype", "float32"}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of(kF4, kFloats), r), "0000a03f00002040000070c00000c842");
  }
  EXPECT_THROW(CodecRegistry::instance().create(CodecSpec{"numcodecs.quantize", {{"digits", 1}}},
                                                rep(kI4, {2})),
               InvalidArgumentError);
}

TEST(NumcodecsArrayCodecs, PackBitsMatchesNumcodecsAndChangesShape) {
  const DataType kBool(DataTypeKind::boolean);
  const auto r = rep(kBool, {2, 5});
  auto codec = make<ArrayToArrayCodec>("numcodecs.packbits", json::object(), r);
  const auto encoded = codec->encoded_representation(r);
  EXPECT_EQ(encoded.shape, Shape{3});
  EXPECT_EQ(encoded.data_type, DataType(DataTypeKind::uint8));
  NDBuffer in = array_of<uint8_t>(kBool, {1, 0, 1, 1, 0, 0, 0, 1, 1, 1}).reshaped({2, 5});
  EXPECT_EQ(encoded_hex(*codec, in, r), "06b1c0");  // numcodecs.PackBits().encode(...)
  NDBuffer enc, dec;
  ASSERT_TRUE(encode_one(*codec, in, enc, r).ok);
  ASSERT_TRUE(decode_one(*codec, enc, dec, r).ok);
  EXPECT_EQ(to_hex(dec), to_hex(in));
  // A header with the wrong padding count is corrupt.
  NDBuffer bad = array_of<uint8_t>(DataType(DataTypeKind::uint8), {3, 0xb1, 0xc0});
  auto st = decode_one(*codec, bad, dec, r);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, ErrorCode::corrupt_data);
  EXPECT_THROW(CodecRegistry::instance().create(CodecSpec{"numcodecs.packbits", json::object()},
                                                rep(kI4, {2})),
               InvalidArgumentError);
}

TEST(NumcodecsArrayCodecs, BitRoundMatchesNumcodecs) {
  {
    const auto r = rep(kF4, {4});
    auto codec = make<ArrayToArrayCodec>("numcodecs.bitround", {{"keepbits", 5}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of(kF4, kFloats), r), "00009c3f00002040000070c00000c842");
  }
  {
    const auto r = rep(kF8, {4});
    auto codec = make<ArrayToArrayCodec>("numcodecs.bitround", {{"keepbits", 10}}, r);
    EXPECT_EQ(encoded_hex(*codec, array_of(kF8, kDoubles), r),
              "0000000000c0f33f00000000000004400000000000000ec00000000000005940");
  }
  EXPECT_THROW(CodecRegistry::instance().create(CodecSpec{"numcodecs.bitround", {{"keepbits", 24}}},
                                                rep(kF4, {2})),
               InvalidArgumentError);
}

TEST(NumcodecsArrayCodecs, AsTypeMatchesNumcodecs) {
  // AsType(encode_dtype='<i2', decode_dtype='<f8').encode([1.7, -2.2, 300.9]): truncation
  const auto r = rep(kF8, {3});
  auto codec = make<ArrayToArrayCodec>("numcodecs.astype",
                                       {{"encode_dtype", "<i2"}, {"decode_dtype", "<f8"}}, r);
  EXPECT_EQ(codec->encoded_representation(r).data_type, kI2);
  EXPECT_EQ(encoded_hex(*codec, array_of<double>(kF8, {1.7, -2.2, 300.9}), r), "0100feff2c01");
  NDBuffer enc, dec;
  ASSERT_TRUE(encode_one(*codec, array_of<double>(kF8, {1.7, -2.2, 300.9}), enc, r).ok);
  ASSERT_TRUE(decode_one(*codec, enc, dec, r).ok);
  EXPECT_EQ(dec.data_as<double>()[2], 300.0);
  EXPECT_THROW(CodecRegistry::instance().create(CodecSpec{"numcodecs.astype", json::object()}, r),
               InvalidArgumentError);
  EXPECT_THROW(
      CodecRegistry::instance().create(CodecSpec{"numcodecs.astype", {{"encode_dtype", ">i2"}}}, r),
      UnsupportedError);
}

TEST(NumcodecsArrayCodecs, DtypeMustMatchTheChunk) {
  EXPECT_THROW(CodecRegistry::instance().create(CodecSpec{"numcodecs.delta", {{"dtype", "<i8"}}},
                                                rep(kI4, {2})),
               InvalidArgumentError);
  EXPECT_THROW(CodecRegistry::instance().create(CodecSpec{"numcodecs.delta", {{"dtype", "<q9"}}},
                                                rep(kI4, {2})),
               InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
