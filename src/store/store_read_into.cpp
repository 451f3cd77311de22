#include <fmt/format.h>

#include <cstring>

#include "cuzarr/core/error.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

ReadIntoResult Store::read_into(std::string_view key,
                                std::span<const std::span<std::byte>> targets) const {
  const auto value = get(key);
  if (!value) return ReadIntoResult::absent;
  size_t total = 0;
  for (const auto& t : targets) total += t.size();
  if (value->size() != total) return ReadIntoResult::size_differs;
  const std::byte* from = value->data();
  for (const auto& t : targets) {
    if (t.empty()) continue;
    std::memcpy(t.data(), from, t.size());
    from += t.size();
  }
  return ReadIntoResult::read;
}

size_t Store::read_at(std::string_view key, uint64_t offset, std::span<std::byte> out) const {
  const auto value = get(key, ByteRange::range(offset, out.size()));
  if (!value) throw NotFoundError(fmt::format("key \"{}\" not found in {}", key, description()));
  if (!value->empty()) std::memcpy(out.data(), value->data(), value->size());
  return value->size();
}

}  // namespace cuzarr
