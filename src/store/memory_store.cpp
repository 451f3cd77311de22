#include "cuzarr/store/memory_store.hpp"

#include <mutex>

namespace cuzarr {
namespace {

std::string_view strip_trailing_slash(std::string_view prefix) {
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  return prefix;
}

}  // namespace

std::optional<Buffer> MemoryStore::get(std::string_view key, ByteRange range,
                                       MemoryKind kind) const {
  validate_store_key(key);
  Buffer value;
  {
    std::shared_lock lock(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    value = it->second;  // a shared handle: stored values are never modified in place
  }
  uint64_t begin = 0, end = 0;
  range.resolve(value.size(), begin, end);
  Buffer out = Buffer::allocate(static_cast<size_t>(end - begin), kind);
  copy_bytes(out.data(), kind, value.data() + begin, value.kind(), out.size());
  return out;
}

std::optional<uint64_t> MemoryStore::size(std::string_view key) const {
  validate_store_key(key);
  std::shared_lock lock(mutex_);
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second.size();
}

void MemoryStore::set(std::string_view key, std::span<const std::byte> value) {
  validate_store_key(key);
  Buffer copy = Buffer::copy_of(value);  // outside the lock
  std::unique_lock lock(mutex_);
  auto it = values_.find(key);
  if (it == values_.end()) {
    values_.emplace(std::string(key), std::move(copy));
  } else {
    it->second = std::move(copy);
  }
}

void MemoryStore::erase(std::string_view key) {
  validate_store_key(key);
  std::unique_lock lock(mutex_);
  auto it = values_.find(key);
  if (it != values_.end()) values_.erase(it);
}

void MemoryStore::erase_prefix(std::string_view prefix) {
  prefix = strip_trailing_slash(prefix);
  if (!prefix.empty()) validate_store_key(prefix);
  std::unique_lock lock(mutex_);
  if (prefix.empty()) {
    values_.clear();
    return;
  }
  // Directory semantics, as Store::erase_prefix: everything below "prefix/".
  const std::string directory = std::string(prefix) + "/";
  auto it = values_.lower_bound(directory);
  while (it != values_.end() && it->first.starts_with(directory)) it = values_.erase(it);
}

std::vector<std::string> MemoryStore::list(std::string_view prefix) const {
  std::vector<std::string> keys;
  std::shared_lock lock(mutex_);
  for (auto it = values_.lower_bound(prefix); it != values_.end() && it->first.starts_with(prefix);
       ++it) {
    keys.push_back(it->first);
  }
  return keys;
}

}  // namespace cuzarr
