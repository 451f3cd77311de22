#include "cuzarr/core/interned_bytes.hpp"

#include <mutex>
#include <set>
#include <string>

namespace cuzarr {

VariableLengthValue intern_bytes(std::string_view bytes) {
  if (bytes.empty()) return {};
  static std::mutex mutex;
  static auto* pool = new std::set<std::string, std::less<>>();  // never freed: values outlive it
  std::lock_guard lock(mutex);
  auto it = pool->find(bytes);
  if (it == pool->end()) it = pool->emplace(bytes).first;
  return {it->data(), it->size()};
}

}  // namespace cuzarr
