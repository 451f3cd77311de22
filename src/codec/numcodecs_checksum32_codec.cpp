#include "cuzarr/codec/numcodecs_checksum32_codec.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include "codec/checksum_framing.hpp"
#include "codec/codec_configuration.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

const char* algorithm_id(NumcodecsChecksum32Codec::Algorithm algorithm) {
  switch (algorithm) {
    case NumcodecsChecksum32Codec::Algorithm::crc32:
      return "crc32";
    case NumcodecsChecksum32Codec::Algorithm::adler32:
      return "adler32";
    case NumcodecsChecksum32Codec::Algorithm::crc32c:
      return "crc32c";
  }
  return "?";
}

ChecksumPlace place(NumcodecsChecksum32Codec::Location location) {
  return location == NumcodecsChecksum32Codec::Location::start ? ChecksumPlace::start
                                                               : ChecksumPlace::end;
}

}  // namespace

uint32_t NumcodecsChecksum32Codec::checksum(Algorithm algorithm, std::span<const std::byte> data) {
  const auto* bytes = reinterpret_cast<const Bytef*>(data.data());
  switch (algorithm) {
    // The *_z variants take a size_t length (no 4 GiB limit).
    case Algorithm::crc32:
      return static_cast<uint32_t>(crc32_z(crc32_z(0, nullptr, 0), bytes, data.size()));
    case Algorithm::adler32:
      return static_cast<uint32_t>(adler32_z(adler32_z(0, nullptr, 0), bytes, data.size()));
    case Algorithm::crc32c:
      return crc32c(data);
  }
  return 0;
}

std::shared_ptr<NumcodecsChecksum32Codec> NumcodecsChecksum32Codec::create(
    Algorithm algorithm, const nlohmann::json& configuration, const ChunkRepresentation&) {
  CodecConfiguration config(fmt::format("numcodecs.{}", algorithm_id(algorithm)), configuration,
                            {"location"});
  Location location = default_location(algorithm);
  if (auto text = config.string("location")) {
    if (*text == "start") {
      location = Location::start;
    } else if (*text == "end") {
      location = Location::end;
    } else {
      throw InvalidArgumentError(fmt::format(
          "{}\"location\" must be \"start\" or \"end\", got \"{}\"", config.prefix(), *text));
    }
  }
  return std::make_shared<NumcodecsChecksum32Codec>(algorithm, location);
}

std::string NumcodecsChecksum32Codec::name() const {
  return fmt::format("numcodecs.{}", algorithm_id(algorithm_));
}

nlohmann::json NumcodecsChecksum32Codec::to_json() const {
  return {{"name", name()},
          {"configuration", {{"location", location_ == Location::start ? "start" : "end"}}}};
}

void NumcodecsChecksum32Codec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                      const ChunkRepresentation&,
                                      std::span<ChunkStatus> status) const {
  encode_with_checksum(
      in, out, status, name(), place(location_),
      [this](std::span<const std::byte> data) { return checksum(algorithm_, data); });
}

void NumcodecsChecksum32Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                      const ChunkRepresentation&,
                                      std::span<ChunkStatus> status) const {
  decode_with_checksum(
      in, out, status, name(), place(location_),
      [this](std::span<const std::byte> data) { return checksum(algorithm_, data); });
}

}  // namespace cuzarr
