#include "cuzarr/api/sample_loader.hpp"

#include <fmt/format.h>

#include <numeric>
#include <random>

#include "cuzarr/core/error.hpp"
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
  for (size_t i = first; i < last;) {
    // The run of samples i..j-1 that follow each other in the array.
    size_t j = i + 1;
    if (along_first_axis_) {
      while (j < last && order_[j] == order_[j - 1] + 1) ++j;
    } else {
      while (j < last && follows(selections_[static_cast<size_t>(order_[j - 1])],
                                 selections_[static_cast<size_t>(order_[j])]))
        ++j;
    }
    const auto run = static_cast<int64_t>(j - i);
    const int64_t sample = order_[i];
    buffer.append_in_place(static_cast<size_t>(run), [&](const NDBuffer& slots) {
      if (along_first_axis_) {
        array_.read_into({Slice{sample, sample + run}}, slots);
        return;
      }
      const auto& selection = selections_[static_cast<size_t>(sample)];
      if (run == 1) {
        array_.read_into(to_selection(selection), slots.indexed(0, 0));
        return;
      }
      // Consecutive one-position selections: one read of `run` positions along the first axis.
      Selection merged = to_selection(selection);
      merged[0] = Slice{selection.dims[0].start, selection.dims[0].start + run};
      Shape shape{run};
      const size_t kept = selection.dims[0].dropped ? 0 : 1;  // the sample's extent-1 first dim
      shape.insert(shape.end(), sample_shape_.begin() + static_cast<ptrdiff_t>(kept),
                   sample_shape_.end());
      array_.read_into(merged, slots.reshaped(std::move(shape)));
    });
    i = j;
  }
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
