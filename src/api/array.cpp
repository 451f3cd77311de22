#include "cuzarr/api/array.hpp"

#include <fmt/format.h>

#include "cuzarr/api/group.hpp"
#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/stage_times.hpp"
#include "cuzarr/metadata/fill_value.hpp"
#include "cuzarr/metadata/v2_array_metadata.hpp"
#include "cuzarr/metadata/v2_fill_value.hpp"
#include "cuzarr/pipeline/chunk_pipeline.hpp"
#include "cuzarr/pipeline/chunk_plan.hpp"
#include "cuzarr/pipeline/stored_chunks.hpp"
#include "node_io.hpp"

namespace cuzarr {
namespace {

// A view of `out` (shape = selection result shape) with the dropped dimensions put back as
// extent-1 dimensions, as the pipeline works in the array's rank.
NDBuffer with_dropped_dimensions(const NDBuffer& buffer, const NormalizedSelection& selection) {
  Shape shape;
  std::vector<int64_t> strides;
  size_t source_dim = 0;
  for (const auto& d : selection.dims) {
    if (d.dropped) {
      shape.push_back(1);
      strides.push_back(0);
    } else {
      shape.push_back(buffer.shape()[source_dim]);
      strides.push_back(buffer.byte_strides()[source_dim]);
      ++source_dim;
    }
  }
  return NDBuffer(buffer.buffer(), buffer.dtype(), std::move(shape), std::move(strides),
                  buffer.byte_offset());
}

// zarr-python 3's defaults: the array -> bytes codec the data type needs, then zstd.
std::vector<CodecSpec> default_codecs(const DataType& dtype) {
  if (dtype.is_variable_length()) {
    return {CodecSpec{dtype.kind() == DataTypeKind::string ? "vlen-utf8" : "vlen-bytes", {}},
            CodecSpec{"zstd", {{"level", 0}, {"checksum", false}}}};
  }
  return {CodecSpec{"bytes", {{"endian", "little"}}},
          CodecSpec{"zstd", {{"level", 0}, {"checksum", false}}}};
}

}  // namespace

ArrayMetadata make_array_metadata(const ArrayCreateOptions& options) {
  if (options.zarr_format != 2 && options.zarr_format != 3) {
    throw InvalidArgumentError(
        fmt::format("zarr_format must be 2 or 3, got {}", options.zarr_format));
  }
  const bool v2 = options.zarr_format == 2;
  if (v2 && options.shard_shape)
    throw InvalidArgumentError("sharding (shard_shape) cannot be stored in Zarr v2 metadata");
  if (v2 && options.dimension_names)
    throw InvalidArgumentError("dimension_names cannot be stored in Zarr v2 metadata");
  ArrayMetadata m;
  m.zarr_format = options.zarr_format;
  m.shape = options.shape;
  m.data_type = options.data_type;
  element_count(m.shape);
  Shape inner = options.chunk_shape.empty() ? options.shape : options.chunk_shape;
  // A chunk shape taken from the array's shape has extents of at least 1 (an empty dimension
  // still has a chunk extent); one given must be positive (below).
  if (options.chunk_shape.empty()) {
    for (auto& extent : inner) extent = std::max<int64_t>(extent, 1);
  }
  if (inner.size() != m.shape.size()) {
    throw InvalidArgumentError(
        fmt::format("chunk shape {} has a different rank than the array shape {}",
                    shape_to_string(inner), shape_to_string(m.shape)));
  }
  for (auto extent : inner) {
    if (extent <= 0)
      throw InvalidArgumentError(
          fmt::format("chunk shape {} must be positive", shape_to_string(inner)));
  }
  std::vector<CodecSpec> codecs = options.codecs ? *options.codecs : default_codecs(m.data_type);
  if (options.shard_shape) {
    const Shape& shard = *options.shard_shape;
    if (shard.size() != m.shape.size()) {
      throw InvalidArgumentError(
          fmt::format("shard shape {} has a different rank than the array shape {}",
                      shape_to_string(shard), shape_to_string(m.shape)));
    }
    for (size_t d = 0; d < shard.size(); ++d) {
      if (shard[d] <= 0 || shard[d] % inner[d] != 0) {
        throw InvalidArgumentError(
            fmt::format("shard shape {} must be a positive multiple of the chunk shape {}",
                        shape_to_string(shard), shape_to_string(inner)));
      }
    }
    nlohmann::json inner_codecs = nlohmann::json::array();
    for (const auto& c : codecs) inner_codecs.push_back(c.to_json());
    CodecSpec sharding{
        "sharding_indexed",
        {{"chunk_shape", inner},
         {"codecs", inner_codecs},
         {"index_codecs",
          nlohmann::json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                                 {{"name", "crc32c"}}})},
         {"index_location", "end"}}};
    codecs = {sharding};
    m.chunk_shape = shard;
  } else {
    m.chunk_shape = inner;
  }
  m.codecs = std::move(codecs);
  m.chunk_key_encoding = options.chunk_key_encoding;
  if (v2 && m.chunk_key_encoding.kind != ChunkKeyEncoding::Kind::v2)
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, '.'};
  if (options.fill_value.is_null())
    m.fill_value = std::vector<std::byte>(m.data_type.size(), std::byte{0});
  else if (v2)
    m.fill_value = parse_v2_fill_value(options.fill_value, m.data_type);
  else
    m.fill_value = parse_fill_value(options.fill_value, m.data_type);
  m.attributes = options.attributes;
  m.dimension_names = options.dimension_names;
  if (m.dimension_names && m.dimension_names->size() != m.shape.size()) {
    throw InvalidArgumentError("dimension_names must have one entry per dimension");
  }
  // Resolve the codecs now, so that a bad configuration fails before anything is written, and
  // store them with every default explicit (as zarr-python does; its numcodecs codecs require a
  // "configuration" member).
  auto chain =
      CodecChain::create(m.codecs, ChunkRepresentation{m.chunk_shape, m.data_type, m.fill_value});
  m.codecs.clear();
  for (const auto& codec : chain->to_json()) m.codecs.push_back(CodecSpec::from_json(codec));
  if (v2) v2_array_metadata_to_json(m);  // throws when v2 metadata cannot hold it
  return m;
}

Array::Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata)
    : store_(std::move(store)),
      path_(std::move(path)),
      metadata_(std::make_shared<ArrayMetadata>(std::move(metadata))) {}

Array Array::open(std::shared_ptr<Store> store, const std::string& path) {
  const std::string path_ = normalize_node_path(path);
  const auto kind = detect_node(*store, path_);
  if (!kind)
    throw NotFoundError(fmt::format("no Zarr array at \"{}\" in {}", path_, store->description()));
  if (kind->type != NodeType::array) {
    throw InvalidArgumentError(fmt::format(
        "\"{}\" is a group, not an array",
        kind->zarr_format == 2 ? node_document_key(path_, kV2GroupKey) : metadata_key(path_)));
  }
  ArrayMetadata metadata = read_array_metadata(*store, path_, kind->zarr_format);
  return Array(std::move(store), path_, std::move(metadata));
}

Array Array::open_with_metadata(std::shared_ptr<Store> store, const std::string& path,
                                ArrayMetadata metadata) {
  return Array(std::move(store), normalize_node_path(path), std::move(metadata));
}

Array Array::create(std::shared_ptr<Store> store, const std::string& path,
                    const ArrayCreateOptions& options) {
  return create(std::move(store), path, make_array_metadata(options), options.overwrite);
}

Array Array::create(std::shared_ptr<Store> store, const std::string& path,
                    const ArrayMetadata& metadata, bool overwrite) {
  const std::string path_ = normalize_node_path(path);
  // Before anything stored is erased: an array that could not be opened again must not replace
  // one that can.
  check_array_metadata_readable(metadata, path_);
  if (node_type(*store, path_)) {
    if (!overwrite) {
      throw InvalidArgumentError(fmt::format(
          "a node already exists at \"{}\" in {} (use overwrite)", path_, store->description()));
    }
    store->erase_prefix(path_.empty() ? "" : path_ + "/");
  }
  ensure_parent_groups(*store, path_, metadata.zarr_format);
  Array array(std::move(store), path_, metadata);
  array.write_metadata();
  return array;
}

void Array::write_metadata() const { write_array_metadata(*store_, path_, *metadata_); }

NDBuffer Array::read(const Selection& selection, MemoryKind kind) const {
  const auto normalized = normalize_selection(selection, metadata_->shape);
  NDBuffer out = [&] {
    const StageTimer timer("allocate the result");
    return NDBuffer::allocate(metadata_->data_type, normalized.result_shape(), kind);
  }();
  ChunkPipeline(store_, path_, metadata_, pipeline_options())
      .read(normalized, with_dropped_dimensions(out, normalized));
  return out;
}

void Array::read_into(const Selection& selection, const NDBuffer& out) const {
  const auto normalized = normalize_selection(selection, metadata_->shape);
  if (out.shape() != normalized.result_shape()) {
    throw InvalidArgumentError(
        fmt::format("read of \"{}\": output shape {} does not match the selection shape {}", path_,
                    shape_to_string(out.shape()), shape_to_string(normalized.result_shape())));
  }
#if !defined(CUZARR_HAVE_CUDA)
  if (!is_host_accessible(out.kind())) {
    throw UnsupportedError("reading into device memory needs CUDA support in this build");
  }
#endif
  ChunkPipeline(store_, path_, metadata_, pipeline_options())
      .read(normalized, with_dropped_dimensions(out, normalized));
}

void Array::write(const Selection& selection, const NDBuffer& data) const {
  const auto normalized = normalize_selection(selection, metadata_->shape);
  if (data.shape() != normalized.result_shape()) {
    throw InvalidArgumentError(
        fmt::format("write to \"{}\": data shape {} does not match the selection shape {}", path_,
                    shape_to_string(data.shape()), shape_to_string(normalized.result_shape())));
  }
#if !defined(CUZARR_HAVE_CUDA)
  if (!is_host_accessible(data.kind())) {
    throw UnsupportedError("writing from device memory needs CUDA support in this build");
  }
#endif
  ChunkPipeline(store_, path_, metadata_, pipeline_options())
      .write(normalized, with_dropped_dimensions(data, normalized));
}

static_assert(PipelineOptions{}.batch_bytes == uint64_t{256} << 20,
              "Array's default batch_bytes_ is PipelineOptions'");
static_assert(PipelineOptions{}.concurrent_device_batches == 3,
              "Array's default concurrent_device_batches_ is PipelineOptions'");

PipelineOptions Array::pipeline_options() const {
  PipelineOptions options;
  options.batch_bytes = batch_bytes_;
  options.concurrent_device_batches = concurrent_device_batches_;
  options.write_empty_chunks = write_empty_chunks_;
  options.codec_placement = codec_placement_;
  return options;
}

void Array::set_batch_bytes(uint64_t bytes) {
  if (bytes == 0)
    throw InvalidArgumentError(fmt::format("array \"{}\": batch_bytes must be at least 1", path_));
  batch_bytes_ = bytes;
}

void Array::set_concurrent_device_batches(size_t batches) {
  if (batches == 0) {
    throw InvalidArgumentError(
        fmt::format("array \"{}\": concurrent_device_batches must be at least 1", path_));
  }
  concurrent_device_batches_ = batches;
}

void Array::set_codec_placement(std::optional<CodecPlacement> placement) {
  if (placement) {
    try {
      placement->validate();
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError(fmt::format("array \"{}\": {}", path_, e.what()));
    }
  }
  codec_placement_ = std::move(placement);
}

void Array::resize(const Shape& new_shape) {
  if (new_shape.size() != ndim()) {
    throw InvalidArgumentError(
        fmt::format("resize of \"{}\": new shape {} has rank {}, the array has rank {}", path_,
                    shape_to_string(new_shape), new_shape.size(), ndim()));
  }
  element_count(new_shape);
  if (metadata_->rectilinear_grid) {
    throw UnsupportedError(fmt::format(
        "resize of \"{}\": arrays with a rectilinear chunk grid cannot be resized", path_));
  }
  const Shape old_shape = metadata_->shape;
  const Shape& chunk = metadata_->chunk_shape;
  // 1. Chunks wholly outside the new shape are deleted.
  for (const auto& stored : list_stored_chunks(*store_, path_, *metadata_)) {
    for (size_t d = 0; d < ndim(); ++d) {
      if (stored.coords[d] * chunk[d] >= new_shape[d]) {
        store_->erase(stored.key);
        break;
      }
    }
  }
  // 2. In chunks cut by the new boundary, the part past it is reset to the fill value, so that
  //    growing the array later does not bring old values back.
  for (size_t d = 0; d < ndim(); ++d) {
    const int64_t boundary_end =
        std::min(old_shape[d], ceil_div(new_shape[d], chunk[d]) * chunk[d]);
    if (new_shape[d] >= old_shape[d] || new_shape[d] >= boundary_end) continue;
    Selection sliver;
    for (size_t e = 0; e < ndim(); ++e) {
      if (e == d)
        sliver.push_back(Slice{new_shape[d], boundary_end, 1});
      else
        sliver.push_back(Slice{0, std::min(old_shape[e], new_shape[e]), 1});
    }
    const auto normalized = normalize_selection(sliver, old_shape);
    Buffer one = Buffer::copy_of(metadata_->fill_value);
    NDBuffer fill(one, metadata_->data_type, normalized.result_shape(),
                  std::vector<int64_t>(ndim(), 0), 0);
    write(sliver, fill);
  }
  metadata_ = std::make_shared<ArrayMetadata>(*metadata_);
  metadata_->shape = new_shape;
  write_metadata();
}

void Array::set_attributes(const nlohmann::json& attributes) {
  if (!attributes.is_object()) throw InvalidArgumentError("attributes must be a JSON object");
  metadata_ = std::make_shared<ArrayMetadata>(*metadata_);
  metadata_->attributes = attributes;
  write_metadata();
}

std::string Array::chunk_key(std::span<const int64_t> coords) const {
  const std::string key = metadata_->chunk_key_encoding.encode(coords);
  return path_.empty() ? key : path_ + "/" + key;
}

ArrayStorageInfo Array::storage_info() const {
  ArrayStorageInfo info;
  info.chunks_total = metadata_->chunk_count();
  const auto stored = list_stored_chunks(*store_, path_, *metadata_);
  info.chunks_stored = static_cast<int64_t>(stored.size());
  std::vector<uint64_t> sizes(stored.size());
  parallel_for(stored.size(),
               [&](size_t i) { sizes[i] = store_->size(stored[i].key).value_or(0); });
  for (auto s : sizes) info.stored_bytes += s;
  return info;
}

std::vector<ChunkProblem> Array::verify() const {
  const auto stored = list_stored_chunks(*store_, path_, *metadata_);
  ChunkPipeline pipeline(store_, path_, metadata_);
  const auto& chain = pipeline.chain();
  std::vector<ChunkProblem> problems;
  const size_t per_batch = std::max<size_t>(
      1, static_cast<size_t>((uint64_t{256} << 20) /
                             std::max<int64_t>(1, chain.decoded_representation().nbytes())));
  for (size_t first = 0; first < stored.size(); first += per_batch) {
    const size_t n = std::min(per_batch, stored.size() - first);
    std::vector<KeyRange> requests(n);
    for (size_t i = 0; i < n; ++i) requests[i].key = stored[first + i].key;
    auto fetched = store_->get_many(requests);
    std::vector<Buffer> encoded(n);
    std::vector<NDBuffer> decoded(n);
    std::vector<ChunkStatus> status(n);
    std::vector<Index> coords(n);
    for (size_t i = 0; i < n; ++i) {
      coords[i] = stored[first + i].coords;
      if (!fetched[i]) {
        status[i].fail(ErrorCode::not_found, "removed while verifying");
      } else if (auto problem = pipeline.stored_shard_problem(fetched[i]->size())) {
        status[i].fail(ErrorCode::corrupt_data, *problem);  // as reads reject it
      } else {
        encoded[i] = std::move(*fetched[i]);
      }
    }
    pipeline.decode_batch(coords, encoded, decoded, status);
    for (size_t i = 0; i < n; ++i) {
      if (!status[i].ok) problems.push_back({requests[i].key, status[i].message});
    }
  }
  return problems;
}

}  // namespace cuzarr
