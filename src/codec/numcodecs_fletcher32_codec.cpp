#include "cuzarr/codec/numcodecs_fletcher32_codec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "codec/codec_configuration.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr size_t kChecksumSize = 4;
// Words per block: 360 is the largest count for which sum2 cannot overflow 32 bits before it is
// folded (HDF5's H5_checksum_fletcher32).
constexpr size_t kBlockWords = 360;

void check_batch(size_t in, size_t out, size_t status) {
  if (in != status || out != status) {
    throw InvalidArgumentError(
        "codec \"numcodecs.fletcher32\": batch sizes of inputs, outputs and statuses differ");
  }
}

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
  check_batch(in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    Buffer result = Buffer::allocate(data.size() + kChecksumSize);
    if (!data.empty()) std::memcpy(result.data(), data.data(), data.size());
    const uint32_t sum = fletcher32_hdf5(data);
    for (size_t b = 0; b < kChecksumSize; ++b)
      result.data()[data.size() + b] = static_cast<std::byte>(sum >> (8 * b));
    out[i] = std::move(result);
  });
}

void NumcodecsFletcher32Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                      const ChunkRepresentation&,
                                      std::span<ChunkStatus> status) const {
  check_batch(in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    if (data.size() < kChecksumSize) {
      throw CorruptDataError(fmt::format(
          "codec \"numcodecs.fletcher32\": {} bytes are too few to hold a 4-byte checksum",
          data.size()));
    }
    const size_t payload = data.size() - kChecksumSize;
    uint32_t stored = 0;
    for (size_t b = 0; b < kChecksumSize; ++b)
      stored |= static_cast<uint32_t>(data[payload + b]) << (8 * b);
    const uint32_t computed = fletcher32_hdf5(data.first(payload));
    if (stored != computed) {
      throw CorruptDataError(fmt::format(
          "codec \"numcodecs.fletcher32\": checksum mismatch: stored {:#010x}, computed {:#010x}",
          stored, computed));
    }
    out[i] = in[i].slice(0, payload);
  });
}

}  // namespace cuzarr
