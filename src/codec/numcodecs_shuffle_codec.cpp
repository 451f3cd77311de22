#include "cuzarr/codec/numcodecs_shuffle_codec.hpp"

#include <fmt/format.h>

#include "codec/codec_configuration.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// Byte k of element i moves from i * size + k to k * count + i (numcodecs _doShuffle); unshuffle
// is the inverse.
void shuffle_bytes(const std::byte* src, std::byte* dst, size_t count, size_t size, bool forward) {
  for (size_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < size; ++k) {
      if (forward) {
        dst[k * count + i] = src[i * size + k];
      } else {
        dst[i * size + k] = src[k * count + i];
      }
    }
  }
}

Buffer run(const Buffer& in, int64_t elementsize, bool forward) {
  if (elementsize <= 1) return in;  // numcodecs: "no shuffling needed"
  auto data = in.bytes();
  const auto size = static_cast<size_t>(elementsize);
  if (data.size() % size != 0) {
    const auto message = fmt::format(
        "codec \"numcodecs.shuffle\": {} bytes are not a multiple of \"elementsize\" {}",
        data.size(), elementsize);
    if (forward) throw InvalidArgumentError(message);
    throw CorruptDataError(message);
  }
  Buffer out = Buffer::allocate(data.size());
  shuffle_bytes(data.data(), out.data(), data.size() / size, size, forward);
  return out;
}

}  // namespace

std::shared_ptr<NumcodecsShuffleCodec> NumcodecsShuffleCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config("numcodecs.shuffle", configuration, {"elementsize"});
  // zarr-python fills a missing elementsize from the array's data type (evolve_from_array_spec).
  const auto elementsize = config.integer("elementsize", 0, int64_t{1} << 30)
                               .value_or(static_cast<int64_t>(decoded.data_type.size()));
  return std::make_shared<NumcodecsShuffleCodec>(elementsize);
}

nlohmann::json NumcodecsShuffleCodec::to_json() const {
  return {{"name", "numcodecs.shuffle"}, {"configuration", {{"elementsize", elementsize_}}}};
}

void NumcodecsShuffleCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                   const ChunkRepresentation&,
                                   std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.shuffle", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = run(in[i], elementsize_, true); });
}

void NumcodecsShuffleCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                   const ChunkRepresentation&,
                                   std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.shuffle", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = run(in[i], elementsize_, false); });
}

}  // namespace cuzarr
