// ChunkPipeline::write stores exactly what the codec chain encodes, on every path: the direct
// path ([bytes, zstd or blosc] chunks and whole shards encoded into reused scratch memory and
// stored by the same task) and the batched path (other chains), for whole and partial writes,
// strided inputs, edge chunks, and chunks or shards left holding only the fill value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/pipeline/chunk_pipeline.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 0}, {"checksum", false}}}};
const json kBlosc = {
    {"name", "blosc"},
    {"configuration", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 2}}}};
const json kGzip = {{"name", "gzip"}, {"configuration", {{"level", 1}}}};

json sharded(json inner) {
  return json::array({{{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", {4, 4}},
                         {"codecs", std::move(inner)},
                         {"index_codecs", {kBytes, {{"name", "crc32c"}}}},
                         {"index_location", "end"}}}}});
}

// A [20, 30] uint16 array of [8, 12] chunks (or shards of [4, 4] inner chunks): edge chunks are
// partial.
std::shared_ptr<const ArrayMetadata> metadata_with(const json& codecs) {
  const json j = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {20, 30}},
      {"data_type", "uint16"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {8, 12}}}}}},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", 0},
      {"codecs", codecs}};
  return std::make_shared<const ArrayMetadata>(ArrayMetadata::from_json(j, "test array"));
}

// Values 1..1000 (never the fill value 0) in C order, seen through a strided view.
NDBuffer strided_values(const Shape& shape, uint32_t seed) {
  Shape wide = shape;
  wide.back() *= 2;
  NDBuffer storage = NDBuffer::allocate(DataType(DataTypeKind::uint16), wide);
  std::mt19937 rng(seed);
  auto* p = storage.data_as<uint16_t>();
  for (int64_t i = 0; i < storage.size(); ++i) p[i] = static_cast<uint16_t>(1 + rng() % 1000);
  return storage.sliced(wide.size() - 1, 0, 2, shape.back());
}

std::vector<std::byte> bytes_of(const Buffer& b) {
  const auto* p = b.data();
  return std::vector<std::byte>(p, p + b.size());
}

// The model: every chunk of `model` (the whole array) encoded by the chain on its own.
void expect_store_holds_encoded_chunks(const ChunkPipeline& pipeline, const Store& store,
                                       const NDBuffer& model) {
  const auto& rep = pipeline.chunk_representation();
  for (int64_t cy = 0; cy < 3; ++cy) {
    for (int64_t cx = 0; cx < 3; ++cx) {
      const int64_t coords[2] = {cy, cx};
      const std::string key = pipeline.chunk_key(coords);
      NDBuffer chunk = NDBuffer::allocate(rep.data_type, rep.shape);
      chunk.fill(rep.fill_value);
      const int64_t y0 = cy * 8, x0 = cx * 12;
      const int64_t ny = std::min<int64_t>(8, 20 - y0), nx = std::min<int64_t>(12, 30 - x0);
      chunk.sliced(0, 0, 1, ny)
          .sliced(1, 0, 1, nx)
          .assign(model.sliced(0, y0, 1, ny).sliced(1, x0, 1, nx));
      const NDBuffer in[1] = {chunk};
      Buffer expected[1];
      ChunkStatus status[1];
      pipeline.chain().encode(in, expected, status);
      ASSERT_TRUE(status[0].ok) << status[0].message;
      const auto stored = store.get(key);
      const auto* values = chunk.data_as<uint16_t>();
      const bool only_fill =
          std::all_of(values, values + chunk.size(), [](uint16_t v) { return v == 0; });
      EXPECT_EQ(expected[0].empty(), only_fill && pipeline.sharding() != nullptr) << key;
      if (only_fill) {  // chunks and shards of only the fill value are not stored
        EXPECT_FALSE(stored.has_value()) << key;
        continue;
      }
      ASSERT_TRUE(stored.has_value()) << key;
      EXPECT_EQ(bytes_of(*stored), bytes_of(expected[0])) << key;
    }
  }
}

NormalizedSelection region(int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
  const Shape shape = {20, 30};
  return normalize_selection({Slice{y0, y1, 1}, Slice{x0, x1, 1}}, shape);
}

class PipelineWrite : public ::testing::TestWithParam<json> {
 protected:
  void SetUp() override {
    if (GetParam().dump().find("blosc") != std::string::npos && !BloscCodec::available())
      GTEST_SKIP() << "blosc support was not built";
  }
};

// Whole, partial and fill-value writes of the array; every stored chunk checked against the
// chain's own encoding after each.
void write_and_check(const json& codecs, PipelineOptions options) {
  auto store = std::make_shared<MemoryStore>();
  const ChunkPipeline pipeline(store, "a", metadata_with(codecs), options);
  const Shape shape = {20, 30};

  // 1. The whole array from a strided view.
  NDBuffer model = NDBuffer::allocate(DataType(DataTypeKind::uint16), shape);
  const NDBuffer data = strided_values(shape, 1);
  model.assign(data);
  pipeline.write(full_selection(shape), data);
  expect_store_holds_encoded_chunks(pipeline, *store, model);

  // 2. A partial write across chunk borders (read-modify-write of the chunks it touches).
  const NDBuffer patch = strided_values({7, 15}, 2);
  pipeline.write(region(5, 12, 10, 25), patch);
  model.sliced(0, 5, 1, 7).sliced(1, 10, 1, 15).assign(patch);
  expect_store_holds_encoded_chunks(pipeline, *store, model);

  // 3. The fill value over all of chunk (1, 1) and half of chunk (0, 0): the first is erased, the
  //    second keeps its other half (for shards: its other inner chunks).
  NDBuffer zeros = NDBuffer::allocate(DataType(DataTypeKind::uint16), {8, 12});
  std::memset(zeros.data(), 0, static_cast<size_t>(zeros.nbytes()));
  pipeline.write(region(8, 16, 12, 24), zeros);
  pipeline.write(region(0, 8, 0, 6), zeros.sliced(1, 0, 1, 6));
  model.sliced(0, 8, 1, 8).sliced(1, 12, 1, 12).assign(zeros);
  model.sliced(0, 0, 1, 8).sliced(1, 0, 1, 6).assign(zeros.sliced(1, 0, 1, 6));
  const int64_t erased[2] = {1, 1};
  EXPECT_FALSE(store->get(pipeline.chunk_key(erased)).has_value());
  expect_store_holds_encoded_chunks(pipeline, *store, model);

  // 4. Reads back what was written.
  NDBuffer back = NDBuffer::allocate(DataType(DataTypeKind::uint16), shape);
  pipeline.read(full_selection(shape), back);
  EXPECT_EQ(std::memcmp(back.data(), model.data(), static_cast<size_t>(model.nbytes())), 0);
}

TEST_P(PipelineWrite, StoresWhatTheChainEncodesForWholeAndPartialWrites) {
  write_and_check(GetParam(), {});
}

TEST_P(PipelineWrite, StoresTheSameInBatchesOfOneChunk) {
  // A batch of at most one chunk (at most one chunk read before a partial write on the path
  // that encodes and stores in one task).
  PipelineOptions options;
  options.batch_bytes = 1;
  write_and_check(GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(Chains, PipelineWrite,
                         ::testing::Values(json::array({kBytes, kZstd}),
                                           json::array({kBytes, kBlosc}),
                                           json::array({kBytes, kGzip}), json::array({kBytes}),
                                           sharded(json::array({kBytes, kZstd})),
                                           sharded(json::array({kBytes}))));

}  // namespace
}  // namespace cuzarr
