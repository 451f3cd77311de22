#include "cuzarr/memory/variable_length_ndbuffer.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

TEST(VariableLengthNDBuffer, BuildsAndReadsBackStrings) {
  const std::vector<std::string> values{"a", "", "hello", std::string("z\0z", 3)};
  NDBuffer array = make_variable_length_ndbuffer({2, 2}, values);
  EXPECT_EQ(array.dtype().kind(), DataTypeKind::string);
  EXPECT_EQ(variable_length_to_strings(array), values);
  // Strided views read in C order of the view.
  const std::vector<std::string> column{"", std::string("z\0z", 3)};
  EXPECT_EQ(variable_length_to_strings(array.indexed(1, 1)), column);
  const std::vector<std::string> reversed{"", "a"};
  EXPECT_EQ(variable_length_to_strings(array.indexed(0, 0).sliced(0, 1, -1, 2)), reversed);
}

TEST(VariableLengthNDBuffer, RejectsWrongCountsAndTypes) {
  EXPECT_THROW(make_variable_length_ndbuffer({3}, {"a"}), InvalidArgumentError);
  EXPECT_THROW(make_variable_length_ndbuffer({1}, {"a"}, DataType(DataTypeKind::int32)),
               InvalidArgumentError);
  EXPECT_THROW(variable_length_to_strings(NDBuffer::allocate(DataType(DataTypeKind::int8), {2})),
               InvalidArgumentError);
}

TEST(VariableLengthNDBuffer, AllocateStartsWithEmptyValues) {
  NDBuffer array = NDBuffer::allocate(DataType(DataTypeKind::variable_length_bytes), {3});
  EXPECT_EQ(variable_length_to_strings(array), (std::vector<std::string>{"", "", ""}));
  EXPECT_TRUE(variable_length_holds_only(array, ""));
}

TEST(VariableLengthNDBuffer, AssignKeepsTheSourceBytesAlive) {
  NDBuffer target = NDBuffer::allocate(DataType(DataTypeKind::string), {4});
  NDBuffer view = target.sliced(0, 1, 1, 2);  // made before the assign: shares the owners
  {
    NDBuffer source = make_variable_length_ndbuffer({2}, {"first value", "second value"});
    EXPECT_EQ(source.buffer().keep_alive_count(), 1u);
    view.assign(source);
    // The source's memory and the block of bytes it keeps alive.
    EXPECT_EQ(target.buffer().keep_alive_count(), 2u);
  }
  // The source handles are gone; the bytes live on through the target.
  EXPECT_EQ(variable_length_to_strings(target),
            (std::vector<std::string>{"", "first value", "second value", ""}));
  EXPECT_TRUE(variable_length_holds_only(target.sliced(0, 3, 1, 1), ""));
}

TEST(Buffer, KeepAliveOwnersLiveAsLongAsAnyHandle) {
  auto owner = std::make_shared<int>(7);
  std::weak_ptr<int> watch = owner;
  {
    Buffer buffer = Buffer::allocate(16);
    Buffer slice = buffer.slice(4, 4);
    buffer.keep_alive(std::move(owner));
    buffer = Buffer();
    EXPECT_FALSE(watch.expired());  // the slice still holds it
    EXPECT_EQ(slice.keep_alive_count(), 1u);
  }
  EXPECT_TRUE(watch.expired());
}

TEST(Buffer, KeepAliveOfItselfIsANoOp) {
  Buffer buffer = Buffer::allocate(8);
  buffer.keep_alive_of(buffer.slice(0, 4));
  EXPECT_EQ(buffer.keep_alive_count(), 0u);
  Buffer other = Buffer::allocate(8);
  other.keep_alive(std::make_shared<int>(1));
  buffer.keep_alive_of(other);
  EXPECT_EQ(buffer.keep_alive_count(), 2u);  // other's memory and its owner
  buffer.keep_alive_of(other);
  EXPECT_EQ(buffer.keep_alive_count(), 2u);  // no duplicates
}

}  // namespace
}  // namespace cuzarr
