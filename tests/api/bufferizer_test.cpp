// Bufferizer in host memory: every method, hook and error path.
#include "cuzarr/api/bufferizer.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

const DataType kInt32(DataTypeKind::int32);

NDBuffer iota_int32(Shape shape, int32_t first = 0) {
  NDBuffer b = NDBuffer::allocate(kInt32, std::move(shape));
  std::iota(b.data_as<int32_t>(), b.data_as<int32_t>() + b.size(), first);
  return b;
}

std::vector<int32_t> values(const NDBuffer& b) {
  NDBuffer dense = b.copy_to(MemoryKind::host);
  return {dense.data_as<int32_t>(), dense.data_as<int32_t>() + dense.size()};
}

// Runs `call`, expecting InvalidArgumentError whose message contains every one of `parts`.
template <class F>
void expect_invalid(F&& call, std::initializer_list<std::string> parts) {
  try {
    call();
    ADD_FAILURE() << "no InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    for (const auto& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "\"" << e.what() << "\" lacks \"" << part << "\"";
  }
}

// A Bufferizer of 4 samples of shape [2, 3] whose hooks log into `log`.
struct Logged {
  std::vector<std::string> log;
  Bufferizer buffer{4, {2, 3}, kInt32, MemoryKind::host, Stream(), hooks()};

  BufferizerHooks hooks() {
    BufferizerHooks h;
    h.on_allocate = [this](Bufferizer& b) {
      log.push_back("allocate " + std::to_string(b.capacity()) + " " + std::to_string(b.size()));
    };
    h.on_append_one = [this](Bufferizer& b) { log.push_back("one " + std::to_string(b.size())); };
    h.on_append_multiple = [this](Bufferizer& b, size_t n) {
      log.push_back("multiple " + std::to_string(n) + " " + std::to_string(b.size()));
    };
    h.on_full = [this](Bufferizer& b) { log.push_back("full " + std::to_string(b.size())); };
    h.on_flush = [this](Bufferizer& b) { log.push_back("flush " + std::to_string(b.size())); };
    return h;
  }
};

TEST(Bufferizer, AllocatesOnceAndReportsItsState) {
  Logged l;
  const Bufferizer& b = l.buffer;
  EXPECT_EQ(l.log, (std::vector<std::string>{"allocate 4 0"}));
  EXPECT_EQ(b.capacity(), 4u);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.free_slots(), 4u);
  EXPECT_TRUE(b.empty());
  EXPECT_FALSE(b.full());
  EXPECT_EQ(b.sample_shape(), (Shape{2, 3}));
  EXPECT_EQ(b.dtype(), kInt32);
  EXPECT_EQ(b.kind(), MemoryKind::host);
  EXPECT_EQ(b.storage().shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(b.view().shape(), (Shape{0, 2, 3}));
}

TEST(Bufferizer, AppendsAndViewsTheFilledPart) {
  Logged l;
  Bufferizer& b = l.buffer;
  const std::byte* storage = b.storage().data();
  b.append_one(iota_int32({2, 3}, 0));
  b.append_multiple(iota_int32({2, 2, 3}, 10));
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.view().shape(), (Shape{3, 2, 3}));
  EXPECT_EQ(values(b.view()), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16,
                                                    17, 18, 19, 20, 21}));
  // A strided sample (a transposed view) is copied element by element.
  NDBuffer transposed = iota_int32({3, 2}, 100).permuted(std::vector<int64_t>{1, 0});
  b.append_one(transposed);
  EXPECT_TRUE(b.full());
  EXPECT_EQ(values(b.view().indexed(0, 3)), (std::vector<int32_t>{100, 102, 104, 101, 103, 105}));
  EXPECT_EQ(b.storage().data(), storage);  // never reallocated
  EXPECT_EQ(l.log,
            (std::vector<std::string>{"allocate 4 0", "one 1", "multiple 2 3", "one 4", "full 4"}));
}

TEST(Bufferizer, AppendsAListAsOneCall) {
  Logged l;
  std::vector<NDBuffer> samples{iota_int32({2, 3}, 0), iota_int32({2, 3}, 6),
                                iota_int32({2, 3}, 12), iota_int32({2, 3}, 18)};
  l.buffer.append_multiple(samples);
  EXPECT_EQ(values(l.buffer.view()), values(iota_int32({4, 2, 3})));
  EXPECT_EQ(l.log, (std::vector<std::string>{"allocate 4 0", "multiple 4 4", "full 4"}));
  l.buffer.append_multiple(std::span<const NDBuffer>{});  // nothing, no hooks
  l.buffer.append_multiple(iota_int32({0, 2, 3}));
  EXPECT_EQ(l.log.size(), 3u);
}

TEST(Bufferizer, RefusesMismatchingSamplesNamingWhatDiffers) {
  Logged l;
  Bufferizer& b = l.buffer;
  expect_invalid(
      [&] {
        b.append_one(iota_int32({3, 2}));
      },
      {"append_one", "sample shape [3, 2]", "[2, 3]"});
  expect_invalid(
      [&] {
        b.append_one(NDBuffer::allocate(DataType(DataTypeKind::float32), {2, 3}));
      },
      {"append_one", "data type float32", "int32"});
  expect_invalid(
      [&] {
        b.append_multiple(iota_int32({2, 3}));
      },
      {"append_multiple", "[2, 3]", "2 dimensions", "expected 3"});
  expect_invalid(
      [&] {
        b.append_multiple(iota_int32({2, 2, 4}));
      },
      {"append_multiple", "sample shape [2, 4]"});
  std::vector<NDBuffer> samples{iota_int32({2, 3}), iota_int32({2, 3}), iota_int32({1, 3})};
  expect_invalid([&] { b.append_multiple(samples); }, {"sample 2 of the list", "[1, 3]"});
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(l.log.size(), 1u);  // failed calls fire nothing
}

TEST(Bufferizer, OverflowIsAllOrNothing) {
  Logged l;
  Bufferizer& b = l.buffer;
  b.append_multiple(iota_int32({3, 2, 3}, 0));
  const auto before = values(b.storage());
  expect_invalid(
      [&] {
        b.append_multiple(iota_int32({2, 2, 3}, 100));
      },
      {"2 samples do not fit", "only 1 of 4 slots are free"});
  std::vector<NDBuffer> samples{iota_int32({2, 3}, 200), iota_int32({2, 3}, 300)};
  expect_invalid([&] { b.append_multiple(samples); }, {"2 samples do not fit"});
  bool wrote = false;
  expect_invalid([&] { b.append_in_place(2, [&](const NDBuffer&) { wrote = true; }); },
                 {"append_in_place", "2 samples do not fit"});
  EXPECT_FALSE(wrote);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(values(b.storage()), before);  // not one sample of the lists was copied
  b.append_one(iota_int32({2, 3}));
  expect_invalid([&] { b.append_one(iota_int32({2, 3})); }, {"append_one", "full", "flush()"});
  expect_invalid([&] { b.append_multiple(iota_int32({1, 2, 3})); }, {"full"});
  EXPECT_EQ(l.log, (std::vector<std::string>{"allocate 4 0", "multiple 3 3", "one 4", "full 4"}));
}

TEST(Bufferizer, FlushResetsAndOptionallyFills) {
  Logged l;
  Bufferizer& b = l.buffer;
  b.append_multiple(iota_int32({4, 2, 3}, 1));
  b.flush();
  EXPECT_EQ(b.size(), 0u);
  EXPECT_FALSE(b.full());
  EXPECT_EQ(values(b.storage()), values(iota_int32({4, 2, 3}, 1)));  // contents kept
  b.append_one(iota_int32({2, 3}));
  b.flush(int32_t{-9});
  EXPECT_EQ(values(b.storage()), std::vector<int32_t>(24, -9));
  EXPECT_TRUE(b.empty());
  expect_invalid([&] { b.flush(int16_t{1}); }, {"flush", "2 bytes", "int32"});
  EXPECT_EQ(l.log, (std::vector<std::string>{"allocate 4 0", "multiple 4 4", "full 4", "flush 0",
                                             "one 1", "flush 0"}));
}

TEST(Bufferizer, AppendInPlaceCountsOnlyWhenTheWriterSucceeds) {
  Logged l;
  Bufferizer& b = l.buffer;
  b.append_in_place(2, [](const NDBuffer& slots) {
    EXPECT_EQ(slots.shape(), (Shape{2, 2, 3}));
    EXPECT_TRUE(slots.is_c_contiguous());
    slots.assign(iota_int32({2, 2, 3}, 50));
  });
  EXPECT_EQ(values(b.view()), values(iota_int32({2, 2, 3}, 50)));
  EXPECT_THROW(b.append_in_place(1, [](const NDBuffer&) { throw CorruptDataError("bad chunk"); }),
               CorruptDataError);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(l.log, (std::vector<std::string>{"allocate 4 0", "multiple 2 2"}));
}

TEST(Bufferizer, OnFullMayConsumeAndFlush) {
  std::vector<std::vector<int32_t>> batches;
  BufferizerHooks hooks;
  hooks.on_full = [&](Bufferizer& b) {
    batches.push_back(values(b.view()));
    b.flush();
  };
  Bufferizer b(2, {}, kInt32, MemoryKind::host, Stream(), hooks);
  for (int32_t i = 0; i < 5; ++i) b.append_one(iota_int32({}, i));
  EXPECT_EQ(batches, (std::vector<std::vector<int32_t>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(values(b.view()), (std::vector<int32_t>{4}));
}

TEST(Bufferizer, ExportsTheFilledPartAsDlpack) {
  Bufferizer b(8, {3}, DataType(DataTypeKind::float32), MemoryKind::host);
  NDBuffer sample = NDBuffer::allocate(DataType(DataTypeKind::float32), {3});
  for (int i = 0; i < 3; ++i) sample.data_as<float>()[i] = 0.5f * static_cast<float>(i);
  b.append_one(sample);
  b.append_one(sample);
  DLManagedTensorVersioned* t = b.to_dlpack();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.shape[0], 2);
  EXPECT_EQ(t->dl_tensor.shape[1], 3);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(static_cast<const std::byte*>(t->dl_tensor.data) + t->dl_tensor.byte_offset,
            b.storage().data());
  EXPECT_EQ(static_cast<const float*>(t->dl_tensor.data)[4], 0.5f);
  t->deleter(t);
}

TEST(Bufferizer, RejectsBadConstruction) {
  expect_invalid([] { Bufferizer(0, {2}, kInt32, MemoryKind::host); }, {"capacity"});
  expect_invalid([] { Bufferizer(2, {2}, DataType(DataTypeKind::string), MemoryKind::host); },
                 {"variable-length"});
  expect_invalid([] { Bufferizer(2, {-1}, kInt32, MemoryKind::host); }, {});
#if !CUZARR_HAVE_CUDA
  EXPECT_THROW(Bufferizer(2, {2}, kInt32, MemoryKind::device), UnsupportedError);
#endif
}

}  // namespace
}  // namespace cuzarr
