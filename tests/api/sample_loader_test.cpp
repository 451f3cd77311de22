// SampleLoader into host memory: batches, shuffling, merged reads, sample lists, prefetch errors.
#include "cuzarr/api/sample_loader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "counting_store.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

const DataType kInt32(DataTypeKind::int32);

std::vector<int32_t> values(const NDBuffer& b) {
  NDBuffer dense = b.copy_to(MemoryKind::host);
  return {dense.data_as<int32_t>(), dense.data_as<int32_t>() + dense.size()};
}

// Sample s of the test array: s * 100 + k for its 6 elements.
std::vector<int32_t> sample_values(int64_t s) {
  std::vector<int32_t> v(6);
  std::iota(v.begin(), v.end(), static_cast<int32_t>(s * 100));
  return v;
}

// A 10 x 3 x 2 int32 array (sample s holds s * 100 + 0..5) in chunks of 4 samples.
struct Fixture {
  std::shared_ptr<test::CountingStore> store = std::make_shared<test::CountingStore>();
  Array array = [this] {
    ArrayCreateOptions o;
    o.shape = {10, 3, 2};
    o.data_type = kInt32;
    o.chunk_shape = {4, 3, 2};
    Array created = Array::create(store, "samples", o);
    NDBuffer data = NDBuffer::allocate(kInt32, o.shape);
    for (int64_t s = 0; s < 10; ++s) {
      const auto v = sample_values(s);
      std::copy(v.begin(), v.end(), data.data_as<int32_t>() + s * 6);
    }
    created.write({}, data);
    store->reset();
    return created;
  }();
};

SampleLoaderOptions batches_of(size_t n, bool prefetch = true) {
  SampleLoaderOptions o;
  o.batch_size = n;
  o.prefetch = prefetch;
  return o;
}

// Every batch's sample numbers, each batch checked against the array's contents.
std::vector<std::vector<int64_t>> drain(SampleLoader& loader) {
  std::vector<std::vector<int64_t>> batches;
  while (const Bufferizer* batch = loader.next()) {
    const auto& samples = loader.batch_samples();
    EXPECT_EQ(batch->size(), samples.size());
    EXPECT_EQ(batch->view().shape()[0], static_cast<int64_t>(samples.size()));
    std::vector<int32_t> expected;
    for (int64_t s : samples) {
      const auto v = sample_values(s);
      expected.insert(expected.end(), v.begin(), v.end());
    }
    EXPECT_EQ(values(batch->view()), expected);
    batches.push_back(samples);
  }
  EXPECT_TRUE(loader.batch_samples().empty());
  return batches;
}

TEST(SampleLoader, BatchesAlongTheFirstAxisWithAPartialLastBatch) {
  for (bool prefetch : {true, false}) {
    Fixture f;
    SampleLoader loader(f.array, batches_of(4, prefetch));
    EXPECT_EQ(loader.sample_count(), 10u);
    EXPECT_EQ(loader.batch_count(), 3u);
    EXPECT_EQ(loader.sample_shape(), (Shape{3, 2}));
    EXPECT_EQ(drain(loader),
              (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
    EXPECT_EQ(loader.next(), nullptr);  // stays at the end
    // One read (one batched get) per batch: the samples of a batch follow each other.
    EXPECT_EQ(f.store->get_many_calls(), 3u);
  }
}

TEST(SampleLoader, DoubleBuffersTwoBufferizers) {
  Fixture f;
  SampleLoader loader(f.array, batches_of(3));
  const Bufferizer* first = loader.next();
  const auto first_values = values(first->view());
  const Bufferizer* second = loader.next();
  EXPECT_NE(first, second);
  const Bufferizer* third = loader.next();
  EXPECT_EQ(third, first);  // the buffer given back by the second call is reused
  EXPECT_NE(values(third->view()), first_values);
  EXPECT_EQ(loader.next(), second);
  EXPECT_EQ(second->size(), 1u);
  EXPECT_EQ(loader.next(), nullptr);
}

TEST(SampleLoader, ShuffleIsADeterministicPermutation) {
  Fixture f;
  SampleLoaderOptions o = batches_of(4);
  o.shuffle = true;
  o.seed = 42;
  SampleLoader a(f.array, o);
  SampleLoader b(f.array, o);
  EXPECT_EQ(a.order(), b.order());
  EXPECT_EQ(a.order(), SampleLoader::shuffled_order(10, 42));
  std::vector<int64_t> sorted = a.order();
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(10);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_NE(a.order(), identity);
  EXPECT_NE(SampleLoader::shuffled_order(10, 43), a.order());
  // The first draws of std::mt19937_64 are fixed by the standard, so this order is too.
  EXPECT_EQ(SampleLoader::shuffled_order(1, 7), (std::vector<int64_t>{0}));
  const auto batches = drain(a);
  ASSERT_EQ(batches.size(), 3u);
  std::vector<int64_t> delivered;
  for (const auto& batch : batches) delivered.insert(delivered.end(), batch.begin(), batch.end());
  EXPECT_EQ(delivered, a.order());
}

TEST(SampleLoader, ResetRestartsAndReshufflesWithANewSeed) {
  Fixture f;
  SampleLoaderOptions o = batches_of(4);
  o.shuffle = true;
  o.seed = 1;
  SampleLoader loader(f.array, o);
  const auto first = drain(loader);
  loader.reset();
  EXPECT_EQ(drain(loader), first);
  loader.next();  // a prefetch is now running: reset waits for it
  loader.reset(2);
  EXPECT_EQ(loader.order(), SampleLoader::shuffled_order(10, 2));
  const auto second = drain(loader);
  EXPECT_EQ(second.size(), 3u);
  EXPECT_NE(second, first);
}

TEST(SampleLoader, MergesRunsOfConsecutiveSamplesIntoOneRead) {
  Fixture f;
  // Sample selections: positions 2, 3, 4 (one run), 8, 0 (alone).
  std::vector<Selection> samples{{2}, {3}, {4}, {8}, {0}};
  SampleLoader loader(f.array, samples, batches_of(5));
  EXPECT_EQ(loader.sample_shape(), (Shape{3, 2}));
  const Bufferizer* batch = loader.next();
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(loader.batch_samples(), (std::vector<int64_t>{0, 1, 2, 3, 4}));  // list positions
  std::vector<int32_t> expected;
  for (int64_t s : {2, 3, 4, 8, 0}) {
    const auto v = sample_values(s);
    expected.insert(expected.end(), v.begin(), v.end());
  }
  EXPECT_EQ(values(batch->view()), expected);
  EXPECT_EQ(f.store->get_many_calls(), 3u);  // [2, 5), 8, 0
  EXPECT_EQ(loader.next(), nullptr);
}

TEST(SampleLoader, SampleListsOfSubRegions) {
  Fixture f;
  // Row 1 of samples 5, 6 (kept first dimension of extent 1, merged), then of sample 1 reversed.
  std::vector<Selection> samples{
      {Slice{5, 6}, 1}, {Slice{6, 7}, 1}, {Slice{1, 2}, 1, Slice{std::nullopt, std::nullopt, -1}}};
  SampleLoaderOptions o = batches_of(2, /*prefetch=*/false);  // counts reads per batch
  SampleLoader loader(f.array, samples, o);
  EXPECT_EQ(loader.sample_shape(), (Shape{1, 2}));
  const Bufferizer* batch = loader.next();
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(values(batch->view()), (std::vector<int32_t>{502, 503, 602, 603}));
  EXPECT_EQ(f.store->get_many_calls(), 1u);
  batch = loader.next();
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(values(batch->view()), (std::vector<int32_t>{103, 102}));
  EXPECT_EQ(loader.next(), nullptr);
}

TEST(SampleLoader, RejectsBadConfigurations) {
  Fixture f;
  EXPECT_THROW(SampleLoader(f.array, batches_of(0)), InvalidArgumentError);
  std::vector<Selection> mismatched{{0}, {Slice{1, 3}}};
  try {
    SampleLoader(f.array, mismatched, batches_of(2));
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("sample 1 selects shape [2, 3, 2]"), std::string::npos)
        << e.what();
  }
  std::vector<Selection> out_of_bounds{{10}};
  EXPECT_THROW(SampleLoader(f.array, out_of_bounds, batches_of(2)), InvalidArgumentError);
  ArrayCreateOptions scalar;
  scalar.data_type = kInt32;
  Array zero_d = Array::create(f.store, "scalar", scalar);
  EXPECT_THROW(SampleLoader(zero_d, batches_of(2)), InvalidArgumentError);
}

TEST(SampleLoader, ReadErrorsReachTheConsumerAndTheLoaderGoesOn) {
  for (bool prefetch : {true, false}) {
    Fixture f;
    f.store->set("samples/c/1/0/0", std::string_view("not zstd"));  // samples 4..7
    SampleLoader loader(f.array, batches_of(4, prefetch));
    const Bufferizer* batch = loader.next();
    ASSERT_NE(batch, nullptr);
    EXPECT_EQ(loader.batch_samples(), (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_THROW(loader.next(), CorruptDataError);
    EXPECT_TRUE(loader.batch_samples().empty());
    batch = loader.next();
    ASSERT_NE(batch, nullptr);
    EXPECT_EQ(loader.batch_samples(), (std::vector<int64_t>{8, 9}));
    EXPECT_EQ(values(batch->view()).front(), 800);
    EXPECT_EQ(loader.next(), nullptr);
  }
}

TEST(SampleLoader, HooksFireForEveryBatch) {
  Fixture f;
  std::vector<std::string> log;
  SampleLoaderOptions o = batches_of(4, false);
  o.hooks.on_allocate = [&](Bufferizer&) { log.push_back("allocate"); };
  o.hooks.on_flush = [&](Bufferizer&) { log.push_back("flush"); };
  o.hooks.on_append_multiple = [&](Bufferizer&, size_t n) {
    log.push_back("multiple " + std::to_string(n));
  };
  o.hooks.on_full = [&](Bufferizer&) { log.push_back("full"); };
  SampleLoader loader(f.array, o);
  drain(loader);
  EXPECT_EQ(log, (std::vector<std::string>{"allocate", "allocate", "flush", "multiple 4", "full",
                                           "flush", "multiple 4", "full", "flush", "multiple 2"}));
}

}  // namespace
}  // namespace cuzarr
