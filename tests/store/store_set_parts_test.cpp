// Store::set_parts: the value stored is the concatenation of the parts, for the default (joins
// them, MemoryStore) and FileStore's gathered writes, including more parts than one writev call
// takes and empty parts.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "store/temp_directory.hpp"

namespace cuzarr {
namespace {

struct MemoryStoreFactory {
  std::unique_ptr<Store> make() { return std::make_unique<MemoryStore>(); }
};

struct FileStoreFactory {
  testing::TempDirectory directory;
  std::unique_ptr<Store> make() {
    return std::make_unique<FileStore>(directory.path() / "store.zarr");
  }
};

std::span<const std::byte> bytes_of(const std::string& text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

std::string text_of(const std::optional<Buffer>& buffer) {
  if (!buffer) return "<absent>";
  return std::string(buffer->as_string_view());
}

template <class Factory>
class StoreSetParts : public ::testing::Test {
 protected:
  Factory factory;
  std::unique_ptr<Store> store = factory.make();
};

using Factories = ::testing::Types<MemoryStoreFactory, FileStoreFactory>;
class FactoryNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, MemoryStoreFactory> ? "MemoryStore" : "FileStore";
  }
};
TYPED_TEST_SUITE(StoreSetParts, Factories, FactoryNames);

TYPED_TEST(StoreSetParts, StoresTheConcatenationAndReplacesTheOldValue) {
  this->store->set("a/c/0", std::string_view("old value, longer than the new one"));
  const std::string first = "ab", empty, second = "cde", third = "f";
  const std::span<const std::byte> parts[] = {bytes_of(first), bytes_of(empty), bytes_of(second),
                                              bytes_of(third)};
  this->store->set_parts("a/c/0", parts);
  EXPECT_EQ(text_of(this->store->get("a/c/0")), "abcdef");
}

TYPED_TEST(StoreSetParts, ManyPartsAreWrittenInOrder) {
  // More parts than one gathered write takes (IOV_MAX is 1024 on Linux).
  std::vector<std::string> texts;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    texts.push_back(std::string(static_cast<size_t>(i % 7), static_cast<char>('a' + i % 26)));
    expected += texts.back();
  }
  std::vector<std::span<const std::byte>> parts;
  for (const auto& t : texts) parts.push_back(bytes_of(t));
  this->store->set_parts("k", parts);
  EXPECT_EQ(text_of(this->store->get("k")), expected);
}

TYPED_TEST(StoreSetParts, NoPartsStoreAnEmptyValue) {
  this->store->set_parts("k", {});
  EXPECT_EQ(this->store->size("k"), std::optional<uint64_t>(0));
}

}  // namespace
}  // namespace cuzarr
