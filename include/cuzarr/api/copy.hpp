// Copying a Zarr hierarchy (or one array) between stores, optionally converting the format,
// rechunking and recompressing on the way.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuzarr/core/shape.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

/// How the copy is made. Unset fields keep what the source has.
struct CopyOptions {
  /// Target format (2 or 3); a change also switches to that format's default chunk key encoding.
  std::optional<int> zarr_format;
  /// Chunk shape of the copy (the inner chunk shape when sharded); applies to every array. When
  /// unset the source's is kept (a rectilinear grid becomes regular with its largest edges).
  std::optional<Shape> chunk_shape;
  /// Shard shape of the copy. When unset, a sharded source stays sharded with its shard shape
  /// (if that is a multiple of the chunk shape and the target format has sharding).
  std::optional<Shape> shard_shape;
  /// Store the copy without sharding even when the source is sharded.
  bool no_shards = false;
  /// Codecs of the copy (the inner codecs when sharded), chosen per array from its data type
  /// (codec configurations such as blosc's typesize depend on it).
  std::function<std::vector<CodecSpec>(const DataType&)> codecs_for;
  /// Replace nodes that exist at the destination.
  bool overwrite = false;
  /// Bytes of decoded data moved per step (rounded to whole destination chunks or shards).
  uint64_t step_bytes = uint64_t{64} << 20;
  /// Checked between steps: when it becomes true the copy stops after the step in progress;
  /// every chunk already written is complete (stores write chunks atomically).
  const std::atomic<bool>* cancel = nullptr;
};

/// Counters of a copy; passed to the progress callback after every step.
struct CopyProgress {
  int64_t arrays = 0;        ///< arrays created in the destination
  int64_t groups = 0;        ///< groups created in the destination
  int64_t chunks_total = 0;  ///< destination chunks (or shards) of all arrays to copy
  int64_t chunks_done = 0;   ///< of those, copied so far
  int64_t chunks_written =
      0;                  ///< chunks (or shards) stored in the destination (fill-only ones are not)
  uint64_t bytes_in = 0;  ///< stored bytes of the source chunks of the copied arrays
  uint64_t bytes_out = 0;      ///< stored bytes of the destination chunks written
  uint64_t decoded_bytes = 0;  ///< bytes of array data moved
  double seconds = 0;
  bool cancelled = false;
};

/// Copies the node at `source_path` of `source` (an array, or a group with everything below it)
/// to `destination_path` of `destination`. Throws InvalidArgumentError when a destination node
/// exists and overwrite is not set, or when an option does not fit an array (naming it);
/// UnsupportedError when the target format cannot express an array's codecs.
CopyProgress copy_node(const std::shared_ptr<Store>& source, const std::string& source_path,
                       const std::shared_ptr<Store>& destination,
                       const std::string& destination_path, const CopyOptions& options = {},
                       const std::function<void(const CopyProgress&)>& on_progress = {});

/// The metadata an array copied with `options` gets (validated, as it will be stored).
ArrayMetadata copied_array_metadata(const ArrayMetadata& source, const CopyOptions& options);

}  // namespace cuzarr
