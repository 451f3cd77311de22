#include "cuzarr/codec/sharding_codec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "codec/direct_chunk_encoder.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"

namespace cuzarr {
namespace {

constexpr std::string_view kIndexSource = "sharding_indexed";

[[noreturn]] void throw_bad_field(std::string_view field, const std::string& what) {
  throw InvalidArgumentError(fmt::format("codec \"sharding_indexed\": \"{}\" {}", field, what));
}

// Sharding spec, "Configuration parameters": chunk_shape has the shard's rank and each extent
// evenly divides the shard shape.
Shape parse_chunk_shape(const nlohmann::json& configuration, const Shape& shard_shape) {
  if (!configuration.contains("chunk_shape")) throw_bad_field("chunk_shape", "is required");
  const auto& j = configuration["chunk_shape"];
  if (!j.is_array())
    throw_bad_field("chunk_shape",
                    fmt::format("must be an array of positive integers, got {}", j.dump()));
  Shape shape;
  for (const auto& e : j) {
    if (!e.is_number_integer() || e.get<int64_t>() <= 0) {
      throw_bad_field("chunk_shape",
                      fmt::format("must be an array of positive integers, got {}", j.dump()));
    }
    shape.push_back(e.get<int64_t>());
  }
  if (shape.size() != shard_shape.size()) {
    throw_bad_field("chunk_shape", fmt::format("{} has {} dimensions, the shard shape {} has {}",
                                               shape_to_string(shape), shape.size(),
                                               shape_to_string(shard_shape), shard_shape.size()));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shard_shape[d] % shape[d] != 0) {
      throw_bad_field("chunk_shape",
                      fmt::format("{} does not evenly divide the shard shape {} (dimension {})",
                                  shape_to_string(shape), shape_to_string(shard_shape), d));
    }
  }
  return shape;
}

std::vector<CodecSpec> parse_codec_list(const nlohmann::json& configuration, std::string_view field,
                                        const nlohmann::json& default_list) {
  const std::string key(field);
  const nlohmann::json& j = configuration.contains(key) ? configuration[key] : default_list;
  if (!j.is_array())
    throw_bad_field(field, fmt::format("must be an array of codecs, got {}", j.dump()));
  std::vector<CodecSpec> specs;
  for (const auto& entry : j) {
    try {
      specs.push_back(CodecSpec::from_json(entry));
    } catch (const Error& e) {
      throw_error(e.code(), fmt::format("codec \"sharding_indexed\": \"{}\": {}", field, e.what()));
    }
  }
  return specs;
}

std::shared_ptr<CodecChain> make_chain(const std::vector<CodecSpec>& specs,
                                       const ChunkRepresentation& decoded, std::string_view field) {
  try {
    return CodecChain::create(specs, decoded);
  } catch (const Error& e) {
    throw_error(e.code(), fmt::format("codec \"sharding_indexed\": \"{}\": {}", field, e.what()));
  }
}

// The index array: chunks per shard + [2] uint64 (sharding spec, "Binary shard format"), fill
// value 2^64-1 (the empty marker).
ChunkRepresentation index_representation(const Shape& grid) {
  Shape shape = grid;
  shape.push_back(2);
  return {std::move(shape), DataType(DataTypeKind::uint64),
          std::vector<std::byte>(8, std::byte{0xff})};
}

// The view of inner chunk `coords` within a shard array.
NDBuffer inner_chunk_view(const NDBuffer& shard, const Shape& inner_shape, const Index& coords) {
  NDBuffer view = shard;
  for (size_t d = 0; d < inner_shape.size(); ++d)
    view = view.sliced(d, coords[d] * inner_shape[d], 1, inner_shape[d]);
  return view;
}

// True when every element of `view` has exactly the bytes of the fill value. `row` holds the
// fill value repeated (a multiple of its size) to compare contiguous runs with memcmp.
bool region_is_fill(const std::byte* p, const NDBuffer& view, size_t dim,
                    const std::vector<std::byte>& row) {
  const size_t elem = view.dtype().size();
  if (dim == view.ndim()) return std::memcmp(p, row.data(), elem) == 0;
  const int64_t extent = view.shape()[dim];
  const int64_t stride = view.byte_strides()[dim];
  if (dim + 1 == view.ndim() && stride == static_cast<int64_t>(elem)) {
    size_t remaining = static_cast<size_t>(extent) * elem;
    while (remaining > 0) {
      const size_t n = std::min(remaining, row.size());
      if (std::memcmp(p, row.data(), n) != 0) return false;
      p += n;
      remaining -= n;
    }
    return true;
  }
  for (int64_t i = 0; i < extent; ++i) {
    if (!region_is_fill(p + i * stride, view, dim + 1, row)) return false;
  }
  return true;
}

std::vector<std::byte> repeated_fill(const std::vector<std::byte>& fill) {
  constexpr size_t kRowBytes = 4096;
  const size_t copies = std::max<size_t>(1, kRowBytes / std::max<size_t>(1, fill.size()));
  std::vector<std::byte> row;
  row.reserve(copies * fill.size());
  for (size_t i = 0; i < copies; ++i) row.insert(row.end(), fill.begin(), fill.end());
  return row;
}

std::string index_failure_message(std::string_view source, const std::string& message) {
  return fmt::format("{}: shard index does not decode: {}", source, message);
}

// The decoded index array (any strides) as a ShardIndex; CorruptDataError when its shape or data
// type is not what the index chain should produce.
ShardIndex read_index(const NDBuffer& decoded, const Shape& grid, std::string_view source) {
  const ChunkRepresentation expected = index_representation(grid);
  if (decoded.shape() != expected.shape || decoded.dtype() != expected.data_type) {
    throw CorruptDataError(fmt::format(
        "{}: decoded shard index has shape {} and type {}, expected {} uint64", source,
        shape_to_string(decoded.shape()), decoded.dtype().name(), shape_to_string(expected.shape)));
  }
  NDBuffer dense = decoded;
  if (!dense.is_c_contiguous() || !is_host_accessible(dense.kind())) {
    dense = NDBuffer::allocate(expected.data_type, expected.shape);
    if (is_host_accessible(decoded.kind())) {
      dense.assign(decoded);
    } else {
      // Device memory: the index chain produced a C-order array (allocate above has that shape).
      copy_bytes(dense.data(), MemoryKind::host, decoded.data(), decoded.kind(),
                 static_cast<size_t>(dense.nbytes()));
    }
  }
  ShardIndex index = ShardIndex::empty(grid);
  const size_t count = index.chunk_count();
  // The index chain has already turned the stored little-endian values into host byte order.
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(&index.offsets[i], dense.data() + 16 * i, 8);
    std::memcpy(&index.nbytes[i], dense.data() + 16 * i + 8, 8);
  }
  return index;
}

// True when inner chunk `view` holds anything but the fill value (compared bytewise; for
// variable-length types, by value). `row` is repeated_fill(fill).
bool holds_data(const NDBuffer& view, const std::vector<std::byte>& fill,
                const std::vector<std::byte>& row) {
  if (view.dtype().is_variable_length()) {  // compare the values, not their addresses
    VariableLengthValue value;
    std::memcpy(&value, fill.data(), sizeof value);
    return !variable_length_holds_only(view, value.view());
  }
  return !region_is_fill(view.data(), view, 0, row);
}

// `buffer` with room for at least `size` bytes (a new one when it is smaller).
void reserve_bytes(Buffer& buffer, size_t size) {
  if (buffer.size() < size) {
    buffer = Buffer();  // the old one goes first: peak memory holds one of them
    buffer = Buffer::allocate(size);
  }
}

bool is_usable_output(const NDBuffer& out, const ChunkRepresentation& shard) {
  return out.shape() == shard.shape && out.dtype() == shard.data_type &&
         is_host_accessible(out.kind()) && (out.size() == 0 || out.buffer().data() != nullptr);
}

}  // namespace

std::shared_ptr<ShardingCodec> ShardingCodec::create(const nlohmann::json& configuration,
                                                     const ChunkRepresentation& shard) {
  if (!configuration.is_object()) {
    throw InvalidArgumentError(
        fmt::format("codec \"sharding_indexed\": configuration must be an object, got {}",
                    configuration.dump()));
  }
  for (const auto& item : configuration.items()) {
    const auto& key = item.key();
    if (key != "chunk_shape" && key != "codecs" && key != "index_codecs" &&
        key != "index_location") {
      throw_bad_field(
          key,
          "is not a configuration field of this codec (expected chunk_shape, codecs, index_codecs, "
          "index_location)");
    }
  }

  auto codec = std::make_shared<ShardingCodec>();
  codec->shard_ = shard;
  codec->inner_shape_ = parse_chunk_shape(configuration, shard.shape);
  codec->grid_.resize(shard.shape.size());
  for (size_t d = 0; d < shard.shape.size(); ++d)
    codec->grid_[d] = shard.shape[d] / codec->inner_shape_[d];

  // The spec makes "codecs" and "index_codecs" required; like zarr-python we accept their
  // absence with its defaults (bytes; bytes + crc32c) and always write them out in to_json().
  const nlohmann::json little_endian_bytes = {{"name", "bytes"},
                                              {"configuration", {{"endian", "little"}}}};
  const auto inner_specs =
      parse_codec_list(configuration, "codecs", nlohmann::json::array({little_endian_bytes}));
  const ChunkRepresentation inner{codec->inner_shape_, shard.data_type, shard.fill_value};
  codec->inner_ = make_chain(inner_specs, inner, "codecs");

  const auto index_specs =
      parse_codec_list(configuration, "index_codecs",
                       nlohmann::json::array({little_endian_bytes, {{"name", "crc32c"}}}));
  const ChunkRepresentation index_rep = index_representation(codec->grid_);
  codec->index_ = make_chain(index_specs, index_rep, "index_codecs");
  // Sharding spec, "index_codecs": codecs with a variable-sized output MUST NOT be used, since
  // readers fetch the index as a fixed number of bytes from the start or the end of the shard.
  const auto index_size = codec->index_->fixed_encoded_size(index_rep);
  if (!index_size) {
    throw_bad_field(
        "index_codecs",
        fmt::format("{} must have a fixed encoded size (no compression; for example bytes "
                    "followed by crc32c)",
                    codec->index_->to_json().dump()));
  }
  codec->index_size_ = *index_size;

  if (configuration.contains("index_location")) {
    const auto& j = configuration["index_location"];
    if (j == "start") {
      codec->location_ = IndexLocation::start;
    } else if (j == "end") {
      codec->location_ = IndexLocation::end;
    } else {
      throw_bad_field("index_location",
                      fmt::format("must be \"start\" or \"end\", got {}", j.dump()));
    }
  }
  return codec;
}

nlohmann::json ShardingCodec::to_json() const {
  return {{"name", name()},
          {"configuration",
           {{"chunk_shape", inner_shape_},
            {"codecs", inner_->to_json()},
            {"index_codecs", index_->to_json()},
            {"index_location", location_ == IndexLocation::start ? "start" : "end"}}}};
}

ByteRange ShardingCodec::index_byte_range() const {
  const auto size = static_cast<uint64_t>(index_size_);
  return location_ == IndexLocation::start ? ByteRange::range(0, size) : ByteRange::suffix(size);
}

ShardIndex ShardingCodec::decode_index(const Buffer& encoded_index, uint64_t shard_size,
                                       const std::string& source) const {
  const auto index_size = static_cast<uint64_t>(index_size_);
  if (encoded_index.size() != index_size) {
    throw CorruptDataError(fmt::format("{}: shard index is {} bytes, expected {}", source,
                                       encoded_index.size(), index_size));
  }
  if (shard_size < index_size) {
    throw CorruptDataError(fmt::format("{}: shard of {} bytes is shorter than its {}-byte index",
                                       source, shard_size, index_size));
  }
  const Buffer in[1] = {encoded_index};
  NDBuffer out[1];
  ChunkStatus status[1];
  index_->decode(in, out, status);
  if (!status[0].ok) throw_error(status[0].code, index_failure_message(source, status[0].message));
  ShardIndex index = read_index(out[0], grid_, source);
  // The data region is the shard without its index.
  if (location_ == IndexLocation::start) {
    index.validate(index_size, shard_size, source);
  } else {
    index.validate(0, shard_size - index_size, source);
  }
  return index;
}

void ShardingCodec::encode(std::span<const NDBuffer> in, std::span<Buffer> out,
                           const ChunkRepresentation& decoded,
                           std::span<ChunkStatus> status) const {
  (void)decoded;  // the shard representation was fixed at creation
  const size_t shards = in.size();
  const size_t per_shard = static_cast<size_t>(element_count(grid_));
  for (size_t s = 0; s < shards; ++s) {
    if (!status[s].ok) continue;
    if (in[s].shape() != shard_.shape || in[s].dtype() != shard_.data_type) {
      status[s].fail(
          ErrorCode::invalid_argument,
          fmt::format("sharding_indexed: shard array of shape {} and type {}, expected {} {}",
                      shape_to_string(in[s].shape()), in[s].dtype().name(),
                      shape_to_string(shard_.shape), shard_.data_type.name()));
    } else if (!is_host_accessible(in[s].kind())) {
      status[s].fail(ErrorCode::unsupported,
                     "sharding_indexed: encoding shards from device memory is not supported");
    }
  }
  const ShardIndex layout = ShardIndex::empty(grid_);  // only for chunk coordinates

  // 1. Which inner chunks hold anything but the fill value. Inner chunks equal to the fill value
  //    are not stored (their index entry is empty), as zarr-python does with write_empty_chunks
  //    off; the spec reads an empty entry as "filled with the fill value".
  const auto row = repeated_fill(shard_.fill_value);
  std::vector<uint8_t> present(shards * per_shard, 0);
  parallel_for(present.size(), [&](size_t k) {
    const size_t s = k / per_shard;
    if (!status[s].ok) return;
    const NDBuffer view = inner_chunk_view(in[s], inner_shape_, layout.chunk_coords(k % per_shard));
    present[k] = holds_data(view, shard_.fill_value, row) ? 1 : 0;
  });

  // 2. Encode every stored inner chunk of every shard in one batched call.
  std::vector<NDBuffer> chunk_in;
  std::vector<size_t> chunk_of;  // flat (shard, inner chunk) index of each batch entry
  for (size_t k = 0; k < present.size(); ++k) {
    if (!present[k]) continue;
    chunk_in.push_back(
        inner_chunk_view(in[k / per_shard], inner_shape_, layout.chunk_coords(k % per_shard)));
    chunk_of.push_back(k);
  }
  std::vector<Buffer> chunk_out(chunk_in.size());
  std::vector<ChunkStatus> chunk_status(chunk_in.size());
  inner_->encode(chunk_in, chunk_out, chunk_status);
  chunk_in.clear();

  // 3. Build each non-empty shard's index: inner chunks laid out contiguously in C order of the
  //    grid, after the index when it is at the start.
  std::vector<int64_t> position_of(shards * per_shard, -1);  // batch position of each stored chunk
  for (size_t b = 0; b < chunk_of.size(); ++b) {
    const size_t k = chunk_of[b];
    const size_t s = k / per_shard;
    position_of[k] = static_cast<int64_t>(b);
    if (status[s].ok && !chunk_status[b].ok) {
      status[s].fail(chunk_status[b].code,
                     fmt::format("sharding_indexed: inner chunk {}: {}",
                                 shape_to_string(layout.chunk_coords(k % per_shard)),
                                 chunk_status[b].message));
    }
  }
  std::vector<NDBuffer> index_in;
  std::vector<size_t> index_slot(shards, SIZE_MAX);
  std::vector<uint64_t> shard_bytes(shards, 0);
  const auto index_size = static_cast<uint64_t>(index_size_);
  for (size_t s = 0; s < shards; ++s) {
    if (!status[s].ok) continue;
    const auto first = present.begin() + static_cast<ptrdiff_t>(s * per_shard);
    if (std::find(first, first + static_cast<ptrdiff_t>(per_shard), uint8_t{1}) ==
        first + static_cast<ptrdiff_t>(per_shard)) {
      continue;  // every inner chunk is empty: the shard is not stored
    }
    NDBuffer index =
        NDBuffer::allocate(DataType(DataTypeKind::uint64), index_representation(grid_).shape);
    auto* entries = index.data_as<uint64_t>();
    uint64_t offset = location_ == IndexLocation::start ? index_size : 0;
    for (size_t j = 0; j < per_shard; ++j) {
      const int64_t b = position_of[s * per_shard + j];
      if (b < 0) {
        entries[2 * j] = ShardIndex::kEmpty;
        entries[2 * j + 1] = ShardIndex::kEmpty;
        continue;
      }
      const uint64_t size = chunk_out[static_cast<size_t>(b)].size();
      entries[2 * j] = offset;
      entries[2 * j + 1] = size;
      offset += size;
    }
    shard_bytes[s] = offset + (location_ == IndexLocation::end ? index_size : 0);
    index_slot[s] = index_in.size();
    index_in.push_back(std::move(index));
  }

  // 4. Encode the indexes of all shards in one batched call.
  std::vector<Buffer> index_out(index_in.size());
  std::vector<ChunkStatus> index_status(index_in.size());
  index_->encode(index_in, index_out, index_status);

  // 5. Assemble each shard: [index] chunks... [index].
  for_each_chunk(status, [&](size_t s) {
    if (index_slot[s] == SIZE_MAX) {
      out[s] = Buffer();  // an all-empty shard: the caller deletes the key
      return;
    }
    const size_t slot = index_slot[s];
    if (!index_status[slot].ok) {
      throw_error(index_status[slot].code,
                  fmt::format("sharding_indexed: shard index does not encode: {}",
                              index_status[slot].message));
    }
    const Buffer& encoded_index = index_out[slot];
    if (encoded_index.size() != index_size) {
      throw CorruptDataError(
          fmt::format("sharding_indexed: index chain produced {} bytes, expected {}",
                      encoded_index.size(), index_size));
    }
    Buffer shard = Buffer::allocate(static_cast<size_t>(shard_bytes[s]));
    size_t cursor = 0;
    if (location_ == IndexLocation::start) {
      copy_bytes(shard.data(), shard.kind(), encoded_index.data(), encoded_index.kind(),
                 encoded_index.size());
      cursor = encoded_index.size();
    }
    for (size_t j = 0; j < per_shard; ++j) {
      const int64_t b = position_of[s * per_shard + j];
      if (b < 0) continue;
      const Buffer& chunk = chunk_out[static_cast<size_t>(b)];
      copy_bytes(shard.data() + cursor, shard.kind(), chunk.data(), chunk.kind(), chunk.size());
      cursor += chunk.size();
    }
    if (location_ == IndexLocation::end) {
      copy_bytes(shard.data() + cursor, shard.kind(), encoded_index.data(), encoded_index.kind(),
                 encoded_index.size());
    }
    out[s] = std::move(shard);
  });
}

std::span<const std::span<const std::byte>> ShardingCodec::encode_shard(
    const NDBuffer& in, EncodeScratch& scratch) const {
  if (in.shape() != shard_.shape || in.dtype() != shard_.data_type) {
    throw InvalidArgumentError(
        fmt::format("sharding_indexed: shard array of shape {} and type {}, expected {} {}",
                    shape_to_string(in.shape()), in.dtype().name(), shape_to_string(shard_.shape),
                    shard_.data_type.name()));
  }
  if (!is_host_accessible(in.kind()))
    throw UnsupportedError("sharding_indexed: encoding shards from device memory is not supported");
  const size_t per_shard = static_cast<size_t>(element_count(grid_));
  const ShardIndex layout = ShardIndex::empty(grid_);  // only for chunk coordinates
  const auto view_of = [&](size_t j) {
    return inner_chunk_view(in, inner_shape_, layout.chunk_coords(j));
  };
  const auto inner_failure = [&](size_t j, const Error& e) {
    throw_error(e.code(), fmt::format("sharding_indexed: inner chunk {}: {}",
                                      shape_to_string(layout.chunk_coords(j)), e.what()));
  };

  // 1. The inner chunks to store: those holding anything but the fill value (as encode()).
  const auto row = repeated_fill(shard_.fill_value);
  std::vector<uint8_t> present(per_shard, 0);
  parallel_for(per_shard,
               [&](size_t j) { present[j] = holds_data(view_of(j), shard_.fill_value, row); });
  std::vector<size_t> stored;
  for (size_t j = 0; j < per_shard; ++j)
    if (present[j]) stored.push_back(j);
  if (stored.empty()) return {};

  // 2. Encode them: straight into fixed-size slots of scratch.inner_chunks when the inner chain
  //    allows it, else through the inner chain's batched encode.
  std::vector<std::span<const std::byte>> pieces(stored.size());
  std::vector<Buffer>& encoded = scratch.encoded;
  encoded.clear();
  if (const auto direct = DirectChunkEncoder::for_chain(*inner_)) {
    const size_t slot = direct->bound();
    reserve_bytes(scratch.inner_chunks, slot * stored.size());
    std::byte* slots = scratch.inner_chunks.data();
    parallel_for(stored.size(), [&](size_t b) {
      try {
        const size_t n = direct->encode(view_of(stored[b]), std::span(slots + b * slot, slot));
        pieces[b] = std::span<const std::byte>(slots + b * slot, n);
      } catch (const Error& e) {
        inner_failure(stored[b], e);
      }
    });
  } else {
    std::vector<NDBuffer> views;
    for (size_t j : stored) views.push_back(view_of(j));
    encoded.resize(stored.size());
    std::vector<ChunkStatus> status(stored.size());
    inner_->encode(views, encoded, status);
    for (size_t b = 0; b < stored.size(); ++b) {
      if (!status[b].ok) {
        throw_error(status[b].code, fmt::format("sharding_indexed: inner chunk {}: {}",
                                                shape_to_string(layout.chunk_coords(stored[b])),
                                                status[b].message));
      }
      pieces[b] = encoded[b].bytes();
    }
  }

  // 3. The index: inner chunks laid out contiguously in C order of the grid, after the index
  //    when it is at the start (sharding spec, "Binary shard format").
  const auto index_size = static_cast<uint64_t>(index_size_);
  NDBuffer index =
      NDBuffer::allocate(DataType(DataTypeKind::uint64), index_representation(grid_).shape);
  auto* entries = index.data_as<uint64_t>();
  std::fill(entries, entries + 2 * per_shard, ShardIndex::kEmpty);
  uint64_t offset = location_ == IndexLocation::start ? index_size : 0;
  for (size_t b = 0; b < stored.size(); ++b) {
    entries[2 * stored[b]] = offset;
    entries[2 * stored[b] + 1] = pieces[b].size();
    offset += pieces[b].size();
  }
  const NDBuffer index_in[1] = {index};
  Buffer index_out[1];
  ChunkStatus index_status[1];
  index_->encode(index_in, index_out, index_status);
  if (!index_status[0].ok) {
    throw_error(
        index_status[0].code,
        fmt::format("sharding_indexed: shard index does not encode: {}", index_status[0].message));
  }
  if (index_out[0].size() != index_size) {
    throw CorruptDataError(
        fmt::format("sharding_indexed: index chain produced {} bytes, expected {}",
                    index_out[0].size(), index_size));
  }

  // 4. The parts in order: [index] chunks... [index].
  scratch.index = std::move(index_out[0]);
  auto& parts = scratch.parts;
  parts.clear();
  if (location_ == IndexLocation::start) parts.push_back(scratch.index.bytes());
  parts.insert(parts.end(), pieces.begin(), pieces.end());
  if (location_ == IndexLocation::end) parts.push_back(scratch.index.bytes());
  return parts;
}

void ShardingCodec::decode(std::span<const Buffer> in, std::span<NDBuffer> out,
                           const ChunkRepresentation& decoded,
                           std::span<ChunkStatus> status) const {
  (void)decoded;  // the shard representation was fixed at creation
  const size_t shards = in.size();
  const size_t per_shard = static_cast<size_t>(element_count(grid_));
  const auto index_size = static_cast<uint64_t>(index_size_);

  // 1. Cut out the index of every stored shard and decode them all in one batched call.
  std::vector<Buffer> index_in;
  std::vector<size_t> index_slot(shards, SIZE_MAX);
  for (size_t s = 0; s < shards; ++s) {
    if (!status[s].ok || in[s].empty()) continue;  // an empty value holds only fill value
    if (in[s].size() < index_size) {
      status[s].fail(ErrorCode::corrupt_data,
                     fmt::format("{}: shard of {} bytes is shorter than its {}-byte index",
                                 kIndexSource, in[s].size(), index_size));
      continue;
    }
    uint64_t begin = 0, end = 0;
    index_byte_range().resolve(in[s].size(), begin, end);
    index_slot[s] = index_in.size();
    index_in.push_back(in[s].slice(static_cast<size_t>(begin), static_cast<size_t>(end - begin)));
  }
  std::vector<NDBuffer> index_out(index_in.size());
  std::vector<ChunkStatus> index_status(index_in.size());
  index_->decode(index_in, index_out, index_status);

  // 2. Per shard: validate the index, prepare the output array, fill the empty inner chunks.
  const std::string source(kIndexSource);
  std::vector<ShardIndex> indexes(shards);
  for_each_chunk(status, [&](size_t s) {
    if (!is_usable_output(out[s], shard_))
      out[s] = NDBuffer::allocate(shard_.data_type, shard_.shape);
    if (index_slot[s] == SIZE_MAX) {
      out[s].fill(shard_.fill_value);
      return;
    }
    const size_t slot = index_slot[s];
    if (!index_status[slot].ok)
      throw_error(index_status[slot].code,
                  index_failure_message(source, index_status[slot].message));
    ShardIndex index = read_index(index_out[slot], grid_, source);
    const uint64_t shard_size = in[s].size();
    if (location_ == IndexLocation::start) {
      index.validate(index_size, shard_size, source);
    } else {
      index.validate(0, shard_size - index_size, source);
    }
    for (size_t j = 0; j < per_shard; ++j) {
      if (index.is_empty(j))
        inner_chunk_view(out[s], inner_shape_, index.chunk_coords(j)).fill(shard_.fill_value);
    }
    indexes[s] = std::move(index);
  });

  // 3. Decode the stored inner chunks of all shards in one batched call, straight into their
  //    place in the output arrays.
  std::vector<Buffer> chunk_in;
  std::vector<NDBuffer> targets;
  std::vector<size_t> chunk_of;  // flat (shard, inner chunk) index of each batch entry
  for (size_t s = 0; s < shards; ++s) {
    if (!status[s].ok || index_slot[s] == SIZE_MAX) continue;
    const ShardIndex& index = indexes[s];
    for (size_t j = 0; j < per_shard; ++j) {
      if (index.is_empty(j)) continue;
      chunk_in.push_back(
          in[s].slice(static_cast<size_t>(index.offsets[j]), static_cast<size_t>(index.nbytes[j])));
      targets.push_back(inner_chunk_view(out[s], inner_shape_, index.chunk_coords(j)));
      chunk_of.push_back(s * per_shard + j);
    }
  }
  std::vector<NDBuffer> chunk_out = targets;
  std::vector<ChunkStatus> chunk_status(chunk_in.size());
  inner_->decode(chunk_in, chunk_out, chunk_status);

  // 4. Copy results the inner chain could not write in place; report failed inner chunks.
  const ShardIndex layout = ShardIndex::empty(grid_);
  parallel_for(chunk_out.size(), [&](size_t b) {
    if (!chunk_status[b].ok) return;
    const NDBuffer& result = chunk_out[b];
    const NDBuffer& target = targets[b];
    if (result.data() != target.data() || result.byte_strides() != target.byte_strides()) {
      try {
        target.assign(result);
      } catch (const Error& e) {
        chunk_status[b].fail(e.code(), e.what());
      }
    }
  });
  for (size_t b = 0; b < chunk_of.size(); ++b) {
    const size_t s = chunk_of[b] / per_shard;
    if (status[s].ok && !chunk_status[b].ok) {
      status[s].fail(chunk_status[b].code,
                     fmt::format("{}: inner chunk {}: {}", kIndexSource,
                                 shape_to_string(layout.chunk_coords(chunk_of[b] % per_shard)),
                                 chunk_status[b].message));
    }
  }
}

}  // namespace cuzarr
