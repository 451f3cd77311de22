#include "cuzarr/codec/numcodecs_base64_codec.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "codec/codec_configuration.hpp"
#include "cuzarr/core/base64.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

std::string_view as_text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::shared_ptr<NumcodecsBase64Codec> NumcodecsBase64Codec::create(
    const nlohmann::json& configuration, const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.base64", configuration, {});
  return std::make_shared<NumcodecsBase64Codec>();
}

void NumcodecsBase64Codec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                  const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.base64", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    out[i] = Buffer::copy_of(std::string_view(base64_encode(as_text(in[i].bytes()))));
  });
}

void NumcodecsBase64Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                  const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.base64", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    std::string bytes;
    try {
      bytes = base64_decode(as_text(in[i].bytes()));
    } catch (const InvalidArgumentError& e) {
      throw CorruptDataError(fmt::format("codec \"numcodecs.base64\": {}", e.what()));
    }
    out[i] = Buffer::copy_of(std::string_view(bytes));
  });
}

}  // namespace cuzarr
