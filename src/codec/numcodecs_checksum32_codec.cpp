#include "cuzarr/codec/numcodecs_checksum32_codec.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cstring>

#include "codec/codec_configuration.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr size_t kChecksumSize = 4;

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
  if (in.size() != status.size() || out.size() != status.size()) {
    throw InvalidArgumentError(
        fmt::format("codec \"{}\": batch sizes of inputs, outputs and statuses differ", name()));
  }
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    Buffer result = Buffer::allocate(data.size() + kChecksumSize);
    const size_t data_at = location_ == Location::start ? kChecksumSize : 0;
    const size_t sum_at = location_ == Location::start ? 0 : data.size();
    if (!data.empty()) std::memcpy(result.data() + data_at, data.data(), data.size());
    const uint32_t sum = checksum(algorithm_, data);
    // numcodecs writes the checksum as a little-endian uint32 ('<u4').
    for (size_t b = 0; b < kChecksumSize; ++b)
      result.data()[sum_at + b] = static_cast<std::byte>(sum >> (8 * b));
    out[i] = std::move(result);
  });
}

void NumcodecsChecksum32Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                      const ChunkRepresentation&,
                                      std::span<ChunkStatus> status) const {
  if (in.size() != status.size() || out.size() != status.size()) {
    throw InvalidArgumentError(
        fmt::format("codec \"{}\": batch sizes of inputs, outputs and statuses differ", name()));
  }
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    if (data.size() < kChecksumSize) {
      throw CorruptDataError(fmt::format(
          "codec \"{}\": {} bytes are too few to hold a 4-byte checksum", name(), data.size()));
    }
    const size_t payload = data.size() - kChecksumSize;
    const size_t data_at = location_ == Location::start ? kChecksumSize : 0;
    const size_t sum_at = location_ == Location::start ? 0 : payload;
    uint32_t stored = 0;
    for (size_t b = 0; b < kChecksumSize; ++b)
      stored |= static_cast<uint32_t>(data[sum_at + b]) << (8 * b);
    const uint32_t computed = checksum(algorithm_, data.subspan(data_at, payload));
    if (stored != computed) {
      throw CorruptDataError(
          fmt::format("codec \"{}\": checksum mismatch: stored {:#010x}, computed {:#010x}", name(),
                      stored, computed));
    }
    out[i] = in[i].slice(data_at, payload);
  });
}

}  // namespace cuzarr
