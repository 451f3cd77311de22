#include "cuzarr/api/copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/pipeline/stored_chunks.hpp"

namespace cuzarr {
namespace {

const CodecSpec* sharding_codec(const ArrayMetadata& metadata) {
  if (metadata.codecs.size() == 1 && metadata.codecs[0].name == "sharding_indexed") {
    return &metadata.codecs[0];
  }
  return nullptr;
}

std::vector<CodecSpec> codec_list(const nlohmann::json& codecs) {
  std::vector<CodecSpec> list;
  for (const auto& codec : codecs) list.push_back(CodecSpec::from_json(codec));
  return list;
}

ChunkKeyEncoding default_key_encoding(int zarr_format) {
  ChunkKeyEncoding encoding;
  if (zarr_format == 2) {
    encoding.kind = ChunkKeyEncoding::Kind::v2;
    encoding.separator = '.';
  }
  return encoding;
}

// One array to copy.
struct ArrayJob {
  std::string source_path;
  std::string destination_path;
  ArrayMetadata metadata;  ///< of the copy
};

struct Walk {
  struct GroupJob {
    std::string destination_path;
    nlohmann::json attributes;
    int zarr_format;
  };
  std::vector<GroupJob> groups;
  std::vector<ArrayJob> arrays;
};

void walk(const std::shared_ptr<Store>& source, const std::string& source_path,
          const std::string& destination_path, const CopyOptions& options, Walk& out) {
  const auto type = node_type(*source, source_path);
  if (!type) {
    throw NotFoundError(fmt::format("copy: no Zarr array or group at \"{}\" of {}", source_path,
                                    source->description()));
  }
  if (*type == NodeType::array) {
    const Array array = Array::open(source, source_path);
    try {
      out.arrays.push_back(
          {source_path, destination_path, copied_array_metadata(array.metadata(), options)});
    } catch (const Error& e) {
      throw InvalidArgumentError(fmt::format("copy of array \"{}\": {}", source_path, e.what()));
    }
    return;
  }
  const Group group = Group::open(source, source_path);
  out.groups.push_back(
      {destination_path, group.attributes(), options.zarr_format.value_or(group.zarr_format())});
  for (const auto& member : group.members()) {
    walk(source, join_node_path(source_path, member.name),
         join_node_path(destination_path, member.name), options, out);
  }
}

// The shape of one copy step: whole destination write units (chunks or shards), grown along the
// last dimensions first while the step stays within `step_bytes`.
Shape step_shape(const ArrayMetadata& m, uint64_t step_bytes) {
  Shape block = m.chunk_shape;
  const uint64_t element = std::max<uint64_t>(1, m.data_type.size());
  for (size_t d = m.shape.size(); d-- > 0;) {
    const uint64_t block_bytes = static_cast<uint64_t>(element_count(block)) * element;
    const int64_t units_in_dim = std::max<int64_t>(1, ceil_div(m.shape[d], m.chunk_shape[d]));
    const int64_t allowed = static_cast<int64_t>(
        std::max<uint64_t>(1, step_bytes / std::max<uint64_t>(1, block_bytes)));
    const int64_t factor = std::min(units_in_dim, allowed);
    block[d] = m.chunk_shape[d] * factor;
    if (factor < units_in_dim) break;
  }
  return block;
}

// The source chunk holding `position` along `dim`.
int64_t chunk_index(const ArrayMetadata& m, size_t dim, int64_t position) {
  return m.rectilinear_grid ? m.rectilinear_grid->chunk_index(dim, position)
                            : position / m.chunk_shape[dim];
}

// Whether any stored source chunk intersects [begin, end).
bool any_stored(const std::set<Index>& stored, const ArrayMetadata& source, const Index& begin,
                const Index& end) {
  const size_t ndim = begin.size();
  if (ndim == 0) return !stored.empty();
  Index first(ndim), last(ndim), coords(ndim);
  for (size_t d = 0; d < ndim; ++d) {
    first[d] = chunk_index(source, d, begin[d]);
    last[d] = chunk_index(source, d, end[d] - 1);
  }
  coords = first;
  while (true) {
    if (stored.count(coords)) return true;
    size_t d = ndim;
    while (d > 0) {
      --d;
      if (++coords[d] <= last[d]) break;
      coords[d] = first[d];
      if (d == 0) return false;
    }
  }
}

}  // namespace

ArrayMetadata copied_array_metadata(const ArrayMetadata& source, const CopyOptions& options) {
  const int format = options.zarr_format.value_or(source.zarr_format);
  if (format != 2 && format != 3) {
    throw InvalidArgumentError(fmt::format("zarr_format must be 2 or 3, got {}", format));
  }
  const CodecSpec* sharding = sharding_codec(source);
  ArrayCreateOptions create;
  create.shape = source.shape;
  create.data_type = source.data_type;
  if (sharding) {
    create.chunk_shape = sharding->configuration.at("chunk_shape").get<Shape>();
    create.codecs = codec_list(sharding->configuration.at("codecs"));
  } else {
    create.chunk_shape = source.chunk_shape;
    create.codecs = source.codecs;
  }
  if (options.chunk_shape) create.chunk_shape = *options.chunk_shape;
  if (options.codecs_for) create.codecs = options.codecs_for(source.data_type);
  if (options.shard_shape) {
    if (options.no_shards) {
      throw InvalidArgumentError("a shard shape and no_shards cannot be given together");
    }
    if (format == 2) throw UnsupportedError("Zarr v2 has no sharding: a shard shape cannot be set");
    create.shard_shape = *options.shard_shape;
  } else if (sharding && !options.no_shards && format == 3) {
    bool fits = true;
    for (size_t d = 0; d < source.shape.size(); ++d) {
      fits =
          fits && create.chunk_shape[d] > 0 && source.chunk_shape[d] % create.chunk_shape[d] == 0;
    }
    if (!fits) {
      throw InvalidArgumentError(fmt::format(
          "the source's shard shape {} is not a multiple of the chunk shape {}: give a shard shape "
          "or ask for no shards",
          shape_to_string(source.chunk_shape), shape_to_string(create.chunk_shape)));
    }
    create.shard_shape = source.chunk_shape;
  }
  create.attributes = source.attributes;
  create.dimension_names = source.dimension_names;
  create.chunk_key_encoding =
      format == source.zarr_format ? source.chunk_key_encoding : default_key_encoding(format);
  create.zarr_format = format;
  ArrayMetadata metadata = make_array_metadata(create);
  metadata.fill_value = source.fill_value;
  if (format == source.zarr_format) metadata.fill_value_is_null = source.fill_value_is_null;
  return metadata;
}

CopyProgress copy_node(const std::shared_ptr<Store>& source, const std::string& source_path,
                       const std::shared_ptr<Store>& destination,
                       const std::string& destination_path, const CopyOptions& options,
                       const std::function<void(const CopyProgress&)>& on_progress) {
  const auto started = std::chrono::steady_clock::now();
  CopyProgress progress;
  auto report = [&] {
    progress.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (on_progress) on_progress(progress);
  };
  auto cancelled = [&] {
    return options.cancel && options.cancel->load(std::memory_order_relaxed);
  };

  // Plan everything first, so that a bad option fails before anything is written.
  Walk plan;
  walk(source, source_path, destination_path, options, plan);
  for (const auto& job : plan.arrays) progress.chunks_total += job.metadata.chunk_count();

  for (const auto& group : plan.groups) {
    Group::create(destination, group.destination_path, group.attributes, options.overwrite,
                  group.zarr_format);
    ++progress.groups;
  }
  report();

  for (const auto& job : plan.arrays) {
    if (cancelled()) break;
    const Array input = Array::open(source, job.source_path);
    const Array output =
        Array::create(destination, job.destination_path, job.metadata, options.overwrite);
    ++progress.arrays;
    const auto stored_chunks = list_stored_chunks(*source, job.source_path, input.metadata());
    std::set<Index> stored;
    std::vector<uint64_t> sizes(stored_chunks.size());
    parallel_for(stored_chunks.size(),
                 [&](size_t i) { sizes[i] = source->size(stored_chunks[i].key).value_or(0); });
    for (size_t i = 0; i < stored_chunks.size(); ++i) {
      stored.insert(stored_chunks[i].coords);
      progress.bytes_in += sizes[i];
    }

    const ArrayMetadata& m = job.metadata;
    const size_t ndim = m.shape.size();
    const Shape block = step_shape(m, options.step_bytes);
    Shape steps(ndim);
    bool empty = false;
    for (size_t d = 0; d < ndim; ++d) {
      steps[d] = ceil_div(m.shape[d], block[d]);
      empty = empty || steps[d] == 0;
    }
    Index step(ndim, 0);
    while (!empty && !cancelled()) {
      Selection selection;
      Index begin(ndim), end(ndim);
      int64_t units = 1;
      for (size_t d = 0; d < ndim; ++d) {
        begin[d] = step[d] * block[d];
        end[d] = std::min(m.shape[d], begin[d] + block[d]);
        selection.push_back(Slice{begin[d], end[d], 1});
        units *= ceil_div(end[d] - begin[d], m.chunk_shape[d]);
      }
      // Regions without any stored source chunk hold the fill value, which the (fresh) copy
      // represents by storing nothing.
      if (any_stored(stored, input.metadata(), begin, end)) {
        NDBuffer data = input.read(selection);
        output.write(selection, data);
        progress.decoded_bytes += static_cast<uint64_t>(data.size()) * m.data_type.size();
      }
      progress.chunks_done += units;
      report();
      size_t d = ndim;
      bool done = ndim == 0;
      while (d > 0) {
        --d;
        if (++step[d] < steps[d]) break;
        step[d] = 0;
        if (d == 0) done = true;
      }
      if (done) break;
    }
    const auto info = output.storage_info();
    progress.chunks_written += info.chunks_stored;
    progress.bytes_out += info.stored_bytes;
  }
  progress.cancelled = cancelled() && progress.chunks_done < progress.chunks_total;
  report();
  return progress;
}

}  // namespace cuzarr
