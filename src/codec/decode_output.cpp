#include "codec/decode_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

size_t decoded_size_limit(const ChunkRepresentation& decoded) {
  constexpr uint64_t kSlack = uint64_t{64} << 20;
  constexpr uint64_t kMax = std::numeric_limits<size_t>::max() / 2;
  const auto nbytes = static_cast<uint64_t>(decoded.nbytes());
  if (nbytes > (kMax - kSlack) / 8) return static_cast<size_t>(kMax);
  return static_cast<size_t>(nbytes * 8 + kSlack);
}

DecodeOutput::DecodeOutput(size_t initial, size_t limit, std::string codec)
    : buffer_(Buffer::allocate(std::max<size_t>(std::min(initial, limit), 1))),
      limit_(limit),
      codec_(std::move(codec)) {}

void DecodeOutput::grow(size_t used) {
  const size_t current = buffer_.size();
  if (current >= limit_) {
    throw CorruptDataError(fmt::format(
        "{}: decoded data exceeds the limit of {} bytes for this chunk", codec_, limit_));
  }
  const size_t next = current > limit_ / 2 ? limit_ : std::max<size_t>(current * 2, 4096);
  Buffer bigger = Buffer::allocate(std::min(next, limit_));
  if (used > 0) std::memcpy(bigger.data(), buffer_.data(), used);
  buffer_ = std::move(bigger);
}

Buffer DecodeOutput::finish(size_t used) const {
  // Keep the allocation when little of it is wasted; otherwise release the slack.
  if (buffer_.size() - used <= used / 4 + 4096) return buffer_.slice(0, used);
  return Buffer::copy_of(std::span<const std::byte>(buffer_.data(), used));
}

}  // namespace cuzarr
