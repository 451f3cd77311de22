#include "cuzarr/api/group.hpp"

#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

TEST(Group, NestedHierarchyMembersAndAttributes) {
  auto store = std::make_shared<MemoryStore>();
  Group root = Group::create(store, "", {{"title", "root"}});
  Group a = root.create_group("a", {{"level", 1}});
  a.create_group("b");
  ArrayCreateOptions o;
  o.shape = {4};
  o.data_type = DataType(DataTypeKind::uint16);
  o.chunk_shape = {2};
  a.create_array("x", o);
  root.create_array("y", o);
  auto members = root.members();
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "a");
  EXPECT_EQ(members[0].type, NodeType::group);
  EXPECT_EQ(members[1].name, "y");
  EXPECT_EQ(members[1].type, NodeType::array);
  auto a_members = Group::open(store, "a").members();
  ASSERT_EQ(a_members.size(), 2u);
  EXPECT_EQ(a_members[0].name, "b");
  EXPECT_EQ(a_members[1].name, "x");
  EXPECT_EQ(Group::open(store, "a").attributes()["level"], 1);
  root.set_attributes({{"title", "changed"}});
  EXPECT_EQ(Group::open(store).attributes()["title"], "changed");
}

TEST(Group, ParentsAreCreatedAndArraysAreNotGroups) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {4};
  o.data_type = DataType(DataTypeKind::uint16);
  o.chunk_shape = {2};
  Array::create(store, "p/q/r", o);
  EXPECT_EQ(node_type(*store, ""), NodeType::group);
  EXPECT_EQ(node_type(*store, "p/q"), NodeType::group);
  EXPECT_THROW(Group::open(store, "p/q/r"), InvalidArgumentError);
  EXPECT_THROW(Array::create(store, "p/q/r/s", o), InvalidArgumentError);
  EXPECT_THROW(Group::create(store, "p/q/r"), InvalidArgumentError);
  EXPECT_THROW(Array::create(store, "p/q/r", o), InvalidArgumentError);  // exists, no overwrite
  o.overwrite = true;
  EXPECT_NO_THROW(Array::create(store, "p/q/r", o));
}

TEST(Array, DefaultFillValueIsTheZeroOfEveryDataType) {
  auto store = std::make_shared<MemoryStore>();
  for (const char* name : {"bool", "complex64", "r24", "float16", "int8"}) {
    ArrayCreateOptions o;
    o.shape = {3};
    o.data_type = DataType::from_name(name);
    o.chunk_shape = {2};
    Array a = Array::create(store, name, o);
    EXPECT_EQ(a.metadata().fill_value, std::vector<std::byte>(a.data_type().size(), std::byte{0}))
        << name;
    NDBuffer all = a.read();
    for (int64_t i = 0; i < all.nbytes(); ++i) EXPECT_EQ(all.data()[i], std::byte{0}) << name;
  }
}

}  // namespace
}  // namespace cuzarr
