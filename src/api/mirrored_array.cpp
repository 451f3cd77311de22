#include "cuzarr/api/mirrored_array.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "selection_view.hpp"
#include "view_byte_runs.hpp"

namespace cuzarr {

struct MirroredArray::State {
  MirroredArrayOptions options;
  NDBuffer host;    // the whole host array, C order, offset 0 in its buffer
  NDBuffer mirror;  // the same layout in mirror memory
  DirtyRanges sync_dirty;
  DirtyRanges flush_dirty;
  MirrorCounters counters;
  std::optional<Array> array;  // set when bound
  NormalizedSelection region;  // of `array`
};

namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t ceil_div_signed(int64_t a, int64_t b) { return -floor_div(-a, b); }

// Copies the whole host array to the mirror on `stream` and waits.
void upload_whole(const NDBuffer& host, const NDBuffer& mirror, Stream stream) {
  copy_bytes(mirror.data(), mirror.kind(), host.data(), host.kind(),
             static_cast<size_t>(host.nbytes()), stream);
  stream.synchronize();
}

// Calls body(lo, hi) for boxes (per-dimension half-open index ranges) of `shape` that together
// cover exactly the C-order flat element range [first, last): at most 2 * ndim boxes.
template <class Body>
void for_each_box(const Shape& shape, int64_t first, int64_t last, Body&& body) {
  const size_t n = shape.size();
  if (n == 0) {
    if (first < last) body(Index{}, Index{});
    return;
  }
  std::vector<int64_t> block(n + 1, 1);  // block[j] = elements of dims j..n-1
  for (size_t j = n; j-- > 0;) block[j] = block[j + 1] * shape[j];
  while (first < last) {
    if (first == 0 && last >= block[0]) {
      body(Index(n, 0), Index(shape));
      return;
    }
    Index position(n);
    for (size_t d = 0, rest = static_cast<size_t>(first); d < n; ++d) {
      position[d] = static_cast<int64_t>(rest) / block[d + 1];
      rest %= static_cast<size_t>(block[d + 1]);
    }
    // The largest aligned block that fits: whole dims j..n-1, counted along dim j-1.
    size_t j = 1;
    while (j < n && (first % block[j] != 0 || first + block[j] > last)) ++j;
    const size_t p = j - 1;
    const int64_t count = std::min((last - first) / block[j], shape[p] - position[p]);
    Index lo = position, hi(n);
    for (size_t d = 0; d < n; ++d) hi[d] = d < p ? lo[d] + 1 : d == p ? lo[d] + count : shape[d];
    body(lo, hi);
    first += count * block[j];
  }
}

}  // namespace

MirroredArray::MirroredArray(DataType dtype, Shape shape, MirroredArrayOptions options) {
  if (dtype.is_variable_length()) {
    throw UnsupportedError(fmt::format(
        "MirroredArray: data type {} has variable-length elements that point into host memory",
        dtype.name()));
  }
  if (options.host_kind == MemoryKind::device) {
    throw InvalidArgumentError("MirroredArray: host_kind must be host or pinned, not device");
  }
  state_ = std::make_shared<State>();
  state_->options = options;
  state_->host = NDBuffer::allocate(dtype, std::move(shape), options.host_kind);
  state_->mirror = NDBuffer(Buffer::allocate(state_->host.buffer().size(), options.mirror_kind),
                            dtype, state_->host.shape());
  state_->sync_dirty = DirtyRanges(options.merge_threshold);
  state_->flush_dirty = DirtyRanges(options.merge_threshold);
  view_ = state_->host;
}

MirroredArray::MirroredArray(std::shared_ptr<State> state, NDBuffer view, bool is_view)
    : state_(std::move(state)), view_(std::move(view)), is_view_(is_view) {}

MirroredArray MirroredArray::copy_of(const NDBuffer& initial, MirroredArrayOptions options) {
  MirroredArray result(initial.dtype(), initial.shape(), options);
  result.assign(initial);
  return result;
}

MirroredArray MirroredArray::load(const Array& array, const Selection& region,
                                  MirroredArrayOptions options, Stream stream) {
  auto normalized = normalize_selection(region, array.shape());
  MirroredArray result(array.data_type(), normalized.result_shape(), options);
  result.state_->array = array;
  result.state_->region = std::move(normalized);
  result.reload(stream);
  return result;
}

NDBuffer MirroredArray::mirror() const {
  return NDBuffer(state_->mirror.buffer(), view_.dtype(), view_.shape(), view_.byte_strides(),
                  view_.byte_offset());
}
const NDBuffer& MirroredArray::whole_host() const noexcept { return state_->host; }
const NDBuffer& MirroredArray::whole_mirror() const noexcept { return state_->mirror; }

MirroredArray MirroredArray::view(const Selection& region) const {
  return MirroredArray(state_, host_region(region), true);
}

NDBuffer MirroredArray::host_region(const Selection& region) const {
  return detail::select_view(view_, normalize_selection(region, view_.shape()));
}

const std::byte* MirroredArray::element_address(std::span<const int64_t> index,
                                                size_t element_size) const {
  if (element_size != dtype().size()) {
    throw InvalidArgumentError(
        fmt::format("MirroredArray: element of {} bytes for data type {} "
                    "({} bytes)",
                    element_size, dtype().name(), dtype().size()));
  }
  if (index.size() != ndim()) {
    throw InvalidArgumentError(fmt::format("MirroredArray: index of {} dimensions for shape {}",
                                           index.size(), shape_to_string(shape())));
  }
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape()[d]) {
      throw InvalidArgumentError(
          fmt::format("MirroredArray: index {} is out of bounds for dimension {} of shape {}",
                      index[d], d, shape_to_string(shape())));
    }
    offset += index[d] * view_.byte_strides()[d];
  }
  return view_.data() + offset;
}

void MirroredArray::mark(const NDBuffer& host_view) {
  detail::for_each_byte_run(host_view, [&](uint64_t begin, uint64_t end) {
    state_->sync_dirty.add(begin, end);
    state_->flush_dirty.add(begin, end);
  });
}

void MirroredArray::set(std::span<const int64_t> index, std::span<const std::byte> element) {
  auto* address = const_cast<std::byte*>(element_address(index, element.size()));
  std::memcpy(address, element.data(), element.size());
  const auto begin = static_cast<uint64_t>(address - state_->host.buffer().data());
  state_->sync_dirty.add(begin, begin + element.size());
  state_->flush_dirty.add(begin, begin + element.size());
}

void MirroredArray::assign(const Selection& region, const NDBuffer& data) {
  const NDBuffer target = host_region(region);
  if (data.dtype() != dtype()) {
    throw InvalidArgumentError(fmt::format("MirroredArray::assign: data of type {}, expected {}",
                                           data.dtype().name(), dtype().name()));
  }
  if (data.shape() != target.shape()) {
    throw InvalidArgumentError(
        fmt::format("MirroredArray::assign: data of shape {} for a region of shape {}",
                    shape_to_string(data.shape()), shape_to_string(target.shape())));
  }
  if (is_host_accessible(data.kind())) {
    target.assign(data);
  } else {
    target.assign(data, Stream());  // a host destination is complete on return
  }
  mark(target);
}

void MirroredArray::fill(const Selection& region, std::span<const std::byte> element) {
  if (element.size() != dtype().size()) {
    throw InvalidArgumentError(
        fmt::format("MirroredArray::fill: element of {} bytes for data type {} ({} bytes)",
                    element.size(), dtype().name(), dtype().size()));
  }
  const NDBuffer target = host_region(region);
  target.fill(element);
  mark(target);
}

void MirroredArray::mark_dirty(const Selection& region) { mark(host_region(region)); }

std::vector<ByteInterval> MirroredArray::pending() const { return state_->sync_dirty.ranges(); }
std::vector<ByteInterval> MirroredArray::pending_flush() const {
  return state_->flush_dirty.ranges();
}
uint64_t MirroredArray::merge_threshold() const noexcept {
  return state_->sync_dirty.merge_threshold();
}
void MirroredArray::set_merge_threshold(uint64_t bytes) {
  state_->sync_dirty.set_merge_threshold(bytes);
  state_->flush_dirty.set_merge_threshold(bytes);
  state_->options.merge_threshold = bytes;
}
MirrorCounters MirroredArray::counters() const noexcept { return state_->counters; }
bool MirroredArray::is_bound() const noexcept { return state_->array.has_value(); }

void MirroredArray::sync(Stream stream) {
  State& s = *state_;
  ++s.counters.syncs;
  const auto ranges = s.sync_dirty.ranges();
  if (ranges.empty()) return;
  // Both arrays are C order at offset 0 of their buffers: byte offsets count from data().
  const std::byte* host = s.host.data();
  std::byte* mirror = s.mirror.data();
  const bool on_cpu = is_host_accessible(s.mirror.kind());
  if (on_cpu) stream.synchronize();  // earlier work on the stream may still read the mirror
  size_t done = 0;
  try {
    for (const auto& r : ranges) {
      if (on_cpu) {
        std::memcpy(mirror + r.begin, host + r.begin, r.size());
      } else {
        copy_bytes(mirror + r.begin, s.mirror.kind(), host + r.begin, s.host.kind(), r.size(),
                   stream);
      }
      ++done;
      ++s.counters.ranges_uploaded;
      s.counters.bytes_uploaded += r.size();
    }
  } catch (...) {
    for (size_t i = 0; i < done; ++i) s.sync_dirty.remove(ranges[i].begin, ranges[i].end);
    throw;
  }
  s.sync_dirty.clear();
}

void MirroredArray::pull(const Selection& region, Stream stream) {
  const NDBuffer target = host_region(region);
  const NDBuffer source(state_->mirror.buffer(), target.dtype(), target.shape(),
                        target.byte_strides(), target.byte_offset());
  target.assign(source, stream);  // a host destination is complete on return
  ++state_->counters.pulls;
  state_->counters.bytes_pulled += static_cast<uint64_t>(target.nbytes());
  detail::for_each_byte_run(target, [&](uint64_t begin, uint64_t end) {
    state_->sync_dirty.remove(begin, end);
    state_->flush_dirty.add(begin, end);
  });
}

void MirroredArray::reload(Stream stream) {
  State& s = *state_;
  if (!s.array) throw InvalidArgumentError("MirroredArray::reload: not bound to a Zarr array");
  Selection selection;
  for (const auto& dim : s.region.dims) selection.push_back(detail::to_selection_item(dim));
  s.array->read_into(selection, s.host);
  upload_whole(s.host, s.mirror, stream);
  s.sync_dirty.clear();
  s.flush_dirty.clear();
}

std::vector<Index> MirroredArray::flush() {
  State& s = *state_;
  if (!s.array) throw InvalidArgumentError("MirroredArray::flush: not bound to a Zarr array");
  ++s.counters.flushes;
  const Array& array = *s.array;
  const ArrayMetadata& metadata = array.metadata();
  const auto& dims = s.region.dims;
  const size_t n = dims.size();
  // Along array dimension d: the chunk holding `position`, and where that chunk ends.
  auto chunk_of = [&](size_t d, int64_t position) {
    return metadata.rectilinear_grid ? metadata.rectilinear_grid->chunk_index(d, position)
                                     : position / metadata.chunk_shape[d];
  };
  auto chunk_end = [&](size_t d, int64_t chunk) {
    return metadata.rectilinear_grid ? metadata.rectilinear_grid->chunk_origin(d, chunk) +
                                           metadata.rectilinear_grid->edges(d)[chunk]
                                     : (chunk + 1) * metadata.chunk_shape[d];
  };
  // Array dimension d of the region, positions k in [k0, k1): the chunks they fall in.
  auto chunks_along = [&](size_t d, int64_t k0, int64_t k1) {
    const auto& dim = dims[d];
    const int64_t stride = dim.step > 0 ? dim.step : -dim.step;
    int64_t position = std::min(dim.start + k0 * dim.step, dim.start + (k1 - 1) * dim.step);
    const int64_t last = std::max(dim.start + k0 * dim.step, dim.start + (k1 - 1) * dim.step);
    std::vector<int64_t> chunks;
    while (position <= last) {
      const int64_t chunk = chunk_of(d, position);
      chunks.push_back(chunk);
      position += ceil_div_signed(chunk_end(d, chunk) - position, stride) * stride;
    }
    return chunks;
  };

  // 1. Dirty bytes -> element ranges -> boxes of the region -> chunk coordinates.
  std::set<Index> touched;
  const auto element = static_cast<uint64_t>(dtype().size());
  const Shape& result_shape = s.host.shape();
  for (const auto& range : s.flush_dirty.ranges()) {
    const auto first = static_cast<int64_t>(range.begin / element);
    const auto last = static_cast<int64_t>((range.end + element - 1) / element);
    for_each_box(result_shape, first, last, [&](const Index& lo, const Index& hi) {
      std::vector<std::vector<int64_t>> per_dim(n);
      for (size_t d = 0, r = 0; d < n; ++d) {
        per_dim[d] = dims[d].dropped ? std::vector<int64_t>{chunk_of(d, dims[d].start)}
                                     : chunks_along(d, lo[r], hi[r]);
        if (!dims[d].dropped) ++r;
      }
      Index coords(n);
      std::vector<size_t> at(n, 0);
      for (;;) {
        for (size_t d = 0; d < n; ++d) coords[d] = per_dim[d][at[d]];
        touched.insert(coords);
        size_t d = n;
        while (d > 0 && ++at[d - 1] == per_dim[d - 1].size()) at[--d] = 0;
        if (d == 0) break;
      }
    });
  }

  // 2. Each touched chunk: write the part of the region inside it.
  std::vector<Index> written;
  for (const auto& coords : touched) {
    Selection selection;
    NDBuffer part = s.host;
    bool empty = false;
    for (size_t d = 0, r = 0; d < n; ++d) {
      const auto& dim = dims[d];
      if (dim.dropped) {
        selection.push_back(dim.start);
        continue;
      }
      const int64_t lo = metadata.rectilinear_grid
                             ? metadata.rectilinear_grid->chunk_origin(d, coords[d])
                             : coords[d] * metadata.chunk_shape[d];
      const int64_t hi = chunk_end(d, coords[d]);
      // Positions k of the region whose array index start + k*step lies in [lo, hi).
      int64_t k0, k1;
      if (dim.step > 0) {
        k0 = ceil_div_signed(lo - dim.start, dim.step);
        k1 = ceil_div_signed(hi - dim.start, dim.step);
      } else {
        k0 = floor_div(dim.start - hi, -dim.step) + 1;
        k1 = floor_div(dim.start - lo, -dim.step) + 1;
      }
      k0 = std::max<int64_t>(k0, 0);
      k1 = std::min(k1, dim.count);
      if (k0 >= k1) {
        empty = true;
        break;
      }
      const int64_t count = k1 - k0;
      if (dim.step > 0) {
        selection.push_back(
            Slice{dim.start + k0 * dim.step, dim.start + (k1 - 1) * dim.step + 1, dim.step});
        part = part.sliced(r, k0, 1, count);
      } else {
        // Written with a positive step: the host side is read backwards.
        selection.push_back(
            Slice{dim.start + (k1 - 1) * dim.step, dim.start + k0 * dim.step + 1, -dim.step});
        part = part.sliced(r, k1 - 1, -1, count);
      }
      ++r;
    }
    if (empty) continue;
    array.write(selection, part);
    ++s.counters.chunks_written;
    written.push_back(coords);
  }
  s.flush_dirty.clear();
  return written;
}

}  // namespace cuzarr
