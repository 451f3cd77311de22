// FileStore with direct I/O (O_DIRECT): every byte range of files of awkward sizes reads back the
// same as through the page cache, whether the file system accepts O_DIRECT or the store falls back.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "cuzarr/store/file_store.hpp"
#include "store/temp_directory.hpp"

namespace cuzarr {
namespace {

std::vector<std::byte> pattern(size_t size) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 131 + i / 4096) & 0xff);
  return bytes;
}

std::vector<std::byte> as_vector(const std::optional<Buffer>& buffer) {
  const auto bytes = buffer->bytes();
  return {bytes.begin(), bytes.end()};
}

TEST(FileStoreDirectIo, OffByDefault) {
  testing::TempDirectory dir;
  EXPECT_FALSE(FileStore(dir.path()).direct_io());
}

TEST(FileStoreDirectIo, ReadsEveryRangeLikeBufferedReads) {
  testing::TempDirectory dir;
  FileStore buffered(dir.path());
  FileStore direct(dir.path());
  direct.set_direct_io(true);
  ASSERT_TRUE(direct.direct_io());
  for (size_t size : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097},
                      size_t{3 * 4096 + 5}, size_t{(1 << 20) + 3}}) {
    SCOPED_TRACE(size);
    const std::string key = "c/" + std::to_string(size);
    const auto data = pattern(size);
    buffered.set(key, data);
    EXPECT_EQ(as_vector(direct.get(key)), data);
    if (size == 0) continue;
    const std::vector<ByteRange> ranges = {
        ByteRange::range(0, size / 2), ByteRange::range(1, size > 1 ? size - 1 : 0),
        ByteRange::range(size / 3, size / 3), ByteRange::from_offset(size / 2),
        ByteRange::suffix(size / 4)};
    for (const auto& range : ranges) {
      SCOPED_TRACE(range.to_string());
      EXPECT_EQ(as_vector(direct.get(key, range)), as_vector(buffered.get(key, range)));
    }
  }
  EXPECT_FALSE(direct.get("c/missing").has_value());
}

TEST(FileStoreDirectIo, GetManyReadsInParallel) {
  testing::TempDirectory dir;
  FileStore store(dir.path());
  store.set_direct_io(true);
  std::vector<KeyRange> requests;
  for (int i = 0; i < 16; ++i) {
    store.set("k" + std::to_string(i), pattern(10000 + static_cast<size_t>(i) * 777));
    requests.push_back({"k" + std::to_string(i), ByteRange::range(static_cast<uint64_t>(i), 5000)});
  }
  const auto results = store.get_many(requests);
  for (int i = 0; i < 16; ++i) {
    const auto whole = pattern(10000 + static_cast<size_t>(i) * 777);
    const std::vector<std::byte> expected(whole.begin() + i, whole.begin() + i + 5000);
    EXPECT_EQ(as_vector(results[static_cast<size_t>(i)]), expected) << i;
  }
}

}  // namespace
}  // namespace cuzarr
