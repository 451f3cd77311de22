#include "cuzarr/codec/numcodecs_jenkins_lookup3_codec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "codec/checksum_framing.hpp"
#include "codec/codec_configuration.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.jenkins_lookup3";

// lookup3's mix() and final() (Bob Jenkins, lookup3.c, public domain).
void mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  a -= c, a ^= std::rotl(c, 4), c += b;
  b -= a, b ^= std::rotl(a, 6), a += c;
  c -= b, c ^= std::rotl(b, 8), b += a;
  a -= c, a ^= std::rotl(c, 16), c += b;
  b -= a, b ^= std::rotl(a, 19), a += c;
  c -= b, c ^= std::rotl(b, 4), b += a;
}

void final_mix(uint32_t& a, uint32_t& b, uint32_t& c) {
  c ^= b, c -= std::rotl(b, 14);
  a ^= c, a -= std::rotl(c, 11);
  b ^= a, b -= std::rotl(a, 25);
  c ^= b, c -= std::rotl(b, 16);
  a ^= c, a -= std::rotl(c, 4);
  b ^= a, b -= std::rotl(a, 14);
  c ^= b, c -= std::rotl(b, 24);
}

// Bytes k[0 .. n) as a little-endian word (n <= 4).
uint32_t le_word(const std::byte* k, size_t n) {
  uint32_t w = 0;
  for (size_t i = 0; i < n; ++i) w |= static_cast<uint32_t>(k[i]) << (8 * i);
  return w;
}

}  // namespace

uint32_t jenkins_lookup3(std::span<const std::byte> data, uint32_t initval) noexcept {
  // The length enters the seed modulo 2^32, as in HDF5 (a size_t cast to uint32_t).
  uint32_t a = 0xdeadbeefu + static_cast<uint32_t>(data.size()) + initval;
  uint32_t b = a, c = a;
  const std::byte* k = data.data();
  size_t length = data.size();
  while (length > 12) {
    a += le_word(k, 4);
    b += le_word(k + 4, 4);
    c += le_word(k + 8, 4);
    mix(a, b, c);
    length -= 12;
    k += 12;
  }
  // The last 1 to 12 bytes: as many as are left of each word. No bytes left (only for empty
  // data): c as it is, without the final mix.
  if (length == 0) return c;
  a += le_word(k, std::min<size_t>(length, 4));
  if (length > 4) b += le_word(k + 4, std::min<size_t>(length - 4, 4));
  if (length > 8) c += le_word(k + 8, length - 8);
  final_mix(a, b, c);
  return c;
}

std::shared_ptr<NumcodecsJenkinsLookup3Codec> NumcodecsJenkinsLookup3Codec::create(
    const nlohmann::json& configuration, const ChunkRepresentation&) {
  CodecConfiguration config(kName, configuration, {"initval", "prefix"});
  const auto initval =
      static_cast<uint32_t>(config.integer("initval", 0, 0xFFFFFFFFll).value_or(0));
  std::vector<std::byte> prefix;
  if (config.has("prefix") && !config.at("prefix").is_null()) {
    const nlohmann::json& p = config.at("prefix");
    if (!p.is_array()) {
      throw InvalidArgumentError(fmt::format(
          "{}\"prefix\" must be null or a list of byte values, got {}", config.prefix(), p.dump()));
    }
    for (const auto& v : p) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 255) {
        throw InvalidArgumentError(fmt::format(
            "{}\"prefix\" must hold byte values 0 to 255, got {}", config.prefix(), v.dump()));
      }
      prefix.push_back(static_cast<std::byte>(v.get<int64_t>()));
    }
  }
  return std::make_shared<NumcodecsJenkinsLookup3Codec>(initval, std::move(prefix));
}

nlohmann::json NumcodecsJenkinsLookup3Codec::to_json() const {
  nlohmann::json prefix = nullptr;
  if (!prefix_.empty()) {
    prefix = nlohmann::json::array();
    for (std::byte b : prefix_) prefix.push_back(static_cast<int>(b));
  }
  return {{"name", kName}, {"configuration", {{"initval", initval_}, {"prefix", prefix}}}};
}

uint32_t NumcodecsJenkinsLookup3Codec::checksum(std::span<const std::byte> data) const {
  if (prefix_.empty()) return jenkins_lookup3(data, initval_);
  std::vector<std::byte> joined(prefix_);
  joined.insert(joined.end(), data.begin(), data.end());
  return jenkins_lookup3(joined, initval_);
}

void NumcodecsJenkinsLookup3Codec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                          const ChunkRepresentation&,
                                          std::span<ChunkStatus> status) const {
  encode_with_checksum(in, out, status, kName, ChecksumPlace::end,
                       [this](std::span<const std::byte> data) { return checksum(data); });
}

void NumcodecsJenkinsLookup3Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                          const ChunkRepresentation&,
                                          std::span<ChunkStatus> status) const {
  decode_with_checksum(in, out, status, kName, ChecksumPlace::end,
                       [this](std::span<const std::byte> data) { return checksum(data); });
}

}  // namespace cuzarr
