// Behaviour every Store must share, run against MemoryStore and FileStore.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuzarr/core/error.hpp"
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

std::string text_of(const std::optional<Buffer>& buffer) {
  if (!buffer) return "<absent>";
  return std::string(buffer->as_string_view());
}

template <class Factory>
class StoreConformance : public ::testing::Test {
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
TYPED_TEST_SUITE(StoreConformance, Factories, FactoryNames);

TYPED_TEST(StoreConformance, SetThenGetReturnsTheValue) {
  this->store->set("zarr.json", std::string_view("{\"a\": 1}"));
  EXPECT_EQ(text_of(this->store->get("zarr.json")), "{\"a\": 1}");
  EXPECT_EQ(this->store->get("zarr.json")->kind(), MemoryKind::host);
}

TYPED_TEST(StoreConformance, SetOverwritesTheOldValue) {
  this->store->set("k", std::string_view("a much longer first value"));
  this->store->set("k", std::string_view("short"));
  EXPECT_EQ(text_of(this->store->get("k")), "short");
  EXPECT_EQ(this->store->size("k"), 5u);
}

TYPED_TEST(StoreConformance, MissingKeysAreAbsentNotErrors) {
  EXPECT_FALSE(this->store->get("nothing").has_value());
  EXPECT_FALSE(this->store->get("no/such/key", ByteRange::range(0, 4)).has_value());
  EXPECT_FALSE(this->store->size("nothing").has_value());
  EXPECT_FALSE(this->store->exists("nothing"));
}

TYPED_TEST(StoreConformance, AGroupOfKeysIsNotItselfAKey) {
  this->store->set("a/b", std::string_view("x"));
  EXPECT_FALSE(this->store->get("a").has_value());
  EXPECT_FALSE(this->store->exists("a"));
  EXPECT_TRUE(this->store->exists("a/b"));
}

TYPED_TEST(StoreConformance, ByteRanges) {
  auto& store = *this->store;
  store.set("v", std::string_view("0123456789"));
  EXPECT_EQ(text_of(store.get("v", ByteRange::full())), "0123456789");
  EXPECT_EQ(text_of(store.get("v", ByteRange::range(2, 3))), "234");
  EXPECT_EQ(text_of(store.get("v", ByteRange::range(0, 0))), "");
  EXPECT_EQ(text_of(store.get("v", ByteRange::from_offset(7))), "789");
  EXPECT_EQ(text_of(store.get("v", ByteRange::from_offset(0))), "0123456789");
  EXPECT_EQ(text_of(store.get("v", ByteRange::suffix(4))), "6789");
  EXPECT_EQ(text_of(store.get("v", ByteRange::suffix(0))), "");
}

TYPED_TEST(StoreConformance, ByteRangesPastTheEndAreClamped) {
  auto& store = *this->store;
  store.set("v", std::string_view("0123456789"));
  EXPECT_EQ(text_of(store.get("v", ByteRange::range(8, 100))), "89");
  EXPECT_EQ(text_of(store.get("v", ByteRange::range(10, 5))), "");
  EXPECT_EQ(text_of(store.get("v", ByteRange::range(50, 5))), "");
  EXPECT_EQ(text_of(store.get("v", ByteRange::range(3, UINT64_MAX))), "3456789");
  EXPECT_EQ(text_of(store.get("v", ByteRange::from_offset(11))), "");
  EXPECT_EQ(text_of(store.get("v", ByteRange::suffix(25))), "0123456789");
}

TYPED_TEST(StoreConformance, EmptyValues) {
  auto& store = *this->store;
  store.set("empty", std::span<const std::byte>());
  ASSERT_TRUE(store.exists("empty"));
  EXPECT_EQ(store.size("empty"), 0u);
  auto value = store.get("empty");
  ASSERT_TRUE(value.has_value());
  EXPECT_TRUE(value->empty());
  auto suffix = store.get("empty", ByteRange::suffix(3));
  ASSERT_TRUE(suffix.has_value());
  EXPECT_TRUE(suffix->empty());
}

TYPED_TEST(StoreConformance, BinaryValuesWithNulBytes) {
  std::vector<std::byte> value(1000);
  for (size_t i = 0; i < value.size(); ++i) value[i] = static_cast<std::byte>((i * 37) % 256);
  value[0] = value[500] = value[999] = std::byte{0};
  this->store->set("bin", value);
  auto got = this->store->get("bin");
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->size(), value.size());
  EXPECT_TRUE(std::equal(value.begin(), value.end(), got->bytes().begin()));
  auto middle = this->store->get("bin", ByteRange::range(499, 3));
  ASSERT_TRUE(middle.has_value());
  EXPECT_TRUE(std::equal(value.begin() + 499, value.begin() + 502, middle->bytes().begin(),
                         middle->bytes().end()));
}

// Requests of the whole values "c/0" .. "c/39", of which every `absent_every`-th (from "c/0") is
// not stored and the others hold "value-<i>", then of the last byte of "c/1".
std::vector<KeyRange> numbered_value_requests(Store& store, int absent_every) {
  std::vector<KeyRange> requests;
  for (int i = 0; i < 40; ++i) {
    std::string key = "c/" + std::to_string(i);
    if (i % absent_every != 0) store.set(key, std::string_view("value-" + std::to_string(i)));
    requests.push_back({key, ByteRange::full()});
  }
  requests.push_back({"c/1", ByteRange::suffix(1)});
  return requests;
}

TYPED_TEST(StoreConformance, GetManyAnswersInRequestOrder) {
  auto& store = *this->store;
  std::vector<KeyRange> requests = numbered_value_requests(store, 3);
  requests.push_back({"absent", ByteRange::range(0, 3)});
  auto results = store.get_many(requests);
  ASSERT_EQ(results.size(), requests.size());
  for (int i = 0; i < 40; ++i) {
    if (i % 3 == 0) {
      EXPECT_FALSE(results[i].has_value()) << i;
    } else {
      EXPECT_EQ(text_of(results[i]), "value-" + std::to_string(i));
    }
  }
  EXPECT_EQ(text_of(results[40]), "1");
  EXPECT_FALSE(results[41].has_value());
  EXPECT_TRUE(store.get_many({}).empty());
}

// get_many_each hands every request's result over exactly once, absent ones as nullopt, and an
// exception of the hand-over reaches the caller.
TYPED_TEST(StoreConformance, GetManyEachHandsEveryResultOverOnce) {
  auto& store = *this->store;
  const std::vector<KeyRange> requests = numbered_value_requests(store, 4);
  std::mutex mutex;
  std::vector<std::string> seen(requests.size());
  std::vector<int> calls(requests.size(), 0);
  store.get_many_each(requests, MemoryKind::host, [&](size_t i, std::optional<Buffer> value) {
    const std::lock_guard lock(mutex);
    ASSERT_LT(i, requests.size());
    ++calls[i];
    seen[i] = text_of(value);
  });
  for (size_t i = 0; i < requests.size(); ++i) EXPECT_EQ(calls[i], 1) << i;
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(seen[i], i % 4 == 0 ? "<absent>" : "value-" + std::to_string(i)) << i;
  EXPECT_EQ(seen[40], "1");
  EXPECT_THROW(store.get_many_each(requests, MemoryKind::host,
                                   [](size_t i, std::optional<Buffer>) {
                                     if (i == 7) throw IoError("hand-over failed");
                                   }),
               IoError);
}

TYPED_TEST(StoreConformance, GetManyRejectsABadKey) {
  std::vector<KeyRange> requests{{"ok", {}}, {"../bad", {}}};
  EXPECT_THROW(this->store->get_many(requests), InvalidArgumentError);
}

TYPED_TEST(StoreConformance, SizeAndExists) {
  this->store->set("a/b/c", std::string_view("12345"));
  EXPECT_EQ(this->store->size("a/b/c"), 5u);
  EXPECT_TRUE(this->store->exists("a/b/c"));
  EXPECT_FALSE(this->store->exists("a/b/c/d"));
}

TYPED_TEST(StoreConformance, EraseRemovesOnlyThatKey) {
  auto& store = *this->store;
  store.set("a/1", std::string_view("x"));
  store.set("a/2", std::string_view("y"));
  store.erase("a/1");
  EXPECT_FALSE(store.exists("a/1"));
  EXPECT_EQ(text_of(store.get("a/2")), "y");
  EXPECT_NO_THROW(store.erase("a/1"));
  EXPECT_NO_THROW(store.erase("never/was"));
  EXPECT_EQ(store.list(), std::vector<std::string>{"a/2"});
}

TYPED_TEST(StoreConformance, ErasePrefixRemovesASubtree) {
  auto& store = *this->store;
  for (const char* key :
       {"arr/zarr.json", "arr/c/0/0", "arr/c/0/1", "arr/c/1/0", "arr/cx", "arrow", "zarr.json"}) {
    store.set(key, std::string_view(key));
  }
  store.erase_prefix("arr/c");
  EXPECT_EQ(store.list(),
            (std::vector<std::string>{"arr/cx", "arr/zarr.json", "arrow", "zarr.json"}));
  store.erase_prefix("arr/");
  EXPECT_EQ(store.list(), (std::vector<std::string>{"arrow", "zarr.json"}));
  EXPECT_NO_THROW(store.erase_prefix("not/there"));
  store.erase_prefix("");
  EXPECT_TRUE(store.list().empty());
  // The store still works after everything was removed.
  store.set("again", std::string_view("1"));
  EXPECT_EQ(store.list(), std::vector<std::string>{"again"});
}

TYPED_TEST(StoreConformance, ListIsSortedAndFiltersByPrefix) {
  auto& store = *this->store;
  for (const char* key : {"b/2", "a", "b/1", "b/sub/x", "ba", "c/d/e/f"})
    store.set(key, std::string_view("v"));
  EXPECT_EQ(store.list(),
            (std::vector<std::string>{"a", "b/1", "b/2", "b/sub/x", "ba", "c/d/e/f"}));
  EXPECT_EQ(store.list("b/"), (std::vector<std::string>{"b/1", "b/2", "b/sub/x"}));
  EXPECT_EQ(store.list("b"), (std::vector<std::string>{"b/1", "b/2", "b/sub/x", "ba"}));
  EXPECT_EQ(store.list("b/s"), (std::vector<std::string>{"b/sub/x"}));
  EXPECT_EQ(store.list("c/d/e/"), (std::vector<std::string>{"c/d/e/f"}));
  EXPECT_TRUE(store.list("zz").empty());
  EXPECT_TRUE(store.list("nope/").empty());
  EXPECT_TRUE(store.list("../").empty());
}

TYPED_TEST(StoreConformance, ListDirSeparatesKeysFromPrefixes) {
  auto& store = *this->store;
  for (const char* key :
       {"zarr.json", "g/zarr.json", "g/arr/zarr.json", "g/arr/c/0", "g/other/c/1", "g/x"}) {
    store.set(key, std::string_view("v"));
  }
  auto root = store.list_dir("");
  EXPECT_EQ(root.keys, std::vector<std::string>{"zarr.json"});
  EXPECT_EQ(root.prefixes, std::vector<std::string>{"g"});
  auto group = store.list_dir("g");
  EXPECT_EQ(group.keys, (std::vector<std::string>{"x", "zarr.json"}));
  EXPECT_EQ(group.prefixes, (std::vector<std::string>{"arr", "other"}));
  auto with_slash = store.list_dir("g/");
  EXPECT_EQ(with_slash.keys, group.keys);
  EXPECT_EQ(with_slash.prefixes, group.prefixes);
  auto arr = store.list_dir("g/arr");
  EXPECT_EQ(arr.keys, std::vector<std::string>{"zarr.json"});
  EXPECT_EQ(arr.prefixes, std::vector<std::string>{"c"});
  auto missing = store.list_dir("g/missing");
  EXPECT_TRUE(missing.keys.empty());
  EXPECT_TRUE(missing.prefixes.empty());
  // Prefixes sort as names, not as the keys below them ("a.b/x" < "a/y").
  store.set("s/a.b/x", std::string_view("v"));
  store.set("s/a/y", std::string_view("v"));
  store.set("s/a-c", std::string_view("v"));
  EXPECT_EQ(store.list_dir("s").prefixes, (std::vector<std::string>{"a", "a.b"}));
  EXPECT_EQ(store.list_dir("s").keys, std::vector<std::string>{"a-c"});
  // A key is not a directory.
  auto of_key = store.list_dir("g/x");
  EXPECT_TRUE(of_key.keys.empty());
  EXPECT_TRUE(of_key.prefixes.empty());
}

TYPED_TEST(StoreConformance, NestedKeys) {
  auto& store = *this->store;
  store.set("a/b/c/d/e/f/g", std::string_view("deep"));
  store.set("a/b/c/x", std::string_view("middle"));
  store.set("a/y", std::string_view("shallow"));
  EXPECT_EQ(text_of(store.get("a/b/c/d/e/f/g")), "deep");
  EXPECT_EQ(text_of(store.get("a/b/c/x")), "middle");
  EXPECT_EQ(store.list("a/b/"), (std::vector<std::string>{"a/b/c/d/e/f/g", "a/b/c/x"}));
  store.erase("a/b/c/d/e/f/g");
  EXPECT_EQ(store.list(), (std::vector<std::string>{"a/b/c/x", "a/y"}));
  EXPECT_TRUE(store.list_dir("a/b/c").prefixes.empty());
  store.set("a/b/c/d/e/f/g", std::string_view("again"));
  EXPECT_EQ(text_of(store.get("a/b/c/d/e/f/g")), "again");
}

TYPED_TEST(StoreConformance, BadKeysAreRejectedWithTheKeyInTheMessage) {
  auto& store = *this->store;
  const std::vector<std::string> bad{"../x", "/abs", "a//b", "a/./b", "",
                                     "a\\b", "a/..", ".",    "a/",    std::string("a\0b", 3)};
  for (const auto& key : bad) {
    SCOPED_TRACE(key);
    auto expect_rejected = [&](auto&& operation) {
      try {
        operation();
        ADD_FAILURE() << "no exception for key \"" << key << "\"";
      } catch (const InvalidArgumentError& e) {
        // Control characters are shown escaped: a NUL byte would end what().
        const std::string shown = key.find('\0') == std::string::npos ? key : "a\\x00b";
        EXPECT_NE(std::string(e.what()).find("\"" + shown + "\""), std::string::npos) << e.what();
      }
    };
    expect_rejected([&] { store.get(key); });
    expect_rejected([&] { store.set(key, std::string_view("v")); });
    expect_rejected([&] { store.size(key); });
    expect_rejected([&] { store.erase(key); });
    // As prefixes, "" means the root and one trailing '/' is allowed.
    if (!key.empty() && key != "a/") {
      expect_rejected([&] { store.erase_prefix(key); });
      expect_rejected([&] { store.list_dir(key); });
    }
  }
  EXPECT_TRUE(store.list().empty());
}

TYPED_TEST(StoreConformance, KeysWithDotsInsideSegmentsAreValid) {
  auto& store = *this->store;
  for (const char* key : {".zarray", "a/.zattrs", "..x", "a/b..c/..d", "c/0.0.0"}) {
    store.set(key, std::string_view(key));
    EXPECT_EQ(text_of(store.get(key)), key);
  }
}

TYPED_TEST(StoreConformance, ConcurrentSetsAndGetsOnDifferentKeys) {
  auto& store = *this->store;
  constexpr int kThreads = 8, kKeysPerThread = 25;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (int k = 0; k < kKeysPerThread; ++k) {
          const std::string key = "t" + std::to_string(t) + "/c/" + std::to_string(k);
          const std::string value = key + "@" + std::to_string(round);
          store.set(key, std::string_view(value));
          if (text_of(store.get(key)) != value) ++mismatches;
          if (round == 2 && k % 2 == 0) store.erase(key);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(store.list().size(), static_cast<size_t>(kThreads * (kKeysPerThread / 2)));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(text_of(store.get("t" + std::to_string(t) + "/c/1")),
              "t" + std::to_string(t) + "/c/1@2");
  }
}

}  // namespace
}  // namespace cuzarr
