// Array::set_codec_placement and PipelineOptions::codec_placement: unknown codec names are
// refused with an error naming the entry (and the array); a valid placement is kept and leaves
// host reads and writes as they were.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "cuzarr/api/array.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/pipeline/chunk_pipeline.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

Array make_int32_array(const std::shared_ptr<Store>& store) {
  ArrayCreateOptions options;
  options.shape = {10, 10};
  options.chunk_shape = {4, 4};
  options.data_type = DataType(DataTypeKind::int32);
  return Array::create(store, "a", options);
}

TEST(ArrayCodecPlacementTest, UnknownCodecNameIsRefusedNamingTheEntry) {
  auto store = std::make_shared<MemoryStore>();
  Array array = make_int32_array(store);
  EXPECT_FALSE(array.codec_placement().has_value());
  try {
    array.set_codec_placement(CodecPlacement{Placement::gpu, {{"zsdt", Placement::cpu}}});
    FAIL() << "an unknown codec name was accepted";
  } catch (const InvalidArgumentError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("\"zsdt=cpu\""), std::string::npos) << m;
    EXPECT_NE(m.find("\"a\""), std::string::npos) << m;
  }
  EXPECT_FALSE(array.codec_placement().has_value());
}

TEST(ArrayCodecPlacementTest, ValidPlacementIsKeptAndHostIoIsUnchanged) {
  auto store = std::make_shared<MemoryStore>();
  Array array = make_int32_array(store);
  const auto placement = CodecPlacement::parse("zstd=gpu,blosc=cpu,default=cpu");
  array.set_codec_placement(placement);
  ASSERT_TRUE(array.codec_placement().has_value());
  EXPECT_EQ(*array.codec_placement(), placement);

  NDBuffer data = NDBuffer::allocate(array.data_type(), {10, 10});
  std::iota(data.data_as<int32_t>(), data.data_as<int32_t>() + 100, 1);
  array.write({}, data);
  const NDBuffer back = array.read();
  EXPECT_TRUE(
      std::equal(back.data_as<int32_t>(), back.data_as<int32_t>() + 100, data.data_as<int32_t>()));
  array.set_codec_placement(std::nullopt);
  EXPECT_FALSE(array.codec_placement().has_value());
}

TEST(ArrayCodecPlacementTest, PipelineRefusesUnknownCodecNames) {
  auto store = std::make_shared<MemoryStore>();
  const Array array = make_int32_array(store);
  auto metadata = std::make_shared<const ArrayMetadata>(array.metadata());
  PipelineOptions options;
  options.codec_placement = CodecPlacement{Placement::automatic, {{"nonesuch", Placement::gpu}}};
  EXPECT_THROW(ChunkPipeline(store, "a", metadata, options), InvalidArgumentError);
  options.codec_placement = CodecPlacement::parse("gzip=gpu");
  EXPECT_NO_THROW(ChunkPipeline(store, "a", metadata, options));
  EXPECT_EQ(ChunkPipeline(store, "a", metadata, options).options().effective_codec_placement(),
            CodecPlacement::parse("gzip=gpu"));
}

}  // namespace
}  // namespace cuzarr
