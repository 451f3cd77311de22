#include "cuzarr/codec/crc32c_codec.hpp"

#include "codec/checksum_framing.hpp"
#include "codec/codec_configuration.hpp"
#include "cuzarr/codec/crc32c.hpp"

namespace cuzarr {

std::shared_ptr<Crc32cCodec> Crc32cCodec::create(const nlohmann::json& configuration,
                                                 const ChunkRepresentation&) {
  CodecConfiguration config("crc32c", configuration, {});
  return std::make_shared<Crc32cCodec>();
}

// v3 crc32c codec: the checksum follows the data as a little-endian uint32.
void Crc32cCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                         const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  encode_with_checksum(in, out, status, "crc32c", ChecksumPlace::end,
                       [](std::span<const std::byte> data) { return crc32c(data); });
}

void Crc32cCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                         const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  decode_with_checksum(in, out, status, "crc32c", ChecksumPlace::end,
                       [](std::span<const std::byte> data) { return crc32c(data); });
}

}  // namespace cuzarr
