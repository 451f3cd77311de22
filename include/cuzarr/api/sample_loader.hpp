// SampleLoader: iterates over the samples of a Zarr array in batches, reading each batch straight
// into a Bufferizer (Array::read_into a view of its slots), and prefetching the next batch on a
// background thread into a second Bufferizer while the caller works on the current one (double
// buffering).
//
// Samples are either the positions along the array's first axis (sample shape = the array shape
// without its first extent) or a list of selections that all have the same result shape. The
// order is the listed one, or a deterministic shuffle of it (Fisher-Yates driven by
// std::mt19937_64, whose sequence the C++ standard fixes, so a seed gives the same order with
// every compiler). Samples that follow each other in the array (positions s, s+1, ... along the
// first axis, or selections that differ only by consecutive first-axis positions) are read by one
// read_into call; the reads of a batch run concurrently on cuzarr's threads (into pinned memory
// and then one copy, for device batches of several reads). A batch is one
// Bufferizer::append_in_place (on_append_multiple fires once per batch). Batches hold capacity()
// samples; the last one may be partial.
#pragma once

#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <vector>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/bufferizer.hpp"
#include "cuzarr/core/selection.hpp"

namespace cuzarr {

struct SampleLoaderOptions {
  /// Samples per batch (> 0): the capacity of each of the two Bufferizers.
  size_t batch_size = 64;
  /// Where batches live. Device batches need Array::read_into into device memory.
  MemoryKind kind = MemoryKind::host;
  Stream stream = {};
  bool shuffle = false;
  uint64_t seed = 0;
  /// Read the next batch on a background thread while the caller holds the current one.
  bool prefetch = true;
  /// Hooks of both Bufferizers. With prefetch they fire on the background thread.
  BufferizerHooks hooks = {};
};

class SampleLoader {
 public:
  /// Samples along the first axis of `array` (ndim >= 1). Throws InvalidArgumentError for a 0-d
  /// array, a zero batch size or a variable-length data type.
  SampleLoader(Array array, SampleLoaderOptions options);
  /// The given samples of `array`; every selection must have the same result shape (else
  /// InvalidArgumentError naming the first that differs) and be valid for the array's shape.
  SampleLoader(Array array, std::vector<Selection> samples, SampleLoaderOptions options);
  /// Waits for a prefetch still running (its errors are dropped).
  ~SampleLoader();

  SampleLoader(const SampleLoader&) = delete;
  SampleLoader& operator=(const SampleLoader&) = delete;

  size_t sample_count() const noexcept { return order_.size(); }
  size_t batch_size() const noexcept { return options_.batch_size; }
  size_t batch_count() const noexcept;
  const Shape& sample_shape() const noexcept { return sample_shape_; }
  /// The sample numbers (positions along the first axis, or indices into the selection list) in
  /// the order they are delivered.
  const std::vector<int64_t>& order() const noexcept { return order_; }

  /// The next batch, or nullptr after the last one. The Bufferizer holds batch.size() samples and
  /// stays valid (and unchanged) until the following call of next() or reset(); its copies are
  /// complete (for device memory: queued on the stream and synchronized). An error of the read
  /// (also one of a background prefetch) is rethrown here; that batch is then skipped and the
  /// following call goes on with the next one.
  const Bufferizer* next();
  /// The sample numbers of the batch next() returned last.
  const std::vector<int64_t>& batch_samples() const noexcept { return current_samples_; }
  /// Starts over from the first batch. With shuffle, `seed` (when given) draws a new order.
  void reset(std::optional<uint64_t> seed = std::nullopt);

  /// Fisher-Yates order of 0..count-1 for `seed` (what shuffle uses).
  static std::vector<int64_t> shuffled_order(size_t count, uint64_t seed);

 private:
  struct Slot {
    std::unique_ptr<Bufferizer> buffer;
    std::vector<int64_t> samples;
  };
  void init();
  void read_batch(size_t batch, Slot& slot) const;
  void start_prefetch();
  void wait_prefetch() noexcept;

  Array array_;
  SampleLoaderOptions options_;
  bool along_first_axis_ = true;
  std::vector<NormalizedSelection> selections_;  // when samples are listed
  Shape sample_shape_;
  std::vector<int64_t> order_;
  Slot slots_[2];
  size_t next_batch_ = 0;      // the batch the next call of next() returns
  int current_ = -1;           // slot returned last
  std::future<void> pending_;  // prefetch of batch next_batch_ into slot 1 - current_
  std::vector<int64_t> current_samples_;
};

}  // namespace cuzarr
