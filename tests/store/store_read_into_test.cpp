// Store::read_into: the whole value lands in the targets in order (the file store with gathered
// reads, across more targets than one preadv takes, with direct I/O on too; other stores through
// the default), and an absent key or a value of another size writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "temp_directory.hpp"

namespace cuzarr {
namespace {

std::vector<std::byte> pattern(size_t n) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 7 + i / 251) & 0xFF);
  return v;
}

// Targets of `sizes` bytes spread over `memory` with a 5-byte gap after each.
std::vector<std::span<std::byte>> spread(std::vector<std::byte>& memory,
                                         const std::vector<size_t>& sizes) {
  size_t need = 0;
  for (size_t s : sizes) need += s + 5;
  memory.assign(need, std::byte{0xEE});
  std::vector<std::span<std::byte>> targets;
  size_t at = 0;
  for (size_t s : sizes) {
    targets.emplace_back(memory.data() + at, s);
    at += s + 5;
  }
  return targets;
}

std::vector<std::byte> gathered(const std::vector<std::span<std::byte>>& targets) {
  std::vector<std::byte> out;
  for (const auto& t : targets) out.insert(out.end(), t.begin(), t.end());
  return out;
}

size_t untouched(const std::vector<std::byte>& memory) {
  return static_cast<size_t>(std::count(memory.begin(), memory.end(), std::byte{0xEE}));
}

// True when the 5-byte gaps after the targets still hold 0xEE.
bool gaps_intact(const std::vector<std::byte>& memory, const std::vector<size_t>& sizes) {
  size_t at = 0;
  for (size_t s : sizes) {
    at += s;
    for (size_t k = 0; k < 5; ++k, ++at)
      if (memory[at] != std::byte{0xEE}) return false;
  }
  return at == memory.size();
}

void check_store(Store& store) {
  // Target sizes: many small ones (more than IOV_MAX = 1024), some empty, one large.
  std::vector<size_t> sizes;
  for (size_t i = 0; i < 2500; ++i) sizes.push_back(i % 7 == 0 ? 0 : 3 + i % 5);
  sizes.push_back(100000);
  size_t total = 0;
  for (size_t s : sizes) total += s;
  const auto value = pattern(total);
  store.set("a/c/0", value);

  std::vector<std::byte> memory;
  const auto targets = spread(memory, sizes);
  EXPECT_EQ(store.read_into("a/c/0", targets), ReadIntoResult::read);
  EXPECT_EQ(gathered(targets), value);
  EXPECT_TRUE(gaps_intact(memory, sizes));

  // One byte more or fewer than the value: nothing written.
  for (const long delta : {-1L, 1L}) {
    auto other = sizes;
    other.back() = static_cast<size_t>(static_cast<long>(other.back()) + delta);
    std::vector<std::byte> fresh;
    const auto other_targets = spread(fresh, other);
    EXPECT_EQ(store.read_into("a/c/0", other_targets), ReadIntoResult::size_differs);
    EXPECT_EQ(untouched(fresh), fresh.size());
  }
  std::vector<std::byte> fresh;
  const auto absent_targets = spread(fresh, sizes);
  EXPECT_EQ(store.read_into("a/c/9", absent_targets), ReadIntoResult::absent);
  EXPECT_EQ(store.read_into("a", absent_targets), ReadIntoResult::absent);  // a directory
  EXPECT_EQ(untouched(fresh), fresh.size());
}

void check_read_at(Store& store) {
  const auto value = pattern(10000);
  store.set("a/c/1", value);
  std::vector<std::byte> out(4096, std::byte{0xEE});
  EXPECT_EQ(store.read_at("a/c/1", 0, out), 4096u);
  EXPECT_TRUE(std::equal(out.begin(), out.end(), value.begin()));
  std::fill(out.begin(), out.end(), std::byte{0xEE});
  EXPECT_EQ(store.read_at("a/c/1", 8000, out), 2000u);  // the end of the value
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 2000, value.begin() + 8000));
  EXPECT_EQ(out[2000], std::byte{0xEE});
  EXPECT_EQ(store.read_at("a/c/1", 10000, out), 0u);
  EXPECT_THROW(store.read_at("a/c/8", 0, out), NotFoundError);
}

TEST(StoreReadAt, FileStoreAndDefault) {
  testing::TempDirectory dir;
  FileStore file_store(dir.path());
  check_read_at(file_store);
  MemoryStore memory_store;
  check_read_at(memory_store);
}

TEST(StoreReadInto, FileStoreFillsTheTargetsInOrder) {
  testing::TempDirectory dir;
  FileStore store(dir.path());
  check_store(store);
}

TEST(StoreReadInto, FileStoreWithDirectIo) {
  testing::TempDirectory dir;
  FileStore store(dir.path());
  store.set_direct_io(true);
  check_store(store);
}

TEST(StoreReadInto, DefaultThroughGet) {
  MemoryStore store;
  check_store(store);
}

}  // namespace
}  // namespace cuzarr
