#include "cuzarr/codec/crc32c_codec.hpp"

#include <fmt/format.h>

#include <cstring>

#include "codec/codec_configuration.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr size_t kChecksumSize = 4;

void check_batch(size_t in, size_t out, size_t status) {
  if (in != status || out != status) {
    throw InvalidArgumentError(
        "codec \"crc32c\": batch sizes of inputs, outputs and statuses differ");
  }
}

}  // namespace

std::shared_ptr<Crc32cCodec> Crc32cCodec::create(const nlohmann::json& configuration,
                                                 const ChunkRepresentation&) {
  CodecConfiguration config("crc32c", configuration, {});
  return std::make_shared<Crc32cCodec>();
}

void Crc32cCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                         const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch(in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    Buffer result = Buffer::allocate(data.size() + kChecksumSize);
    if (!data.empty()) std::memcpy(result.data(), data.data(), data.size());
    const uint32_t crc = crc32c(data);
    // v3 crc32c codec: the checksum follows the data as a little-endian uint32.
    for (size_t b = 0; b < kChecksumSize; ++b)
      result.data()[data.size() + b] = static_cast<std::byte>(crc >> (8 * b));
    out[i] = std::move(result);
  });
}

void Crc32cCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                         const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch(in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    if (data.size() < kChecksumSize) {
      throw CorruptDataError(fmt::format(
          "codec \"crc32c\": {} bytes are too few to hold a 4-byte checksum", data.size()));
    }
    const size_t payload = data.size() - kChecksumSize;
    uint32_t stored = 0;
    for (size_t b = 0; b < kChecksumSize; ++b)
      stored |= static_cast<uint32_t>(data[payload + b]) << (8 * b);
    const uint32_t computed = crc32c(data.first(payload));
    if (stored != computed) {
      throw CorruptDataError(fmt::format(
          "crc32c checksum mismatch: stored {:#010x}, computed {:#010x}", stored, computed));
    }
    out[i] = in[i].slice(0, payload);
  });
}

}  // namespace cuzarr
