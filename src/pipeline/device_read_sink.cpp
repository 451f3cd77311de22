#include "pipeline/device_read_sink.hpp"

#include <fmt/format.h>

#include <cstring>
#include <map>

#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/transpose_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "pipeline/planned_chunk_views.hpp"
#if defined(CUZARR_HAVE_CUDA)
#include "pipeline/device_scatter.hpp"
#endif

namespace cuzarr {
namespace {

constexpr size_t kStagingAlignment = 256;

size_t align_up(size_t v) { return (v + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment; }

// Where a chunk's bytes go on their way to the output.
enum class Route {
  on_device,       // already in device memory: scatter (or copy) from there
  pinned_direct,   // own pinned buffer, lands contiguously: one copy into the output
  pinned_staged,   // own pinned buffer: copied into the device slot, then scattered
  packed_direct,   // packed into the pinned slot, lands contiguously: one copy into the output
  packed_staged,   // packed into the pinned slot: part of the batch copy, then scattered
};

struct StagedChunk {
  Buffer bytes;        // the array bytes the GPU starts from
  NDBuffer source;     // the selected elements, a view into `bytes`
  NDBuffer destination;
  size_t swap_unit = 0;
  Route route = Route::packed_staged;
  size_t pinned_offset = 0;  // of `bytes` in the pinned slot (packed routes)
  size_t device_offset = 0;  // of `bytes` in the device slot (staged routes)
};

// The bytes of a C-contiguous host array (copied when the array is a strided view).
Buffer contiguous_bytes(const NDBuffer& array) {
  if (!array.is_c_contiguous()) return contiguous_bytes(array.copy_to(MemoryKind::host));
  return array.buffer().slice(
      static_cast<size_t>(array.data() - array.buffer().data()),
      static_cast<size_t>(array.nbytes()));
}

}  // namespace

DeviceReadSink::DeviceReadSink(NDBuffer out, std::vector<std::byte> fill_value, Stream stream)
    : out_(std::move(out)), fill_value_(std::move(fill_value)), stream_(std::move(stream)) {}

DeviceReadSink::~DeviceReadSink() {
  try {
    stream_.synchronize();
  } catch (...) {
  }
}

bool DeviceReadSink::stages_array_bytes(const CodecChain& chain) {
  if (!dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get())) return false;
  for (const auto& codec : chain.array_to_array()) {
    if (!dynamic_cast<const TransposeCodec*>(codec.get())) return false;
  }
  return true;
}

void DeviceReadSink::submit(ChunkReadBatch& batch) {
#if !defined(CUZARR_HAVE_CUDA)
  (void)batch;
  throw UnsupportedError("reading into device memory needs CUDA support in this build");
#else
  const size_t n = batch.encoded.size();
  const DataType dtype = out_.dtype();

  // 1. On the CPU: the bytes -> bytes codecs (or, for chains the GPU cannot take yet, every
  //    codec), one batch per chain.
  std::vector<Buffer> array_bytes(n);
  std::vector<char> decoded_whole(n, 0);
  std::vector<ChunkStatus> status(n);
  std::map<const CodecChain*, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) groups[batch.chains[i]].push_back(i);
  for (const auto& [chain, members] : groups) {
    std::vector<Buffer> bytes;
    for (size_t m : members) bytes.push_back(batch.encoded[m]);
    std::vector<ChunkStatus> group_status(members.size());
    if (stages_array_bytes(*chain)) {
      const auto& b2b = chain->bytes_to_bytes();
      for (size_t k = b2b.size(); k-- > 0;) {
        std::vector<Buffer> next(members.size());
        b2b[k]->decode(bytes, next, chain->array_to_bytes_representation(), group_status);
        bytes = std::move(next);
      }
      for (size_t j = 0; j < members.size(); ++j) array_bytes[members[j]] = std::move(bytes[j]);
    } else {
      std::vector<NDBuffer> arrays(members.size());
      chain->decode(bytes, arrays, group_status);
      for (size_t j = 0; j < members.size(); ++j) {
        if (!group_status[j].ok) continue;
        array_bytes[members[j]] = contiguous_bytes(arrays[j]);
        decoded_whole[members[j]] = 1;
      }
    }
    for (size_t j = 0; j < members.size(); ++j) status[members[j]] = std::move(group_status[j]);
  }
  throw_if_failed(status, [&](size_t i) { return batch.labels[i]; });

  // 2. Views, routes and staging offsets.
  std::vector<StagedChunk> staged(n);
  size_t pinned_size = align_up(dtype.size());  // the fill value first
  size_t device_size = pinned_size;
  for (size_t i = 0; i < n; ++i) {
    const CodecChain& chain = *batch.chains[i];
    const PlannedChunk& p = *batch.planned[i];
    StagedChunk& c = staged[i];
    c.bytes = std::move(array_bytes[i]);
    const ChunkRepresentation& rep = decoded_whole[i] ? chain.decoded_representation()
                                                      : chain.array_to_bytes_representation();
    if (c.bytes.size() != static_cast<size_t>(rep.nbytes())) {
      throw CorruptDataError(fmt::format("{}: decodes to {} bytes, expected {}", batch.labels[i],
                                         c.bytes.size(), rep.nbytes()));
    }
    NDBuffer chunk(c.bytes, dtype, rep.shape);
    if (!decoded_whole[i]) {
      const auto& a2a = chain.array_to_array();
      for (size_t k = a2a.size(); k-- > 0;)
        chunk = chunk.permuted(static_cast<const TransposeCodec&>(*a2a[k]).inverse_order());
      const auto& bytes_codec = static_cast<const BytesCodec&>(*chain.array_to_bytes());
      if (bytes_codec.needs_swap(rep.data_type)) c.swap_unit = rep.data_type.endian_unit();
    }
    c.source = chunk_view(chunk, p);
    c.destination = output_view(out_, p);
    const bool direct =
        c.swap_unit == 0 && c.source.is_c_contiguous() && c.destination.is_c_contiguous();
    switch (c.bytes.kind()) {
      case MemoryKind::device:
        c.route = Route::on_device;
        break;
      case MemoryKind::pinned:
        c.route = direct ? Route::pinned_direct : Route::pinned_staged;
        break;
      case MemoryKind::host:
        c.route = direct ? Route::packed_direct : Route::packed_staged;
        break;
    }
  }
  // Packed chunks that need the scatter come first, so that one copy moves them all.
  for (auto& c : staged) {
    if (c.route != Route::packed_staged) continue;
    c.pinned_offset = c.device_offset = pinned_size;
    pinned_size += align_up(c.bytes.size());
  }
  const size_t batch_copy_size = pinned_size;
  device_size = pinned_size;
  for (auto& c : staged) {
    if (c.route == Route::packed_direct) {
      c.pinned_offset = pinned_size;
      pinned_size += align_up(c.bytes.size());
    } else if (c.route == Route::pinned_staged) {
      c.device_offset = device_size;
      device_size += align_up(c.bytes.size());
    }
  }

  // 3. Pack on the CPU (overlapping the previous batch's GPU work).
  Buffer pinned = Buffer::allocate(pinned_size, MemoryKind::pinned, stream_);
  std::memcpy(pinned.data(), fill_value_.data(), fill_value_.size());
  parallel_for(n, [&](size_t i) {
    const StagedChunk& c = staged[i];
    if (c.route == Route::packed_direct || c.route == Route::packed_staged)
      std::memcpy(pinned.data() + c.pinned_offset, c.bytes.data(), c.bytes.size());
  });
  Buffer device = Buffer::allocate(device_size, MemoryKind::device, stream_);

  // 4. Double buffering: the previous batch's copies and kernel must be done before this batch
  //    queues its own (this bounds the memory in flight to two batches).
  stream_.synchronize();

  copy_bytes(device.data(), MemoryKind::device, pinned.data(), MemoryKind::pinned,
             batch_copy_size, stream_);
  std::vector<detail::DeviceScatterItem> plain_items, swapped_items;
  size_t swap_unit = 0;
  const auto add_item = [&](const NDBuffer& host_view_source, const std::byte* host_base,
                            const std::byte* device_base, const NDBuffer& destination,
                            size_t unit) {
    detail::DeviceScatterItem item;
    if (!detail::make_scatter_item(host_view_source, destination, item)) {
      if (unit != 0) {
        throw UnsupportedError(fmt::format(
            "byte-swapping copy of {} dimensions into device memory", destination.ndim()));
      }
      // Too many dimensions for the scatter kernel: a strided copy of its own.
      const NDBuffer on_device(Buffer::wrap(const_cast<std::byte*>(device_base), device.size(),
                                            MemoryKind::device, nullptr),
                               dtype, host_view_source.shape(), host_view_source.byte_strides(),
                               host_view_source.data() - host_base);
      destination.assign(on_device, stream_);
      return;
    }
    item.source = device_base + (host_view_source.data() - host_base);
    if (unit == 0) {
      plain_items.push_back(item);
    } else {
      swap_unit = unit;
      swapped_items.push_back(item);
    }
  };
  for (const PlannedChunk* p : batch.missing) {
    const NDBuffer destination = output_view(out_, *p);
    const NDBuffer fill(pinned, dtype, destination.shape(),
                        std::vector<int64_t>(destination.ndim(), 0));
    add_item(fill, pinned.data(), device.data(), destination, 0);
  }
  for (auto& c : staged) {
    const size_t nbytes = static_cast<size_t>(c.source.nbytes());
    const std::byte* base = c.bytes.data();
    switch (c.route) {
      case Route::on_device:
        if (c.swap_unit == 0 && c.source.is_c_contiguous() && c.destination.is_c_contiguous())
          copy_bytes(c.destination.data(), MemoryKind::device, c.source.data(),
                     MemoryKind::device, nbytes, stream_);
        else
          add_item(c.source, base, base, c.destination, c.swap_unit);
        break;
      case Route::pinned_direct:
        copy_bytes(c.destination.data(), MemoryKind::device, c.source.data(), MemoryKind::pinned,
                   nbytes, stream_);
        break;
      case Route::packed_direct:
        copy_bytes(c.destination.data(), MemoryKind::device,
                   pinned.data() + c.pinned_offset + (c.source.data() - base), MemoryKind::pinned,
                   nbytes, stream_);
        break;
      case Route::pinned_staged:
        copy_bytes(device.data() + c.device_offset, MemoryKind::device, base, MemoryKind::pinned,
                   c.bytes.size(), stream_);
        add_item(c.source, base, device.data() + c.device_offset, c.destination, c.swap_unit);
        break;
      case Route::packed_staged:
        add_item(c.source, base, device.data() + c.device_offset, c.destination, c.swap_unit);
        break;
    }
  }
  detail::scatter_on_device(plain_items, dtype.size(), 0, stream_);
  detail::scatter_on_device(swapped_items, dtype.size(), swap_unit, stream_);
  // `pinned` and `device` were allocated in the stream's order: they are released once the
  // queued work has used them. Pinned chunk buffers from the store are released in the order of
  // the default stream, which waits for this (blocking) stream.
#endif
}

void DeviceReadSink::finish() { stream_.synchronize(); }

}  // namespace cuzarr
