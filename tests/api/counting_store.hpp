// CountingStore: a MemoryStore that records the keys set and counts batched gets, for tests that
// check which chunks a call writes and how many reads it makes.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "cuzarr/store/memory_store.hpp"

namespace cuzarr::test {

class CountingStore final : public Store {
 public:
  std::optional<Buffer> get(std::string_view key, ByteRange range = {},
                            MemoryKind kind = MemoryKind::host) const override {
    return inner_.get(key, range, kind);
  }
  std::vector<std::optional<Buffer>> get_many(std::span<const KeyRange> requests,
                                              MemoryKind kind = MemoryKind::host) const override {
    {
      std::lock_guard lock(mutex_);
      ++get_many_calls_;
    }
    return Store::get_many(requests, kind);
  }
  std::optional<uint64_t> size(std::string_view key) const override { return inner_.size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override {
    {
      std::lock_guard lock(mutex_);
      keys_set_.emplace_back(key);
    }
    inner_.set(key, value);
  }
  using Store::set;
  void erase(std::string_view key) override { inner_.erase(key); }
  std::vector<std::string> list(std::string_view prefix = "") const override {
    return inner_.list(prefix);
  }
  std::string description() const override { return "counting memory store"; }

  /// Keys passed to set() since the last reset(), in call order.
  std::vector<std::string> keys_set() const {
    std::lock_guard lock(mutex_);
    return keys_set_;
  }
  size_t get_many_calls() const {
    std::lock_guard lock(mutex_);
    return get_many_calls_;
  }
  void reset() {
    std::lock_guard lock(mutex_);
    keys_set_.clear();
    get_many_calls_ = 0;
  }

 private:
  MemoryStore inner_;
  mutable std::mutex mutex_;
  std::vector<std::string> keys_set_;
  mutable size_t get_many_calls_ = 0;
};

}  // namespace cuzarr::test
