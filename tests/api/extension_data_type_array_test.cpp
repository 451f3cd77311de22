#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "cuzarr/api/array.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

ArrayCreateOptions options(Shape shape, DataType type, Shape chunks, json fill = nullptr) {
  ArrayCreateOptions o;
  o.shape = std::move(shape);
  o.data_type = type;
  o.chunk_shape = std::move(chunks);
  o.fill_value = std::move(fill);
  return o;
}

TEST(StringArray, WritesReadsAndFillsMissingChunks) {
  auto store = std::make_shared<MemoryStore>();
  Array array = Array::create(store, "s", options({5}, DataType(DataTypeKind::string), {2}));
  EXPECT_EQ(array.metadata().codecs.front().name, "vlen-utf8");
  // Nothing written: every element is the fill value "".
  EXPECT_EQ(array.read_strings(), (std::vector<std::string>(5, "")));
  array.write_strings({Slice{1, 4, 1}}, {"one", "two \xe2\x82\xac", "three"});
  EXPECT_EQ(array.read_strings(),
            (std::vector<std::string>{"", "one", "two \xe2\x82\xac", "three", ""}));
  // Read-modify-write of a partial chunk keeps its other value.
  array.write_strings({Slice{2, 3, 1}}, {"TWO"});
  EXPECT_EQ(array.read_strings({Slice{0, 5, 2}}), (std::vector<std::string>{"", "TWO", ""}));
  // Writing the fill value (by content) erases the chunk.
  EXPECT_TRUE(store->get("s/c/2").has_value() == false);
  array.write_strings({Slice{0, 2, 1}}, {"", ""});
  EXPECT_FALSE(store->get("s/c/0").has_value());
  EXPECT_TRUE(store->get("s/c/1").has_value());
}

TEST(StringArray, ReadResultOutlivesTheArrayAndItsStore) {
  NDBuffer values;
  {
    auto store = std::make_shared<MemoryStore>();
    Array array = Array::create(store, "", options({3}, DataType(DataTypeKind::string), {2}));
    array.write_strings({}, {"a fairly long string value", "b", "c"});
    values = array.read({Slice{0, 3, 1}});
  }
  EXPECT_EQ(variable_length_to_strings(values),
            (std::vector<std::string>{"a fairly long string value", "b", "c"}));
}

TEST(StringArray, NonEmptyFillValueAndSharding) {
  auto store = std::make_shared<MemoryStore>();
  auto o = options({8}, DataType(DataTypeKind::string), {2}, "n/a");
  o.shard_shape = Shape{4};
  Array array = Array::create(store, "", o);
  EXPECT_EQ(array.metadata().to_json()["fill_value"], json("n/a"));
  array.write_strings({Slice{3, 5, 1}}, {"x", "y"});
  EXPECT_EQ(array.read_strings(),
            (std::vector<std::string>{"n/a", "n/a", "n/a", "x", "y", "n/a", "n/a", "n/a"}));
  Array reopened = Array::open(store);
  EXPECT_EQ(reopened.read_strings({Slice{2, 6, 1}}),
            (std::vector<std::string>{"n/a", "x", "y", "n/a"}));
}

TEST(StringArray, BytesArrayAndErrors) {
  auto store = std::make_shared<MemoryStore>();
  Array array =
      Array::create(store, "", options({2}, DataType(DataTypeKind::variable_length_bytes), {2}));
  EXPECT_EQ(array.metadata().codecs.front().name, "vlen-bytes");
  array.write_strings({}, {std::string("\x00\xff", 2), "z"});
  EXPECT_EQ(array.read_strings(), (std::vector<std::string>{std::string("\x00\xff", 2), "z"}));
  EXPECT_THROW(array.write_strings({}, {"one"}), InvalidArgumentError);
  Array text = Array::create(std::make_shared<MemoryStore>(), "t",
                             options({1}, DataType(DataTypeKind::string), {1}));
  EXPECT_THROW(text.write_strings({}, {"\xff"}), InvalidArgumentError);
  Array ints = Array::create(std::make_shared<MemoryStore>(), "i",
                             options({1}, DataType(DataTypeKind::int8), {1}));
  EXPECT_THROW(ints.read_strings(), InvalidArgumentError);
}

TEST(ExtensionArrays, FixedSizeTypesRoundTripWithFillValues) {
  auto store = std::make_shared<MemoryStore>();
  const auto ms = DataType::time(DataTypeKind::datetime64, TimeUnit::ms);
  Array times = Array::create(store, "m", options({5}, ms, {2}, "NaT"));
  NDBuffer in = NDBuffer::allocate(ms, {2});
  const int64_t values[2] = {1704164645006, kNotATime};
  std::memcpy(in.data(), values, sizeof values);
  times.write({Slice{1, 3, 1}}, in);
  NDBuffer out = times.read();
  const auto* read = out.data_as<int64_t>();
  EXPECT_EQ(read[0], kNotATime);
  EXPECT_EQ(read[1], 1704164645006);
  EXPECT_EQ(read[2], kNotATime);
  EXPECT_EQ(read[4], kNotATime);
  // The chunk [2, 4) holds only NaT after the write: not stored; the chunk [0, 2) is.
  EXPECT_FALSE(store->get("m/c/1").has_value());
  EXPECT_TRUE(store->get("m/c/0").has_value());

  const auto u2 = DataType::fixed_length(DataTypeKind::fixed_length_utf32, 8);
  Array text = Array::create(store, "u", options({3}, u2, {2}, "ab"));
  NDBuffer one = NDBuffer::allocate(u2, {1});
  const uint32_t units[2] = {0x20AC, 0};
  std::memcpy(one.data(), units, 8);
  text.write({Slice{2, 3, 1}}, one);
  NDBuffer all = text.read();
  const auto* u = all.data_as<uint32_t>();
  EXPECT_EQ(u[0], static_cast<uint32_t>('a'));
  EXPECT_EQ(u[1], static_cast<uint32_t>('b'));
  EXPECT_EQ(u[4], 0x20ACu);
  EXPECT_EQ(u[5], 0u);

  Array bf = Array::create(store, "b", options({3}, DataType(DataTypeKind::bfloat16), {2}, 1.5));
  NDBuffer bf_all = bf.read();
  EXPECT_EQ(bf_all.data_as<uint16_t>()[2], 0x3FC0);
}

}  // namespace
}  // namespace cuzarr
