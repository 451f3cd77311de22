#include "cuzarr/codec/numcodecs_fletcher32_codec.hpp"

#include <algorithm>

#include "codec/checksum_framing.hpp"
#include "codec/codec_configuration.hpp"

namespace cuzarr {
namespace {

// Words per block: 360 is the largest count for which sum2 cannot overflow 32 bits before it is
// folded (HDF5's H5_checksum_fletcher32).
constexpr size_t kBlockWords = 360;

uint32_t fold(uint32_t sum) { return (sum & 0xffffu) + (sum >> 16); }

}  // namespace

uint32_t fletcher32_hdf5(std::span<const std::byte> data) noexcept {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t words = data.size() / 2;
  uint32_t sum1 = 0;
  uint32_t sum2 = 0;
  while (words > 0) {
    const size_t block = std::min(words, kBlockWords);
    words -= block;
    for (size_t k = 0; k < block; ++k, p += 2) {
      sum1 += (static_cast<uint32_t>(p[0]) << 8) | p[1];  // big-endian 16-bit word
      sum2 += sum1;
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  if (data.size() % 2 != 0) {
    sum1 += static_cast<uint32_t>(*p) << 8;  // the odd last byte is the high byte of a word
    sum2 += sum1;
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  sum1 = fold(sum1);
  sum2 = fold(sum2);
  return (sum2 << 16) | sum1;
}

std::shared_ptr<NumcodecsFletcher32Codec> NumcodecsFletcher32Codec::create(
    const nlohmann::json& configuration, const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.fletcher32", configuration, {});
  return std::make_shared<NumcodecsFletcher32Codec>();
}

void NumcodecsFletcher32Codec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                      const ChunkRepresentation&,
                                      std::span<ChunkStatus> status) const {
  encode_with_checksum(in, out, status, name(), ChecksumPlace::end, fletcher32_hdf5);
}

void NumcodecsFletcher32Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                      const ChunkRepresentation&,
                                      std::span<ChunkStatus> status) const {
  decode_with_checksum(in, out, status, name(), ChecksumPlace::end, fletcher32_hdf5);
}

}  // namespace cuzarr
