#include "cuzarr/api/sample_loader.hpp"

#include <fmt/format.h>

#include <numeric>
#include <random>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "selection_view.hpp"

namespace cuzarr {
namespace {

// Selections b follows a: the same in every dimension but the first, where both select one
// position and b's is the next one.
bool follows(const NormalizedSelection& a, const NormalizedSelection& b) {
  const auto& a0 = a.dims[0];
  const auto& b0 = b.dims[0];
  if (a0.count != 1 || b0.count != 1 || a0.dropped != b0.dropped || b0.start != a0.start + 1)
    return false;
  for (size_t d = 1; d < a.dims.size(); ++d) {
    const auto& x = a.dims[d];
    const auto& y = b.dims[d];
    if (x.start != y.start || x.step != y.step || x.count != y.count || x.dropped != y.dropped)
      return false;
  }
  return true;
}

Selection to_selection(const NormalizedSelection& normalized) {
  Selection selection;
  for (const auto& dim : normalized.dims) selection.push_back(detail::to_selection_item(dim));
  return selection;
}

}  // namespace

std::vector<int64_t> SampleLoader::shuffled_order(size_t count, uint64_t seed) {
  std::vector<int64_t> order(count);
  std::iota(order.begin(), order.end(), int64_t{0});
  std::mt19937_64 engine(seed);
  for (size_t i = count; i > 1; --i) {
    // A uniform draw from [0, i) by rejection (std::uniform_int_distribution differs between
    // standard libraries): values below 2^64 mod i are dropped.
    const uint64_t bound = i;
    const uint64_t threshold = (0 - bound) % bound;
    uint64_t x;
    do x = engine();
    while (x < threshold);
    std::swap(order[i - 1], order[static_cast<size_t>(x % bound)]);
  }
  return order;
}

SampleLoader::SampleLoader(Array array, SampleLoaderOptions options)
    : array_(std::move(array)), options_(std::move(options)) {
  if (array_.ndim() == 0) {
    throw InvalidArgumentError(fmt::format(
        "SampleLoader: array \"{}\" has no dimensions to draw samples along", array_.path()));
  }
  sample_shape_.assign(array_.shape().begin() + 1, array_.shape().end());
  order_.resize(static_cast<size_t>(array_.shape()[0]));
  std::iota(order_.begin(), order_.end(), int64_t{0});
  init();
}

SampleLoader::SampleLoader(Array array, std::vector<Selection> samples, SampleLoaderOptions options)
    : array_(std::move(array)), options_(std::move(options)), along_first_axis_(false) {
  for (size_t i = 0; i < samples.size(); ++i) {
    selections_.push_back(normalize_selection(samples[i], array_.shape()));
    const Shape shape = selections_.back().result_shape();
    if (i == 0) {
      sample_shape_ = shape;
    } else if (shape != sample_shape_) {
      throw InvalidArgumentError(
          fmt::format("SampleLoader: sample {} selects shape {}, sample 0 selects shape {}", i,
                      shape_to_string(shape), shape_to_string(sample_shape_)));
    }
  }
  order_.resize(samples.size());
  std::iota(order_.begin(), order_.end(), int64_t{0});
  init();
}

void SampleLoader::init() {
  if (options_.batch_size == 0)
    throw InvalidArgumentError("SampleLoader: the batch size must be at least 1");
  if (options_.shuffle) order_ = shuffled_order(order_.size(), options_.seed);
  for (auto& slot : slots_) {
    slot.buffer =
        std::make_unique<Bufferizer>(options_.batch_size, sample_shape_, array_.data_type(),
                                     options_.kind, options_.stream, options_.hooks);
  }
}

SampleLoader::~SampleLoader() { wait_prefetch(); }

size_t SampleLoader::batch_count() const noexcept {
  return (order_.size() + options_.batch_size - 1) / options_.batch_size;
}

void SampleLoader::wait_prefetch() noexcept {
  if (!pending_.valid()) return;
  try {
    pending_.get();
  } catch (...) {
  }
}

void SampleLoader::read_batch(size_t batch, Slot& slot) const {
  const size_t first = batch * options_.batch_size;
  const size_t last = std::min(first + options_.batch_size, order_.size());
  Bufferizer& buffer = *slot.buffer;
  buffer.flush();
  slot.samples.assign(order_.begin() + static_cast<ptrdiff_t>(first),
                      order_.begin() + static_cast<ptrdiff_t>(last));
  // The runs of samples that follow each other in the array: [runs[k], runs[k + 1]) relative to
  // `first`.
  std::vector<size_t> runs{0};
  for (size_t j = first + 1; j <= last; ++j) {
    const bool continues =
        j < last && (along_first_axis_ ? order_[j] == order_[j - 1] + 1
                                       : follows(selections_[static_cast<size_t>(order_[j - 1])],
                                                 selections_[static_cast<size_t>(order_[j])]));
    if (!continues) runs.push_back(j - first);
  }
  const size_t run_count = runs.size() - 1;

  // Reads run k into `slots` (the batch's slots, from the batch's first sample on).
  const auto read_run = [&](size_t k, const NDBuffer& slots) {
    const auto begin = static_cast<int64_t>(runs[k]);
    const auto run = static_cast<int64_t>(runs[k + 1] - runs[k]);
    const NDBuffer target = slots.sliced(0, begin, 1, run);
    const int64_t sample = order_[first + runs[k]];
    if (along_first_axis_) {
      array_.read_into({Slice{sample, sample + run}}, target);
      return;
    }
    const auto& selection = selections_[static_cast<size_t>(sample)];
    if (run == 1) {
      array_.read_into(to_selection(selection), target.indexed(0, 0));
      return;
    }
    // Consecutive one-position selections: one read of `run` positions along the first axis.
    Selection merged = to_selection(selection);
    merged[0] = Slice{selection.dims[0].start, selection.dims[0].start + run};
    Shape shape{run};
    const size_t kept = selection.dims[0].dropped ? 0 : 1;  // the sample's extent-1 first dim
    shape.insert(shape.end(), sample_shape_.begin() + static_cast<ptrdiff_t>(kept),
                 sample_shape_.end());
    array_.read_into(merged, target.reshaped(std::move(shape)));
  };

  // One append for the whole batch. Its runs are read concurrently (a shuffled batch is one run
  // per sample, each decoding its own chunk). Into device memory, a batch of several runs is read
  // into pinned memory first and copied in one transfer: many small reads into device memory
  // would each wait for their own copy.
  buffer.append_in_place(last - first, [&](const NDBuffer& slots) {
    if (run_count == 1 || slots.kind() != MemoryKind::device) {
      parallel_for(run_count, [&](size_t k) { read_run(k, slots); });
      return;
    }
    const NDBuffer staging = NDBuffer::allocate(slots.dtype(), slots.shape(), MemoryKind::pinned);
    parallel_for(run_count, [&](size_t k) { read_run(k, staging); });
    slots.assign(staging, options_.stream);
    options_.stream.synchronize();  // the staging buffer goes away with this scope
  });
  buffer.synchronize();
}

void SampleLoader::start_prefetch() {
  if (!options_.prefetch || next_batch_ >= batch_count()) return;
  Slot* slot = &slots_[1 - current_];
  const size_t batch = next_batch_;
  pending_ = std::async(std::launch::async, [this, batch, slot] { read_batch(batch, *slot); });
}

const Bufferizer* SampleLoader::next() {
  current_samples_.clear();
  if (next_batch_ >= batch_count()) return nullptr;
  const int slot = current_ < 0 ? 0 : 1 - current_;
  const size_t batch = next_batch_++;
  if (pending_.valid()) {
    auto prefetch = std::move(pending_);
    prefetch.get();  // rethrows the background read's error; the batch is then skipped
  } else {
    read_batch(batch, slots_[slot]);
  }
  current_ = slot;
  current_samples_ = slots_[slot].samples;
  start_prefetch();
  return slots_[slot].buffer.get();
}

void SampleLoader::reset(std::optional<uint64_t> seed) {
  wait_prefetch();
  if (seed) options_.seed = *seed;
  if (options_.shuffle && seed) order_ = shuffled_order(order_.size(), options_.seed);
  next_batch_ = 0;
  current_ = -1;
  current_samples_.clear();
}

}  // namespace cuzarr
