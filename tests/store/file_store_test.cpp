// FileStore behaviour beyond the Store conformance suite: files on disk, atomic replacement,
// pruning, the root, and failures.
#include "cuzarr/store/file_store.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cuzarr/core/error.hpp"
#include "store/temp_directory.hpp"

namespace fs = std::filesystem;

namespace cuzarr {
namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every file and directory below `root`, as paths relative to it.
std::vector<std::string> tree(const fs::path& root) {
  std::vector<std::string> entries;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    entries.push_back(fs::relative(entry.path(), root).generic_string());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

class FileStoreTest : public ::testing::Test {
 protected:
  testing::TempDirectory directory;
  fs::path root = directory.path() / "data.zarr";
  FileStore store{root};
};

TEST_F(FileStoreTest, CreatesTheRootAndDescribesIt) {
  EXPECT_TRUE(fs::is_directory(root));
  EXPECT_EQ(store.root(), fs::canonical(root));
  EXPECT_NE(store.description().find(fs::canonical(root).string()), std::string::npos);
}

TEST_F(FileStoreTest, KeysAreFilesBelowTheRoot) {
  store.set("g/arr/c/0/1", std::string_view("chunk bytes"));
  EXPECT_EQ(read_file(root / "g" / "arr" / "c" / "0" / "1"), "chunk bytes");
  std::ofstream(root / "written-elsewhere", std::ios::binary) << "hello";
  EXPECT_EQ(store.get("written-elsewhere")->as_string_view(), "hello");
  EXPECT_EQ(tree(root), (std::vector<std::string>{"g", "g/arr", "g/arr/c", "g/arr/c/0",
                                                  "g/arr/c/0/1", "written-elsewhere"}));
}

TEST_F(FileStoreTest, MissingRootWithoutCreateIsNotFound) {
  const fs::path missing = directory.path() / "missing.zarr";
  try {
    FileStore absent(missing, /*create=*/false);
    FAIL() << "no exception";
  } catch (const NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_NO_THROW(FileStore(root, /*create=*/false));
}

TEST_F(FileStoreTest, RootThatIsAFileIsRejected) {
  std::ofstream(directory.path() / "plain") << "x";
  EXPECT_THROW(FileStore(directory.path() / "plain"), InvalidArgumentError);
}

TEST_F(FileStoreTest, ARelativeRootIsResolvedOnce) {
  const fs::path previous = fs::current_path();
  fs::current_path(directory.path());
  FileStore relative("relative.zarr");
  fs::current_path(previous);
  relative.set("k", std::string_view("v"));
  EXPECT_EQ(read_file(directory.path() / "relative.zarr" / "k"), "v");
}

TEST_F(FileStoreTest, SetLeavesNoTemporaryFiles) {
  for (int i = 0; i < 20; ++i)
    store.set("a/k" + std::to_string(i % 4), std::string_view(std::string(i * 100, 'x')));
  EXPECT_EQ(tree(root), (std::vector<std::string>{"a", "a/k0", "a/k1", "a/k2", "a/k3"}));
}

TEST_F(FileStoreTest, ListingsSkipTheTemporaryFilesOfWritesInFlight) {
  store.set("a/k", std::string_view("v"));
  std::ofstream(root / "a" / ".cuzarr-tmp-123-abc-7") << "partial";
  std::ofstream(root / ".cuzarr-tmp-9") << "partial";
  EXPECT_EQ(store.list(), std::vector<std::string>{"a/k"});
  EXPECT_EQ(store.list_dir("a").keys, std::vector<std::string>{"k"});
  EXPECT_TRUE(store.list_dir("").keys.empty());
}

TEST_F(FileStoreTest, ReadersSeeTheOldOrTheNewValueNeverAMix) {
  const std::string first(200'000, 'A'), second(150'000, 'B');
  store.set("v", std::string_view(first));
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!done) {
        auto value = store.get("v");
        ++reads;
        if (!value || (value->as_string_view() != first && value->as_string_view() != second))
          ++torn;
        auto tail = store.get("v", ByteRange::suffix(10));
        if (!tail || (tail->as_string_view() != std::string(10, 'A') &&
                      tail->as_string_view() != std::string(10, 'B'))) {
          ++torn;
        }
      }
    });
  }
  // Replacements are quick: start them once a reader runs, or they may all finish before.
  while (reads.load() == 0) std::this_thread::yield();
  for (int i = 0; i < 200; ++i) store.set("v", std::string_view(i % 2 ? first : second));
  done = true;
  for (auto& reader : readers) reader.join();
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(tree(root), std::vector<std::string>{"v"});
}

TEST_F(FileStoreTest, ErasePrunesEmptyDirectoriesButNotTheRoot) {
  store.set("a/b/c/d", std::string_view("1"));
  store.set("a/x", std::string_view("2"));
  store.erase("a/b/c/d");
  EXPECT_EQ(tree(root), (std::vector<std::string>{"a", "a/x"}));
  store.erase("a/x");
  EXPECT_TRUE(tree(root).empty());
  EXPECT_TRUE(fs::is_directory(root));
}

TEST_F(FileStoreTest, ErasePrefixRemovesTheDirectoryAndPrunesParents) {
  store.set("g/arr/c/0/0", std::string_view("1"));
  store.set("g/arr/c/1/0", std::string_view("2"));
  store.set("other", std::string_view("3"));
  store.erase_prefix("g/arr/c");
  EXPECT_EQ(tree(root), std::vector<std::string>{"other"});
  store.erase_prefix("");
  EXPECT_TRUE(tree(root).empty());
  EXPECT_TRUE(fs::is_directory(root));
}

TEST_F(FileStoreTest, ErasingADirectoryAsAKeyDoesNothing) {
  store.set("a/b", std::string_view("1"));
  EXPECT_NO_THROW(store.erase("a"));
  EXPECT_TRUE(store.exists("a/b"));
}

TEST_F(FileStoreTest, KeysCannotEscapeTheRoot) {
  std::ofstream(directory.path() / "outside") << "secret";
  for (const char* key : {"../outside", "a/../../outside", "/etc/passwd", "..", "a/../../../x"}) {
    SCOPED_TRACE(key);
    EXPECT_THROW(store.get(key), InvalidArgumentError);
    EXPECT_THROW(store.set(key, std::string_view("overwritten")), InvalidArgumentError);
    EXPECT_THROW(store.erase(key), InvalidArgumentError);
    EXPECT_THROW(store.erase_prefix(key), InvalidArgumentError);
    EXPECT_THROW(store.list_dir(key), InvalidArgumentError);
  }
  EXPECT_EQ(read_file(directory.path() / "outside"), "secret");
  EXPECT_TRUE(store.list("../").empty());
  EXPECT_TRUE(tree(root).empty());
}

TEST_F(FileStoreTest, AWriteBelowARegularFileFailsAndKeepsOtherValues) {
  store.set("file", std::string_view("old"));
  store.set("sibling", std::string_view("kept"));
  try {
    store.set("file/child", std::string_view("new"));
    FAIL() << "no exception";
  } catch (const IoError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("\"file/child\""), std::string::npos) << message;
    EXPECT_NE(message.find((fs::canonical(root) / "file").string()), std::string::npos) << message;
  }
  EXPECT_EQ(store.get("file")->as_string_view(), "old");
  EXPECT_EQ(store.get("sibling")->as_string_view(), "kept");
  EXPECT_FALSE(store.get("file/child").has_value());
  EXPECT_EQ(tree(root), (std::vector<std::string>{"file", "sibling"}));
}

TEST_F(FileStoreTest, AWriteOntoADirectoryFailsAndRemovesItsTemporaryFile) {
  store.set("group/arr", std::string_view("v"));
  try {
    store.set("group", std::string_view("x"));
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("\"group\""), std::string::npos) << e.what();
  }
  EXPECT_EQ(tree(root), (std::vector<std::string>{"group", "group/arr"}));
  EXPECT_EQ(store.get("group/arr")->as_string_view(), "v");
}

TEST_F(FileStoreTest, AFailedReplaceKeepsTheOldValue) {
  if (::geteuid() == 0) GTEST_SKIP() << "permissions do not bind the super-user";
  store.set("ro/k", std::string_view("old"));
  fs::permissions(root / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(store.set("ro/k", std::string_view("new")), IoError);
  fs::permissions(root / "ro", fs::perms::owner_all);
  EXPECT_EQ(store.get("ro/k")->as_string_view(), "old");
  EXPECT_EQ(tree(root), (std::vector<std::string>{"ro", "ro/k"}));
}

TEST_F(FileStoreTest, UnreadableFilesAreIoErrorsNamingTheFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "permissions do not bind the super-user";
  store.set("locked", std::string_view("v"));
  fs::permissions(root / "locked", fs::perms::none);
  try {
    store.get("locked");
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find((fs::canonical(root) / "locked").string()),
              std::string::npos)
        << e.what();
  }
  fs::permissions(root / "locked", fs::perms::owner_all);
}

TEST_F(FileStoreTest, ListDoesNotDescendIntoUnrelatedDirectories) {
  store.set("a/1", std::string_view("v"));
  store.set("b/1", std::string_view("v"));
  EXPECT_EQ(store.list("a"), std::vector<std::string>{"a/1"});
  EXPECT_EQ(store.list("a/1"), std::vector<std::string>{"a/1"});
  EXPECT_TRUE(store.list("a/1/").empty());
}

#ifndef CUZARR_HAVE_CUDA
TEST_F(FileStoreTest, DeviceReadsNeedCuda) {
  store.set("k", std::string_view("v"));
  EXPECT_THROW(store.get("k", {}, MemoryKind::device), UnsupportedError);
  EXPECT_THROW(store.get("k", {}, MemoryKind::pinned), UnsupportedError);
  EXPECT_FALSE(store.get("absent", {}, MemoryKind::device).has_value());
}
#endif

}  // namespace
}  // namespace cuzarr
