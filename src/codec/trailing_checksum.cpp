#include "codec/trailing_checksum.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr size_t kChecksumSize = 4;

void check_batch(size_t in, size_t out, size_t status, std::string_view codec) {
  if (in != status || out != status) {
    throw InvalidArgumentError(
        fmt::format("codec \"{}\": batch sizes of inputs, outputs and statuses differ", codec));
  }
}

}  // namespace

void encode_with_trailing_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                                   std::span<ChunkStatus> status, std::string_view codec,
                                   const Checksum32Function& checksum) {
  check_batch(in.size(), out.size(), status.size(), codec);
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    Buffer result = Buffer::allocate(data.size() + kChecksumSize);
    if (!data.empty()) std::memcpy(result.data(), data.data(), data.size());
    const uint32_t sum = checksum(data);
    for (size_t b = 0; b < kChecksumSize; ++b)
      result.data()[data.size() + b] = static_cast<std::byte>(sum >> (8 * b));
    out[i] = std::move(result);
  });
}

void decode_with_trailing_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                                   std::span<ChunkStatus> status, std::string_view codec,
                                   const Checksum32Function& checksum) {
  check_batch(in.size(), out.size(), status.size(), codec);
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    if (data.size() < kChecksumSize) {
      throw CorruptDataError(fmt::format(
          "codec \"{}\": {} bytes are too few to hold a 4-byte checksum", codec, data.size()));
    }
    const size_t payload = data.size() - kChecksumSize;
    uint32_t stored = 0;
    for (size_t b = 0; b < kChecksumSize; ++b)
      stored |= static_cast<uint32_t>(data[payload + b]) << (8 * b);
    const uint32_t computed = checksum(data.first(payload));
    if (stored != computed) {
      throw CorruptDataError(
          fmt::format("codec \"{}\": checksum mismatch: stored {:#010x}, computed {:#010x}", codec,
                      stored, computed));
    }
    out[i] = in[i].slice(0, payload);
  });
}

}  // namespace cuzarr
