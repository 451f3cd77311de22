// Full reads whose chunks are fully covered strided views of the output (a chunk's place inside
// a larger array) decode each chunk piece by piece straight into its place (zstd, blosc) or copy
// from the fetched bytes (raw). The result must equal, byte for byte, the chunk-by-chunk decode
// into scratch arrays copied into place (the path without streaming), for 2-D and 3-D arrays
// with edge chunks, several data types and codecs; a corrupt chunk fails the read with an error
// naming its key, and nothing outside the output view is ever written.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/memory/allocator_callbacks.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/pipeline/chunk_pipeline.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kBytesBig = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
// numcodecs.delta in the chunk's data type: decoded in place (its running sum over the place).
const json kDelta = {{"name", "numcodecs.delta"}, {"configuration", json::object()}};

json zstd(bool checksum) {
  return {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", checksum}}}};
}

json blosc(const char* shuffle, int clevel, int64_t typesize, int64_t blocksize) {
  return {{"name", "blosc"},
          {"configuration",
           {{"cname", "lz4"},
            {"clevel", clevel},
            {"shuffle", shuffle},
            {"typesize", typesize},
            {"blocksize", blocksize}}}};
}

struct ReadCase {
  std::string name;
  std::string data_type;
  Shape shape;
  Shape chunk_shape;
  json codecs;
  bool sharded = false;  // codecs are the inner codecs of [sharding_indexed] with 2x2 shards
  bool compressed_stream = false;  // a compressor decodes fully covered chunks piece by piece
};

void PrintTo(const ReadCase& c, std::ostream* os) { *os << c.name; }

std::shared_ptr<const ArrayMetadata> metadata_for(const ReadCase& c) {
  json codecs = c.codecs;
  Shape grid_chunk = c.chunk_shape;
  if (c.sharded) {
    for (auto& e : grid_chunk) e *= 2;
    codecs = json::array({{{"name", "sharding_indexed"},
                           {"configuration",
                            {{"chunk_shape", c.chunk_shape},
                             {"codecs", c.codecs},
                             {"index_codecs", {kBytes, {{"name", "crc32c"}}}},
                             {"index_location", "end"}}}}});
  }
  const json j = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", c.shape},
      {"data_type", c.data_type},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", grid_chunk}}}}},
      {"chunk_key_encoding", {{"name", "default"}}},
      {"fill_value", 0},
      {"codecs", codecs}};
  return std::make_shared<const ArrayMetadata>(ArrayMetadata::from_json(j, "test array"));
}

// Runs of 16 equal values on a slow ramp (compressible, so compressed chunks are far smaller
// than decoded ones and blosc stores real blocks), never 0.
NDBuffer source_array(DataType dtype, const Shape& shape) {
  NDBuffer a = NDBuffer::allocate(dtype, shape);
  const int64_t n = a.size();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t step = 1 + (i / 16) % 4000;
    switch (dtype.kind()) {
      case DataTypeKind::uint16:
        a.data_as<uint16_t>()[i] = static_cast<uint16_t>(step);
        break;
      case DataTypeKind::float32:
        a.data_as<float>()[i] = static_cast<float>(step) * 0.25f;
        break;
      case DataTypeKind::float64:
        a.data_as<double>()[i] = static_cast<double>(step) * 0.125;
        break;
      default:
        ADD_FAILURE() << "unexpected data type " << dtype.name();
    }
  }
  return a;
}

// `a` restricted to [start, start + count) in every dimension.
NDBuffer region(NDBuffer a, const Index& start, const Shape& count) {
  for (size_t d = 0; d < start.size(); ++d) a = a.sliced(d, start[d], 1, count[d]);
  return a;
}

std::vector<std::byte> c_order_bytes(const NDBuffer& a) {
  NDBuffer copy = NDBuffer::allocate(a.dtype(), a.shape());
  copy.assign(a);
  return std::vector<std::byte>(copy.data(), copy.data() + copy.nbytes());
}

// The array as the path without streaming reads it: every stored chunk (or shard) decoded by the
// chain into a new C-order scratch array, then its valid region copied into place.
NDBuffer read_chunk_by_chunk(const ChunkPipeline& pipeline, const Store& store,
                             const ArrayMetadata& meta) {
  NDBuffer model = NDBuffer::allocate(meta.data_type, meta.shape);
  model.fill(meta.fill_value);
  const size_t ndim = meta.shape.size();
  Shape grid(ndim);
  for (size_t d = 0; d < ndim; ++d)
    grid[d] = (meta.shape[d] + meta.chunk_shape[d] - 1) / meta.chunk_shape[d];
  Index coords(ndim, 0);
  for (;;) {
    if (auto stored = store.get(pipeline.chunk_key(coords))) {
      std::vector<Buffer> in{*stored};
      std::vector<NDBuffer> out(1);
      std::vector<ChunkStatus> status(1);
      pipeline.chain().decode(in, out, status);
      EXPECT_TRUE(status[0].ok) << status[0].message;
      EXPECT_TRUE(out[0].is_c_contiguous());
      Index start(ndim);
      Shape count(ndim);
      for (size_t d = 0; d < ndim; ++d) {
        start[d] = coords[d] * meta.chunk_shape[d];
        count[d] = std::min(meta.chunk_shape[d], meta.shape[d] - start[d]);
      }
      region(model, start, count).assign(region(out[0], Index(ndim, 0), count));
    }
    size_t d = ndim;
    while (d-- > 0) {
      if (++coords[d] < grid[d]) break;
      coords[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) break;
  }
  return model;
}

// An output view of `shape` inside a larger buffer whose margins hold a sentinel byte.
struct FramedOutput {
  NDBuffer storage;
  NDBuffer view;
};

constexpr std::byte kSentinel{0xA5};

FramedOutput framed_output(DataType dtype, const Shape& shape) {
  Shape wide = shape;
  for (auto& e : wide) e += 3;
  FramedOutput f{NDBuffer::allocate(dtype, wide), {}};
  std::memset(f.storage.data(), static_cast<int>(kSentinel),
              static_cast<size_t>(f.storage.nbytes()));
  f.view = region(f.storage, Index(shape.size(), 1), shape);
  return f;
}

// True when every byte of `f.storage` outside `f.view` still holds the sentinel.
bool margins_untouched(const FramedOutput& f) {
  NDBuffer probe = NDBuffer::allocate(f.storage.dtype(), f.storage.shape());
  probe.assign(f.storage);
  // Blank the inside of the probe with the sentinel, then every byte must be the sentinel.
  NDBuffer sentinel = NDBuffer::allocate(f.view.dtype(), f.view.shape());
  std::memset(sentinel.data(), static_cast<int>(kSentinel), static_cast<size_t>(sentinel.nbytes()));
  region(probe, Index(f.view.shape().size(), 1), f.view.shape()).assign(sentinel);
  const auto* p = probe.data();
  return std::all_of(p, p + probe.nbytes(), [](std::byte b) { return b == kSentinel; });
}

class StreamingRead : public ::testing::TestWithParam<ReadCase> {
 protected:
  void SetUp() override {
    if (GetParam().codecs.dump().find("blosc") != std::string::npos && !BloscCodec::available())
      GTEST_SKIP() << "blosc support was not built";
  }
};

TEST_P(StreamingRead, FullReadEqualsTheChunkByChunkDecode) {
  const ReadCase& c = GetParam();
  auto store = std::make_shared<MemoryStore>();
  const auto meta = metadata_for(c);
  const ChunkPipeline pipeline(store, "a", meta);
  const NDBuffer data = source_array(meta->data_type, c.shape);
  pipeline.write(full_selection(c.shape), data);

  const NDBuffer model = read_chunk_by_chunk(pipeline, *store, *meta);
  const auto expected = c_order_bytes(model);
  EXPECT_EQ(expected, c_order_bytes(data));

  // Into a C-order array (chunks are strided views of it) and into a framed strided view.
  NDBuffer out = NDBuffer::allocate(meta->data_type, c.shape);
  pipeline.read(full_selection(c.shape), out);
  EXPECT_TRUE(c_order_bytes(out) == expected);
  FramedOutput framed = framed_output(meta->data_type, c.shape);
  pipeline.read(full_selection(c.shape), framed.view);
  EXPECT_TRUE(c_order_bytes(framed.view) == expected);
  EXPECT_TRUE(margins_untouched(framed));

  // Small batches (one chunk at a time) read the same.
  PipelineOptions small;
  small.batch_bytes = 1;
  const ChunkPipeline one_by_one(store, "a", meta, small);
  NDBuffer again = NDBuffer::allocate(meta->data_type, c.shape);
  one_by_one.read(full_selection(c.shape), again);
  EXPECT_TRUE(c_order_bytes(again) == expected);
}

// The largest host allocation made while `work` runs.
template <typename Work>
size_t largest_host_allocation(Work&& work) {
  static std::atomic<size_t> largest{0};
  largest = 0;
  set_host_allocator(
      [](size_t bytes, size_t alignment) -> void* {
        size_t seen = largest.load();
        while (bytes > seen && !largest.compare_exchange_weak(seen, bytes)) {
        }
        const size_t align = std::max(alignment, sizeof(void*));
        return std::aligned_alloc(align, (bytes + align - 1) / align * align);
      },
      [](void* p, size_t) { std::free(p); });
  try {
    work();
  } catch (...) {
    set_host_allocator({}, {});
    throw;
  }
  set_host_allocator({}, {});
  return largest.load();
}

TEST_P(StreamingRead, CompressedChunksNeedNoChunkSizedScratch) {
  const ReadCase& c = GetParam();
  if (!c.compressed_stream) GTEST_SKIP() << "not decoded piece by piece";
  auto store = std::make_shared<MemoryStore>();
  const auto meta = metadata_for(c);
  const ChunkPipeline pipeline(store, "a", meta);
  const NDBuffer data = source_array(meta->data_type, c.shape);
  pipeline.write(full_selection(c.shape), data);
  // The chunks (or shards) that lie wholly inside the array: no edge chunk, whose decode needs
  // a chunk-sized array before its valid part is copied out.
  const size_t ndim = c.shape.size();
  Selection inner(ndim);
  Shape inner_shape(ndim);
  for (size_t d = 0; d < ndim; ++d) {
    const int64_t grid_chunk = c.chunk_shape[d] * (c.sharded ? 2 : 1);
    inner_shape[d] = c.shape[d] / grid_chunk * grid_chunk;
    inner[d] = Slice{0, inner_shape[d], 1};
  }
  NDBuffer out = NDBuffer::allocate(meta->data_type, inner_shape);
  const size_t largest =
      largest_host_allocation([&] { pipeline.read(normalize_selection(inner, c.shape), out); });
  int64_t chunk_bytes = static_cast<int64_t>(meta->data_type.size());
  for (int64_t e : c.chunk_shape) chunk_bytes *= e;
  EXPECT_LT(largest, static_cast<size_t>(chunk_bytes));
  EXPECT_TRUE(c_order_bytes(out) == c_order_bytes(region(data, Index(ndim, 0), inner_shape)));
}

// Damages the stored chunk at `coords` so that its decode fails part way (or at once).
void corrupt_chunk(MemoryStore& store, const std::string& key, const ReadCase& c) {
  auto stored = store.get(key);
  ASSERT_TRUE(stored.has_value()) << key;
  std::vector<std::byte> bytes(stored->data(), stored->data() + stored->size());
  const std::string codecs = c.codecs.dump();
  if (codecs.find("blosc") != std::string::npos && bytes.size() > 64 &&
      (static_cast<uint8_t>(bytes[2]) & 0x2) == 0) {
    // c-blosc 1.x: the offset of the last block (after the 16-byte header) points past the end.
    uint32_t nbytes = 0, blocksize = 0;
    std::memcpy(&nbytes, bytes.data() + 4, 4);
    std::memcpy(&blocksize, bytes.data() + 8, 4);
    const uint32_t blocks = (nbytes + blocksize - 1) / blocksize;
    const uint32_t past_end = 0x7FFFFFF0u;
    std::memcpy(bytes.data() + 16 + 4 * (blocks - 1), &past_end, 4);
  } else if (codecs.find("\"checksum\":true") != std::string::npos) {
    bytes[bytes.size() / 2] ^= std::byte{0x5A};  // a bad block or a bad checksum
  } else {
    bytes.resize(bytes.size() - 5);  // truncated
  }
  store.set(key, bytes);
}

TEST_P(StreamingRead, CorruptChunkFailsNamingItsKeyAndWritesNothingOutside) {
  const ReadCase& c = GetParam();
  if (c.sharded) GTEST_SKIP() << "shards: see the sharding tests";
  auto store = std::make_shared<MemoryStore>();
  const auto meta = metadata_for(c);
  const ChunkPipeline pipeline(store, "a", meta);
  pipeline.write(full_selection(c.shape), source_array(meta->data_type, c.shape));
  Index coords(c.shape.size(), 0);
  coords[0] = 1;  // a fully covered chunk
  const std::string key = pipeline.chunk_key(coords);
  corrupt_chunk(*store, key, c);

  FramedOutput framed = framed_output(meta->data_type, c.shape);
  try {
    pipeline.read(full_selection(c.shape), framed.view);
    FAIL() << "the corrupt chunk " << key << " was read";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("\"" + key + "\""), std::string::npos) << e.what();
  }
  EXPECT_TRUE(margins_untouched(framed));
}

// A fresh directory under the system temp directory, removed with its contents.
class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cuzarr-read-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Chunks of a file store read into their place in the output: raw ones straight into its rows
// (gathered reads), zstd ones read and decoded piece by piece, blosc ones through a reused
// scratch buffer. Equal to the chunk-by-chunk decode, no chunk-sized buffer for the chunks the
// read covers whole, a missing chunk reads as the fill value, a short chunk file fails naming its
// key.
class StreamingReadFileStore : public ::testing::TestWithParam<ReadCase> {};

TEST_P(StreamingReadFileStore, ChunksLandInTheirPlace) {
  const ReadCase& c = GetParam();
  if (c.codecs.dump().find("blosc") != std::string::npos && !BloscCodec::available())
    GTEST_SKIP() << "blosc support was not built";
  TempDirectory dir;
  auto store = std::make_shared<FileStore>(dir.path());
  const auto meta = metadata_for(c);
  const ChunkPipeline pipeline(store, "a", meta);
  const NDBuffer data = source_array(meta->data_type, c.shape);
  pipeline.write(full_selection(c.shape), data);
  const auto expected = c_order_bytes(read_chunk_by_chunk(pipeline, *store, *meta));
  EXPECT_TRUE(expected == c_order_bytes(data));

  FramedOutput framed = framed_output(meta->data_type, c.shape);
  pipeline.read(full_selection(c.shape), framed.view);
  EXPECT_TRUE(c_order_bytes(framed.view) == expected);
  EXPECT_TRUE(margins_untouched(framed));

  const Shape inner_shape = {64, 128, 192};
  Selection inner;
  for (int64_t e : inner_shape) inner.push_back(Slice{0, e, 1});
  NDBuffer out = NDBuffer::allocate(meta->data_type, inner_shape);
  const size_t largest =
      largest_host_allocation([&] { pipeline.read(normalize_selection(inner, c.shape), out); });
  EXPECT_LT(largest, size_t{32} * 64 * 96 * 8);
  EXPECT_TRUE(c_order_bytes(out) == c_order_bytes(region(data, Index(3, 0), inner_shape)));

  // A missing chunk reads as the fill value; a short chunk file is an error naming its key.
  const int64_t gone[3] = {0, 1, 0};
  store->erase(pipeline.chunk_key(gone));
  pipeline.read(full_selection(c.shape), framed.view);
  EXPECT_EQ(
      framed.view.sliced(1, 64, 1, 64).sliced(2, 0, 1, 96).sliced(0, 0, 1, 32).data_as<double>()[0],
      0.0);
  const int64_t short_coords[3] = {1, 0, 1};
  const std::string key = pipeline.chunk_key(short_coords);
  auto bytes = *store->get(key);
  store->set(key, bytes.bytes().first(bytes.size() - 8));
  FramedOutput again = framed_output(meta->data_type, c.shape);
  try {
    pipeline.read(full_selection(c.shape), again.view);
    FAIL() << "the short chunk " << key << " was read";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("\"" + key + "\""), std::string::npos) << e.what();
  }
  EXPECT_TRUE(margins_untouched(again));
}

INSTANTIATE_TEST_SUITE_P(
    Codecs, StreamingReadFileStore,
    ::testing::Values(
        ReadCase{"raw", "float64", {70, 128, 200}, {32, 64, 96}, {kBytes}},
        ReadCase{"zstd", "float64", {70, 128, 200}, {32, 64, 96}, {kBytes, zstd(true)}},
        ReadCase{
            "blosc", "float64", {70, 128, 200}, {32, 64, 96}, {kBytes, blosc("shuffle", 5, 8, 0)}},
        ReadCase{"delta_raw", "float64", {70, 128, 200}, {32, 64, 96}, {kDelta, kBytes}},
        ReadCase{
            "delta_zstd", "float64", {70, 128, 200}, {32, 64, 96}, {kDelta, kBytes, zstd(true)}}),
    [](const ::testing::TestParamInfo<ReadCase>& info) { return info.param.name; });

const ReadCase kCases[] = {
    {"raw_uint16_2d", "uint16", {600, 2000}, {256, 768}, {kBytes}},
    {"raw_float32_3d", "float32", {70, 128, 200}, {32, 64, 96}, {kBytes}},
    {"zstd_uint16_2d", "uint16", {600, 2000}, {256, 768}, {kBytes, zstd(false)}, false, true},
    {"zstd_checksum_float64_3d",
     "float64",
     {70, 128, 200},
     {32, 64, 96},
     {kBytes, zstd(true)},
     false,
     true},
    {"zstd_big_endian_uint16_2d", "uint16", {600, 2000}, {256, 768}, {kBytesBig, zstd(true)}},
    {"blosc_shuffle_float32_3d",
     "float32",
     {70, 128, 200},
     {32, 64, 96},
     {kBytes, blosc("shuffle", 5, 4, 0)},
     false,
     true},
    {"blosc_bitshuffle_float64_3d",
     "float64",
     {70, 128, 200},
     {32, 64, 96},
     {kBytes, blosc("bitshuffle", 5, 8, 0)},
     false,
     true},
    {"blosc_noshuffle_small_blocks_float32_2d",
     "float32",
     {600, 2000},
     {256, 768},
     {kBytes, blosc("noshuffle", 5, 4, 1 << 16)},
     false,
     true},
    {"blosc_shuffle_uint16_2d",
     "uint16",
     {600, 2000},
     {256, 768},
     {kBytes, blosc("shuffle", 5, 2, 0)},
     false,
     true},
    {"blosc_memcpyed_uint16_3d",
     "uint16",
     {70, 128, 200},
     {32, 64, 96},
     {kBytes, blosc("shuffle", 0, 2, 0)}},
    {"delta_raw_uint16_2d", "uint16", {600, 2000}, {256, 768}, {kDelta, kBytes}},
    {"delta_zstd_float32_3d",
     "float32",
     {70, 128, 200},
     {32, 64, 96},
     {kDelta, kBytes, zstd(false)},
     false,
     true},
    {"delta_blosc_float64_3d",
     "float64",
     {70, 128, 200},
     {32, 64, 96},
     {kDelta, kBytes, blosc("shuffle", 5, 8, 0)},
     false,
     true},
    // astype differs from dtype: not in place (decoded chunk by chunk).
    {"delta_astype_zstd_uint16_2d",
     "uint16",
     {600, 2000},
     {256, 768},
     {{{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<u2"}, {"astype", "<i4"}}}},
      kBytes,
      zstd(false)}},
    {"sharded_delta_zstd_uint16_2d",
     "uint16",
     {600, 2000},
     {128, 384},
     {kDelta, kBytes, zstd(false)},
     true},
    {"sharded_zstd_uint16_2d",
     "uint16",
     {600, 2000},
     {128, 384},
     {kBytes, zstd(false)},
     true,
     true},
    {"sharded_blosc_float32_2d",
     "float32",
     {600, 2000},
     {128, 384},
     {kBytes, blosc("shuffle", 5, 4, 0)},
     true,
     true},
};

INSTANTIATE_TEST_SUITE_P(Cases, StreamingRead, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ReadCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cuzarr
