#include "codec/checksum_framing.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr size_t kChecksumSize = 4;

}  // namespace

void encode_with_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                          std::span<ChunkStatus> status, std::string_view codec,
                          ChecksumPlace place, const Checksum32Function& checksum) {
  check_batch_sizes(codec, in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    Buffer result = Buffer::allocate(data.size() + kChecksumSize);
    const size_t data_at = place == ChecksumPlace::start ? kChecksumSize : 0;
    const size_t sum_at = place == ChecksumPlace::start ? 0 : data.size();
    if (!data.empty()) std::memcpy(result.data() + data_at, data.data(), data.size());
    const uint32_t sum = checksum(data);
    for (size_t b = 0; b < kChecksumSize; ++b)
      result.data()[sum_at + b] = static_cast<std::byte>(sum >> (8 * b));
    out[i] = std::move(result);
  });
}

void decode_with_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                          std::span<ChunkStatus> status, std::string_view codec,
                          ChecksumPlace place, const Checksum32Function& checksum) {
  check_batch_sizes(codec, in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    if (data.size() < kChecksumSize) {
      throw CorruptDataError(fmt::format(
          "codec \"{}\": {} bytes are too few to hold a 4-byte checksum", codec, data.size()));
    }
    const size_t payload = data.size() - kChecksumSize;
    const size_t data_at = place == ChecksumPlace::start ? kChecksumSize : 0;
    const size_t sum_at = place == ChecksumPlace::start ? 0 : payload;
    uint32_t stored = 0;
    for (size_t b = 0; b < kChecksumSize; ++b)
      stored |= static_cast<uint32_t>(data[sum_at + b]) << (8 * b);
    const uint32_t computed = checksum(data.subspan(data_at, payload));
    if (stored != computed) {
      throw CorruptDataError(
          fmt::format("codec \"{}\": checksum mismatch: stored {:#010x}, computed {:#010x}", codec,
                      stored, computed));
    }
    out[i] = in[i].slice(data_at, payload);
  });
}

}  // namespace cuzarr
