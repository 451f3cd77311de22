// The numcodecs.delta logic the GPU kernels run, checked on the CPU against the NumcodecsDeltaCodec
// class for every integer and float type, plus the wrap-around of integer differences.
#include "codec/cuda/delta_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cuzarr/codec/numcodecs_delta_codec.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

struct TypePair {
  gpu::DeltaType gpu;
  DataTypeKind kind;
};

constexpr TypePair kTypes[] = {
    {gpu::DeltaType::int8, DataTypeKind::int8},
    {gpu::DeltaType::int16, DataTypeKind::int16},
    {gpu::DeltaType::int32, DataTypeKind::int32},
    {gpu::DeltaType::int64, DataTypeKind::int64},
    {gpu::DeltaType::uint8, DataTypeKind::uint8},
    {gpu::DeltaType::uint16, DataTypeKind::uint16},
    {gpu::DeltaType::uint32, DataTypeKind::uint32},
    {gpu::DeltaType::uint64, DataTypeKind::uint64},
    {gpu::DeltaType::float32, DataTypeKind::float32},
    {gpu::DeltaType::float64, DataTypeKind::float64},
};

std::vector<unsigned char> run_codec(const NumcodecsDeltaCodec& codec, DataType dtype,
                                     const std::vector<unsigned char>& bytes, bool encode) {
  const auto count = static_cast<int64_t>(bytes.size() / dtype.size());
  NDBuffer in = NDBuffer::allocate(dtype, {count});
  if (!bytes.empty()) std::memcpy(in.data(), bytes.data(), bytes.size());
  std::vector<NDBuffer> ins{in}, outs(1);
  std::vector<ChunkStatus> status(1);
  const ChunkRepresentation rep{{count}, dtype, std::vector<std::byte>(dtype.size())};
  if (encode) {
    codec.encode(ins, outs, rep, status);
  } else {
    codec.decode(ins, outs, rep, status);
  }
  EXPECT_TRUE(status[0].ok) << status[0].message;
  std::vector<unsigned char> out(bytes.size());
  if (!out.empty()) std::memcpy(out.data(), outs[0].data(), out.size());
  return out;
}

// Float inputs: finite values (random bytes would give NaNs whose payloads numpy keeps but the
// comparison below would still pass byte-wise; finite values exercise the rounding).
std::vector<unsigned char> input_for(gpu::DeltaType type, size_t count, uint32_t seed) {
  const uint32_t size = gpu::delta_type_size(type);
  if (type == gpu::DeltaType::float32) {
    auto v = test::smooth_float32_input(count * 4, seed);
    return v;
  }
  if (type == gpu::DeltaType::float64) {
    std::vector<unsigned char> v(count * 8);
    for (size_t i = 0; i < count; ++i) {
      const double d =
          1e3 * std::sin(static_cast<double>(i) / 17.0) + static_cast<double>(seed % 7);
      std::memcpy(v.data() + 8 * i, &d, 8);
    }
    return v;
  }
  return test::random_input(count * size, seed);
}

TEST(DeltaFormat, MatchesNumcodecsDeltaForEveryType) {
  for (const TypePair& t : kTypes) {
    const DataType dtype(t.kind);
    const NumcodecsDeltaCodec codec(dtype, dtype);
    ASSERT_EQ(dtype.size(), gpu::delta_type_size(t.gpu));
    for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{65537}}) {
      const auto in = input_for(t.gpu, count, static_cast<uint32_t>(count + dtype.size()));
      std::vector<unsigned char> encoded(in.size()), decoded(in.size());
      gpu::delta_encode_serial(in.data(), encoded.data(), count, t.gpu);
      ASSERT_EQ(encoded, run_codec(codec, dtype, in, true)) << dtype.name() << " x" << count;
      gpu::delta_decode_serial(encoded.data(), decoded.data(), count, t.gpu);
      ASSERT_EQ(decoded, run_codec(codec, dtype, encoded, false)) << dtype.name() << " x" << count;
      if (!gpu::delta_type_is_float(t.gpu)) {
        EXPECT_EQ(decoded, in);  // exact for integers
      }
    }
  }
}

TEST(DeltaFormat, IntegerDifferencesWrapAround) {
  const int8_t values[] = {127, -128, 0, -1};
  std::vector<unsigned char> in(4), encoded(4), decoded(4);
  std::memcpy(in.data(), values, 4);
  gpu::delta_encode_serial(in.data(), encoded.data(), 4, gpu::DeltaType::int8);
  EXPECT_EQ(encoded, (std::vector<unsigned char>{127, 1, 128, 255}));
  gpu::delta_decode_serial(encoded.data(), decoded.data(), 4, gpu::DeltaType::int8);
  EXPECT_EQ(decoded, in);
}

}  // namespace
}  // namespace cuzarr
