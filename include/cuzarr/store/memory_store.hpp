// MemoryStore: keys and values in process memory (thread-safe). For tests, caches and scratch.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>

#include "cuzarr/store/store.hpp"

namespace cuzarr {

class MemoryStore final : public Store {
 public:
  std::optional<Buffer> get(std::string_view key, ByteRange range = {},
                            MemoryKind kind = MemoryKind::host) const override;
  std::optional<uint64_t> size(std::string_view key) const override;
  void set(std::string_view key, std::span<const std::byte> value) override;
  using Store::set;
  void erase(std::string_view key) override;
  void erase_prefix(std::string_view prefix) override;
  std::vector<std::string> list(std::string_view prefix = "") const override;
  std::string description() const override { return "memory store"; }

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, Buffer, std::less<>> values_;
};

}  // namespace cuzarr
