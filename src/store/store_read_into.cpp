#include <cstring>

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

}  // namespace cuzarr
