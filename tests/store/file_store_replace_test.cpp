// FileStore replacing existing values: the new bytes whatever the old size, no temporary files
// left behind, a reader holding the old file keeps reading the old bytes, and a value stored
// where a directory stands still fails without touching the directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "cuzarr/store/file_store.hpp"
#include "store/temp_directory.hpp"

namespace fs = std::filesystem;

namespace cuzarr {
namespace {

std::vector<std::string> entries_of(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class FileStoreReplaceTest : public ::testing::Test {
 protected:
  testing::TempDirectory directory;
  fs::path root = directory.path() / "data.zarr";
  FileStore store{root};
};

TEST_F(FileStoreReplaceTest, ReplacementsOfAnySizeLeaveOnlyTheNewValue) {
  const std::vector<size_t> sizes = {10, 300'000, 0, 4096, 70'000, 1};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string value(sizes[i], static_cast<char>('a' + i));
    store.set("c/0", std::string_view(value));
    ASSERT_EQ(store.get("c/0")->as_string_view(), value) << i;
    EXPECT_EQ(store.size("c/0"), sizes[i]) << i;
    EXPECT_EQ(entries_of(root / "c"), std::vector<std::string>{"0"}) << i;
  }
  // Gathered writes replace the same way.
  const std::string head(5000, 'h'), tail(9, 't');
  const std::span<const std::byte> parts[2] = {std::as_bytes(std::span(head)),
                                               std::as_bytes(std::span(tail))};
  store.set_parts("c/0", parts);
  EXPECT_EQ(store.get("c/0")->as_string_view(), head + tail);
  EXPECT_EQ(entries_of(root / "c"), std::vector<std::string>{"0"});
}

TEST_F(FileStoreReplaceTest, AnOpenReaderKeepsReadingTheOldValue) {
  const std::string old_value(100'000, 'o'), new_value(50'000, 'n');
  store.set("k", std::string_view(old_value));
  const int fd = ::open((root / "k").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  store.set("k", std::string_view(new_value));
  std::string seen(old_value.size() + 1, '\0');
  const ssize_t n = ::pread(fd, seen.data(), seen.size(), 0);
  ::close(fd);
  ASSERT_EQ(n, static_cast<ssize_t>(old_value.size()));
  seen.resize(static_cast<size_t>(n));
  EXPECT_EQ(seen, old_value);
  EXPECT_EQ(store.get("k")->as_string_view(), new_value);
  EXPECT_EQ(entries_of(root), std::vector<std::string>{"k"});
}

TEST_F(FileStoreReplaceTest, AValueWhereADirectoryStandsFailsAndKeepsTheDirectory) {
  store.set("g/a/0", std::string_view("inner"));
  EXPECT_THROW(store.set("g/a", std::string_view("x")), IoError);
  EXPECT_TRUE(fs::is_directory(root / "g" / "a"));
  EXPECT_EQ(store.get("g/a/0")->as_string_view(), "inner");
  EXPECT_EQ(entries_of(root / "g"), std::vector<std::string>{"a"});
  // The key next to it is still replaced normally.
  store.set("g/b", std::string_view("1"));
  store.set("g/b", std::string_view("22"));
  EXPECT_EQ(store.get("g/b")->as_string_view(), "22");
  EXPECT_EQ(entries_of(root / "g"), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace cuzarr
