#include "cuzarr/codec/numcodecs_lz4_codec.hpp"

#include <fmt/format.h>
#include <lz4.h>

#include <limits>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "codec \"numcodecs.lz4\"";
constexpr size_t kHeaderSize = 4;
// An LZ4 block decodes to at most 255 bytes per input byte (each literal-length/match-length
// extension byte adds at most 255), plus a small constant for the last sequence.
constexpr uint64_t kMaxExpansion = 255;

Buffer lz4_compress(std::span<const std::byte> data, int acceleration) {
  if (data.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    throw InvalidArgumentError(fmt::format("{}: {} bytes exceed LZ4's block limit of {} bytes",
                                           kName, data.size(), LZ4_MAX_INPUT_SIZE));
  }
  const int source_size = static_cast<int>(data.size());
  const int bound = LZ4_compressBound(source_size);
  Buffer out = Buffer::allocate(kHeaderSize + static_cast<size_t>(bound));
  // numcodecs' header: the decoded size as a little-endian uint32.
  for (size_t b = 0; b < kHeaderSize; ++b)
    out.data()[b] = static_cast<std::byte>(static_cast<uint32_t>(source_size) >> (8 * b));
  const int written = LZ4_compress_fast(reinterpret_cast<const char*>(data.data()),
                                        reinterpret_cast<char*>(out.data() + kHeaderSize),
                                        source_size, bound, acceleration);
  if (written <= 0)
    throw InvalidArgumentError(fmt::format("{}: LZ4_compress_fast failed ({})", kName, written));
  return out.slice(0, kHeaderSize + static_cast<size_t>(written));
}

// The decoded size in numcodecs' header: a little-endian uint32 (data holds >= 4 bytes).
uint32_t header_size(std::span<const std::byte> data) {
  uint32_t size = 0;
  for (size_t b = 0; b < kHeaderSize; ++b) size |= static_cast<uint32_t>(data[b]) << (8 * b);
  return size;
}

// The header's decoded size, checked against what the block could hold (LZ4 expands at most
// 255-fold), the int sizes liblz4 takes and `limit`, the most decoded bytes accepted.
size_t checked_decoded_size(std::span<const std::byte> data, size_t limit) {
  if (data.size() < kHeaderSize) {
    throw CorruptDataError(
        fmt::format("{}: {} bytes are too few to hold the 4-byte size header", kName, data.size()));
  }
  const uint32_t size = header_size(data);
  const size_t block = data.size() - kHeaderSize;
  const uint64_t plausible = static_cast<uint64_t>(block) * kMaxExpansion + 64;
  if (size > limit || size > plausible ||
      size > static_cast<uint32_t>(std::numeric_limits<int>::max()) ||
      block > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw CorruptDataError(
        fmt::format("{}: header claims {} decoded bytes, impossible for a {}-byte block "
                    "(or above the limit of {} bytes for this chunk)",
                    kName, size, block, limit));
  }
  return size;
}

// Decodes the block after the header into `out`, whose size is the checked header size.
// LZ4_decompress_safe never reads past the block or writes past `out`.
void lz4_decompress_into(std::span<const std::byte> data, std::span<std::byte> out) {
  if (out.empty()) return;  // numcodecs refuses to decode an empty buffer; accept it
  const auto block = data.subspan(kHeaderSize);
  const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()),
                                      reinterpret_cast<char*>(out.data()),
                                      static_cast<int>(block.size()), static_cast<int>(out.size()));
  if (got < 0)
    throw CorruptDataError(fmt::format("{}: malformed LZ4 block (error {})", kName, got));
  if (static_cast<size_t>(got) != out.size()) {
    throw CorruptDataError(fmt::format("{}: header claims {} decoded bytes, the block holds {}",
                                       kName, out.size(), got));
  }
}

Buffer lz4_decompress(std::span<const std::byte> data, const ChunkRepresentation& decoded) {
  Buffer out = Buffer::allocate(checked_decoded_size(data, decoded_size_limit(decoded)));
  lz4_decompress_into(data, out.bytes());
  return out;
}

}  // namespace

std::shared_ptr<NumcodecsLz4Codec> NumcodecsLz4Codec::create(const nlohmann::json& configuration,
                                                             const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.lz4", configuration, {"acceleration"});
  auto acceleration =
      config
          .integer("acceleration", std::numeric_limits<int>::min(), std::numeric_limits<int>::max())
          .value_or(1);
  // numcodecs: "if acceleration <= 0: acceleration = DEFAULT_ACCELERATION".
  return std::make_shared<NumcodecsLz4Codec>(acceleration <= 0 ? 1
                                                               : static_cast<int>(acceleration));
}

nlohmann::json NumcodecsLz4Codec::to_json() const {
  return {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", acceleration_}}}};
}

void NumcodecsLz4Codec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                               const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.lz4", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = lz4_compress(in[i].bytes(), acceleration_); });
}

void NumcodecsLz4Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                               const ChunkRepresentation& decoded,
                               std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.lz4", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = lz4_decompress(in[i].bytes(), decoded); });
}

bool NumcodecsLz4Codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                                    const ChunkRepresentation&, size_t) const {
  // Only a header that records exactly out.size(): anything else goes through decode().
  if (in.size() < kHeaderSize || header_size(in) != out.size()) return false;
  checked_decoded_size(in, out.size());
  lz4_decompress_into(in, out);
  return true;
}

}  // namespace cuzarr
