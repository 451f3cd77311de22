// Array: a Zarr array in a store. Open or create it, read and write numpy-style selections,
// resize it, read and write its attributes.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_placement.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

struct PipelineOptions;

/// What to create. Codecs default to [bytes (little endian), zstd level 0] like zarr-python 3
/// ([vlen-utf8 or vlen-bytes, zstd level 0] for the variable-length data types).
struct ArrayCreateOptions {
  /// 3, or 2 for Zarr v2 metadata (.zarray + .zattrs). With 2, the codecs must be ones v2 can
  /// hold (an optional leading transpose to the reversed order, i.e. order "F"; numcodecs filters;
  /// bytes; at most the compressor after them), the chunk key encoding is "v2" (separator "."
  /// unless a "v2" encoding is given), the fill value is in its v2 JSON form, and shard_shape and
  /// dimension_names are refused.
  int zarr_format = 3;
  Shape shape;
  DataType data_type;
  Shape chunk_shape;  ///< empty = the whole array in one chunk (or one inner chunk per shard)
  /// When set, chunks of `shard_shape` are stored as shards (sharding_indexed) holding inner chunks
  /// of `chunk_shape`; `codecs` become the inner codecs.
  std::optional<Shape> shard_shape;
  std::optional<std::vector<CodecSpec>> codecs;
  /// Fill value in any v3 JSON encoding; null (the default) means the zero of the data type.
  nlohmann::json fill_value = nullptr;
  nlohmann::json attributes = nlohmann::json::object();
  std::optional<std::vector<std::optional<std::string>>> dimension_names;
  ChunkKeyEncoding chunk_key_encoding;
  /// Replace an existing node at the path (its keys are removed first).
  bool overwrite = false;
};

/// The metadata ArrayCreateOptions describe (validated, as it will be stored). Throws
/// InvalidArgumentError for inconsistent options, UnsupportedError for what zarr_format 2 cannot
/// hold.
ArrayMetadata make_array_metadata(const ArrayCreateOptions& options);

/// Storage statistics of an array (listing the store).
struct ArrayStorageInfo {
  int64_t chunks_total = 0;   ///< chunks (or shards) in the grid
  int64_t chunks_stored = 0;  ///< of those, present in the store
  uint64_t stored_bytes = 0;  ///< bytes of stored chunks
};

/// A chunk that failed to decode during verify().
struct ChunkProblem {
  std::string key;
  std::string message;
};

class Array {
 public:
  /// Opens the array at `path` ("" = the store root). Throws NotFoundError naming the path when
  /// there is no array there, InvalidArgumentError naming the metadata key when it is malformed.
  static Array open(std::shared_ptr<Store> store, const std::string& path = "");
  /// The array at `path` described by `metadata` already known (e.g. from consolidated metadata),
  /// without reading the store. The metadata is trusted: when it is stale, reads decode chunks
  /// with the wrong parameters.
  static Array open_with_metadata(std::shared_ptr<Store> store, const std::string& path,
                                  ArrayMetadata metadata);
  /// Creates an array (writes its metadata). Throws InvalidArgumentError when a node exists at
  /// `path` and options.overwrite is false.
  static Array create(std::shared_ptr<Store> store, const std::string& path,
                      const ArrayCreateOptions& options);
  /// Creates an array from ready metadata.
  static Array create(std::shared_ptr<Store> store, const std::string& path,
                      const ArrayMetadata& metadata, bool overwrite = false);

  const ArrayMetadata& metadata() const { return *metadata_; }
  const Shape& shape() const { return metadata_->shape; }
  DataType data_type() const { return metadata_->data_type; }
  const Shape& chunk_shape() const { return metadata_->chunk_shape; }
  size_t ndim() const { return metadata_->shape.size(); }
  const std::string& path() const { return path_; }
  const std::shared_ptr<Store>& store() const { return store_; }

  /// Reads `selection` into a new C-order array of `kind` (result shape as numpy's).
  NDBuffer read(const Selection& selection = {}, MemoryKind kind = MemoryKind::host) const;
  /// Reads `selection` into `out`, whose shape must equal the selection's result shape.
  void read_into(const Selection& selection, const NDBuffer& out) const;
  /// Writes `data` (shape = the selection's result shape, same data type) to `selection`.
  /// Partially covered chunks are read, modified and written back; chunks that end up equal to
  /// the fill value are erased unless write_empty_chunks is set.
  void write(const Selection& selection, const NDBuffer& data) const;

  /// Reads `selection` of a string or variable_length_bytes array as strings in C order (the
  /// result shape is read's). Throws InvalidArgumentError for other data types.
  std::vector<std::string> read_strings(const Selection& selection = {}) const;
  /// Writes `values` (C order, as many as the selection has elements) to `selection` of a string
  /// or variable_length_bytes array. Throws InvalidArgumentError for other data types, a wrong
  /// count, or (string arrays) malformed UTF-8.
  void write_strings(const Selection& selection, const std::vector<std::string>& values) const;

  /// Changes the shape; chunks wholly outside the new shape are deleted.
  void resize(const Shape& new_shape);
  const nlohmann::json& attributes() const { return metadata_->attributes; }
  /// Replaces the attributes and writes the metadata.
  void set_attributes(const nlohmann::json& attributes);

  /// Store chunks that hold only the fill value anyway (default false, as zarr-python).
  void set_write_empty_chunks(bool value) { write_empty_chunks_ = value; }
  bool write_empty_chunks() const { return write_empty_chunks_; }
  /// Where codecs run when this array is read into or written from device memory: a default and
  /// per-codec overrides (see CodecPlacement); nullopt (the default) means what the environment
  /// variable CUZARR_GPU_DECODE says for reads, and auto for writes. Throws InvalidArgumentError
  /// naming the entry when a codec name is not a registered codec's.
  void set_codec_placement(std::optional<CodecPlacement> placement);
  const std::optional<CodecPlacement>& codec_placement() const { return codec_placement_; }
  /// Decoded bytes one batch of chunks of a read or write may hold (default 256 MiB, as
  /// PipelineOptions::batch_bytes; a batch always holds at least one chunk). Larger batches give a
  /// GPU more chunks to decode at once, smaller ones overlap more of the reading with the decoding
  /// and hold less memory. Throws InvalidArgumentError for 0.
  void set_batch_bytes(uint64_t bytes);
  uint64_t batch_bytes() const { return batch_bytes_; }
  /// Batches of a read into device memory whose GPU decoding may run at the same time (default 3,
  /// as PipelineOptions::concurrent_device_batches): while one batch's kernels wait on their
  /// longest chunks, the next batches' fill the GPU. Each batch in flight holds its pinned and
  /// device buffers (about batch_bytes of each). Throws InvalidArgumentError for 0.
  void set_concurrent_device_batches(size_t batches);
  size_t concurrent_device_batches() const { return concurrent_device_batches_; }

  /// The store key of the chunk (or shard) at grid position `coords`.
  std::string chunk_key(std::span<const int64_t> coords) const;
  /// Counts stored chunks and bytes.
  ArrayStorageInfo storage_info() const;
  /// Decodes every stored chunk (inner chunks of shards too) and returns those that fail.
  std::vector<ChunkProblem> verify() const;

 private:
  Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata);
  void write_metadata() const;
  /// The options of this array's reads and writes.
  PipelineOptions pipeline_options() const;

  std::shared_ptr<Store> store_;
  std::string path_;
  std::shared_ptr<ArrayMetadata> metadata_;
  bool write_empty_chunks_ = false;
  uint64_t batch_bytes_ = uint64_t{256} << 20;  // PipelineOptions::batch_bytes's default
  size_t concurrent_device_batches_ = 3;        // PipelineOptions's default
  std::optional<CodecPlacement> codec_placement_;
};

}  // namespace cuzarr
