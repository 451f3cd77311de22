#include "pipeline/device_read_sink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "codec/cuda/blosc_frame_format.hpp"
#include "codec/cuda/blosc_inner_jobs.hpp"
#include "codec/cuda/delta_format.hpp"
#include "codec/cuda/device_bytes_decoder.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/numcodecs_delta_codec.hpp"
#include "cuzarr/codec/transpose_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/stage_times.hpp"
#include "pipeline/buffer_copy_runs.hpp"
#include "pipeline/planned_chunk_views.hpp"
#if defined(CUZARR_HAVE_CUDA)
#include "codec/cuda/delta_kernels.hpp"
#include "pipeline/device_scatter.hpp"
#endif

namespace cuzarr {

struct DeviceReadSink::ChainPlan {
  bool array_bytes = false;  // stages_array_bytes(chain)
  size_t gpu_steps = 0;      // bytes -> bytes codecs [0, gpu_steps) decode on the GPU
  std::vector<std::unique_ptr<gpu::DeviceBytesDecoder>> decoders;  // one per GPU step
  std::vector<std::string> names;                                  // codec names, per step
  /// Per step j: the decoded size of codec j (its encode input) when the codecs before it have
  /// fixed sizes (step 0: the chunk's array bytes).
  std::vector<std::optional<uint64_t>> forward_size;
  bool blosc_inside = false;  // a GPU step is blosc: check the chunk's inner codec on the host
  bool blosc_inner_streams = true;  // the GPU blosc steps take zstd / zlib blocks
  /// The element type of the chain's last array -> array codec, numcodecs.delta, when the GPU
  /// decodes it (on the array bytes, after the bytes -> bytes codecs).
  std::optional<gpu::DeltaType> delta;
};

// Per-chunk results of a batch's GPU codecs, checked once the stream has run them.
struct DeviceReadSink::GpuReport {
  // Statuses of step j for chunk k at (j * count + k) * 4, final decoded sizes (u64) from
  // sizes_at.
  Buffer pinned;
  size_t count = 0;
  size_t sizes_at = 0;
  std::vector<std::string> step_names;  // codec names, by step
  std::vector<std::string> labels;      // per chunk
  std::vector<uint64_t> expected_size;  // per chunk
};

namespace {

constexpr size_t kStagingAlignment = 256;
// Chunks of one pinned allocation at most this far apart are copied to the device in one run
// (buffer_copy_runs.hpp): copying a gap this size takes about as long as starting a copy.
[[maybe_unused]] constexpr size_t kCopyRunGap = 64 << 10;

[[maybe_unused]] size_t align_up(size_t v) {
  return (v + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
}

// Where a chunk's bytes go on their way to the output.
enum class Route {
  on_device,      // in device memory (read there, or decoded there): scatter or copy from there
  pinned_direct,  // own pinned buffer, lands contiguously: one copy into the output
  pinned_staged,  // own pinned buffer: copied into the device slot, then scattered
  packed_direct,  // packed into the pinned slot, lands contiguously: one copy into the output
  packed_staged,  // packed into the pinned slot: part of the batch copy, then scattered
};

struct StagedChunk {
  Buffer bytes;  // the bytes the GPU starts from (array bytes, or input of the GPU codecs)
  size_t gpu_steps = 0;
  bool delta = false;       // the GPU runs the delta decode on the array bytes
  size_t delta_offset = 0;  // of the delta decode's output in the device slot
  NDBuffer source;          // the selected elements, a view into the array bytes
  NDBuffer destination;
  size_t swap_unit = 0;
  Route route = Route::packed_staged;
  size_t pinned_offset = 0;  // of `bytes` in the pinned slot (packed routes)
  size_t device_offset = 0;  // of `bytes` in the device slot (staged routes, GPU codec input)
  // GPU codecs: per step (index = codec), where its output goes and its capacity.
  std::vector<size_t> step_output_offset;
  std::vector<uint64_t> step_capacity;
  uint64_t array_nbytes = 0;
};

// The element type in which the GPU decodes `delta` for chunks of `rep` laid out by `bytes`:
// dtype == astype == the chunk's type, a type the delta kernels know, in the host's byte order
// (the running sum needs the values). nullopt otherwise (the CPU decodes such chunks).
[[maybe_unused]] std::optional<gpu::DeltaType> gpu_delta_type(const NumcodecsDeltaCodec& delta,
                                                              const BytesCodec& bytes,
                                                              const ChunkRepresentation& rep) {
  const DataType& type = rep.data_type;
  if (!(delta.dtype() == type) || !(delta.astype() == type) || bytes.needs_swap(type))
    return std::nullopt;
  switch (type.kind()) {
    case DataTypeKind::int8:
      return gpu::DeltaType::int8;
    case DataTypeKind::int16:
      return gpu::DeltaType::int16;
    case DataTypeKind::int32:
      return gpu::DeltaType::int32;
    case DataTypeKind::int64:
      return gpu::DeltaType::int64;
    case DataTypeKind::uint8:
      return gpu::DeltaType::uint8;
    case DataTypeKind::uint16:
      return gpu::DeltaType::uint16;
    case DataTypeKind::uint32:
      return gpu::DeltaType::uint32;
    case DataTypeKind::uint64:
      return gpu::DeltaType::uint64;
    case DataTypeKind::float32:
      return gpu::DeltaType::float32;
    case DataTypeKind::float64:
      return gpu::DeltaType::float64;
    default:
      return std::nullopt;
  }
}

// The bytes of a C-contiguous host array (copied when the array is a strided view).
Buffer contiguous_bytes(const NDBuffer& array) {
  if (!array.is_c_contiguous()) return contiguous_bytes(array.copy_to(MemoryKind::host));
  return array.buffer().slice(static_cast<size_t>(array.data() - array.buffer().data()),
                              static_cast<size_t>(array.nbytes()));
}

// True when every GPU-decoded blosc layer of `encoded` can run on the GPU (c-blosc format 2,
// blosclz or lz4 blocks, and zstd or zlib blocks when `inner_streams`: not snappy, nor chunks
// of more than blosc_inner_max_jobs streams); blosc under only-appending codecs (crc32c) is
// checked by its header.
[[maybe_unused]] bool blosc_runs_on_gpu(const Buffer& encoded, bool inner_streams) {
  if (!is_host_accessible(encoded.kind())) return true;
  const auto* bytes = reinterpret_cast<const unsigned char*>(encoded.data());
  if (inner_streams && gpu::blosc_inner_plan(bytes, encoded.size(), UINT64_MAX).status !=
                           gpu::DeviceChunkStatus::unsupported)
    return true;  // a zstd / zlib chunk the GPU takes (or one it reports corrupt)
  gpu::BloscHeader header;
  const auto status = gpu::blosc_parse_header(bytes, encoded.size(), UINT64_MAX, header);
  return status != gpu::DeviceChunkStatus::unsupported;
}

}  // namespace

DeviceReadSink::DeviceReadSink(NDBuffer out, std::vector<std::byte> fill_value, Stream stream,
                               CodecPlacement placement, size_t concurrent_batches)
    : out_(std::move(out)), fill_value_(std::move(fill_value)), placement_(std::move(placement)) {
  kernel_streams_.push_back(std::move(stream));
#if defined(CUZARR_HAVE_CUDA)
  for (size_t s = 1; s < concurrent_batches; ++s) kernel_streams_.push_back(Stream::create());
  copy_stream_ = Stream::create();
#endif
  pending_reports_.resize(kernel_streams_.size());
}

DeviceReadSink::~DeviceReadSink() {
  // The buffers of the batches in flight (in_flight_) go only after every stream is done.
  const auto synchronize_quietly = [](const Stream& s) {
    try {
      s.synchronize();
    } catch (...) {
    }
  };
  synchronize_quietly(copy_stream_);
  for (const Stream& s : kernel_streams_) synchronize_quietly(s);
}

bool DeviceReadSink::stages_array_bytes(const CodecChain& chain) {
  return plan_for(chain).array_bytes;
}

bool DeviceReadSink::decodes_entirely_on_gpu(const CodecChain& chain) {
  const ChainPlan& plan = plan_for(chain);
  return plan.array_bytes && plan.gpu_steps == chain.bytes_to_bytes().size();
}

bool DeviceReadSink::uploads_early(const CodecChain& chain) {
  const ChainPlan& plan = plan_for(chain);
  return decodes_entirely_on_gpu(chain) && plan.gpu_steps > 0 && !plan.blosc_inside;
}

Buffer DeviceReadSink::upload_early(Buffer pinned) {
#if !defined(CUZARR_HAVE_CUDA)
  return pinned;
#else
  if (pinned.empty() || pinned.kind() != MemoryKind::pinned) return pinned;
  const std::lock_guard lock(upload_mutex_);
  Buffer device = Buffer::allocate(pinned.size(), MemoryKind::device, copy_stream_);
  copy_time_.begin(copy_stream_);
  copy_bytes(device.data(), MemoryKind::device, pinned.data(), MemoryKind::pinned, pinned.size(),
             copy_stream_);
  copy_time_.end(copy_stream_);
  // The pinned bytes go once the device bytes do: after the batch's kernels, which follow the
  // copy.
  device.keep_alive_of(pinned);
  return device;
#endif
}

const DeviceReadSink::ChainPlan& DeviceReadSink::plan_for(const CodecChain& chain) {
  auto& plan = plans_[&chain];
  if (plan) return *plan;
  auto p = std::make_shared<ChainPlan>();
  // The GPU takes the array bytes of "bytes" behind transposes, and a last numcodecs.delta.
  const auto* bytes_codec = dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get());
  const auto& a2a = chain.array_to_array();
  p->array_bytes = bytes_codec != nullptr;
  for (size_t k = 0; k < a2a.size() && p->array_bytes; ++k) {
    if (dynamic_cast<const TransposeCodec*>(a2a[k].get())) continue;
#if defined(CUZARR_HAVE_CUDA)
    const auto* delta = dynamic_cast<const NumcodecsDeltaCodec*>(a2a[k].get());
    if (delta && k + 1 == a2a.size() && placement_.of(delta->name()) != Placement::cpu)
      p->delta = gpu_delta_type(*delta, *bytes_codec, chain.array_to_bytes_representation());
#endif
    p->array_bytes = p->delta.has_value();
  }
  const auto& b2b = chain.bytes_to_bytes();
  if (p->array_bytes) {
    std::optional<uint64_t> size =
        static_cast<uint64_t>(chain.array_to_bytes_representation().nbytes());
    for (size_t j = 0; j < b2b.size(); ++j) {
      auto decoder = gpu::make_device_decoder(*b2b[j]);
      if (!decoder || !gpu::decodes_on_gpu(*decoder, placement_.of(b2b[j]->name()), size)) break;
      // Step j's output capacity must be known: from the codecs before it, or from its input.
      if (j > 0 && !size && !decoder->decoded_size_from(4)) break;
      p->forward_size.push_back(size);
      p->names.push_back(b2b[j]->name());
      if (const auto* blosc = dynamic_cast<const BloscCodec*>(b2b[j].get())) {
        p->blosc_inside = true;
        p->blosc_inner_streams = p->blosc_inner_streams && gpu::blosc_inner_streams_on_gpu(*blosc);
      }
      p->decoders.push_back(std::move(decoder));
      if (size) {
        const auto next = b2b[j]->fixed_encoded_size(static_cast<int64_t>(*size));
        size = next ? std::optional<uint64_t>(static_cast<uint64_t>(*next)) : std::nullopt;
      }
    }
    p->gpu_steps = p->decoders.size();
  }
  if (!p->array_bytes) {
    // The array codecs decide: the bytes -> bytes codecs follow them to the CPU.
    std::string names;
    for (const auto& codec : a2a) names += (names.empty() ? "\"" : ", \"") + codec->name() + "\"";
    names += (names.empty() ? "\"" : ", \"") + chain.array_to_bytes()->name() + "\"";
    log_once("device-read-cpu-chain-" + names,
             fmt::format("chunks with the codecs {} before their bytes -> bytes codecs decode "
                         "whole on the CPU for reads into device memory (the GPU takes \"bytes\" "
                         "behind \"transpose\" codecs and a last \"numcodecs.delta\" of dtype "
                         "== astype, little-endian, not placed on the CPU)",
                         names));
  }
  const size_t first_cpu = p->array_bytes ? p->gpu_steps : b2b.size();
  for (size_t j = first_cpu; j < b2b.size(); ++j) {
    const std::string& name = b2b[j]->name();
    const Placement placement = placement_.of(name);
    const auto decoder = gpu::make_device_decoder(*b2b[j]);
    if (!decoder) {
      log_once("device-read-cpu-codec-" + name,
               fmt::format("codec \"{}\" has no GPU decoder yet: for reads into device memory it "
                           "decodes on the CPU",
                           name));
    } else if (placement == Placement::cpu) {
      log_once("device-read-cpu-placed-codec-" + name,
               fmt::format("codec \"{}\" decodes on the CPU for reads into device memory, as its "
                           "placement (cpu) asks",
                           name));
    } else if (decoder->automatic_chunk_limit() == UINT64_MAX) {
      log_once("device-read-cpu-codec-" + name,
               fmt::format("codec \"{}\" decodes on the CPU for reads into device memory: it "
                           "decodes on the GPU only where the codecs it wraps do too",
                           name));
    } else {
      log_once("device-read-cpu-codec-" + name,
               fmt::format("codec \"{}\" decodes on the CPU for reads into device memory: its GPU "
                           "decoder runs automatically on chunks of up to {} bytes, where it is "
                           "faster (placement \"{}=gpu\" forces it), and only where the codecs "
                           "it wraps decode on the GPU too",
                           name, decoder->automatic_chunk_limit(), name));
    }
  }
  plan = std::move(p);
  return *plan;
}

void DeviceReadSink::retire(size_t s) {
  kernel_streams_[s].synchronize();  // it waited for the copy stream's copies of its batches
  std::erase_if(in_flight_,
                [&](const InFlight& batch) { return batch.stream == s && !batch.queueing; });
  copy_time_.collect();
  kernel_time_.collect();
  if (!pending_reports_[s]) return;
  const auto report = std::move(pending_reports_[s]);
  const std::byte* base = report->pinned.data();
  const auto& names = report->step_names;
  for (size_t k = 0; k < report->count; ++k) {
    // Steps ran from the outermost codec (last index) to the innermost.
    for (size_t j = names.size(); j-- > 0;) {
      int32_t code = 0;
      std::memcpy(&code, base + (j * report->count + k) * sizeof(int32_t), sizeof code);
      const auto status = static_cast<gpu::DeviceChunkStatus>(code);
      if (status != gpu::DeviceChunkStatus::ok) {
        throw CorruptDataError(fmt::format("{}: codec \"{}\" (decoded on the GPU): {}",
                                           report->labels[k], names[j],
                                           gpu::device_chunk_status_message(status)));
      }
    }
    uint64_t size = 0;
    std::memcpy(&size, base + report->sizes_at + k * sizeof(uint64_t), sizeof size);
    if (size != report->expected_size[k]) {
      throw CorruptDataError(fmt::format("{}: decodes to {} bytes, expected {}", report->labels[k],
                                         size, report->expected_size[k]));
    }
  }
}

void DeviceReadSink::submit(ChunkReadBatch& batch) {
#if !defined(CUZARR_HAVE_CUDA)
  (void)batch;
  throw UnsupportedError("reading into device memory needs CUDA support in this build");
#else
  const size_t n = batch.encoded.size();
  const DataType dtype = out_.dtype();

  // 1. On the CPU: the bytes -> bytes codecs without a GPU decoder (all of them for chunks the
  //    GPU cannot take: whole decode), one batch per chain.
  std::optional<StageTimer> timer(std::in_place, "decode on the CPU");
  std::vector<StagedChunk> staged(n);
  std::vector<char> decoded_whole(n, 0);
  std::vector<ChunkStatus> status(n);
  std::map<const CodecChain*, std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) groups[batch.chains[i]].push_back(i);
  for (const auto& [chain, members] : groups) {
    const ChainPlan& plan = plan_for(*chain);
    std::vector<Buffer> bytes;
    for (size_t m : members) bytes.push_back(batch.encoded[m]);
    std::vector<ChunkStatus> group_status(members.size());
    if (plan.array_bytes) {
      const auto& b2b = chain->bytes_to_bytes();
      const auto& rep = chain->array_to_bytes_representation();
      for (size_t k = b2b.size(); k-- > plan.gpu_steps;) {
        std::vector<Buffer> next(members.size());
        b2b[k]->decode(bytes, next, rep, group_status);
        bytes = std::move(next);
      }
      // Chunks the GPU codecs cannot take (blosc with snappy blocks, ...) decode on the CPU.
      std::vector<size_t> on_cpu;
      for (size_t j = 0; j < members.size(); ++j) {
        staged[members[j]].gpu_steps = plan.gpu_steps;
        if (plan.gpu_steps > 0 && plan.blosc_inside && group_status[j].ok &&
            !blosc_runs_on_gpu(bytes[j], plan.blosc_inner_streams))
          on_cpu.push_back(j);
      }
      for (size_t j : on_cpu) {
        log_once("device-read-blosc-cpu",
                 "blosc chunks with snappy blocks (or with zstd / zlib blocks in arrays whose "
                 "blosc cname is another) decode on the CPU for reads into device memory");
        std::vector<Buffer> one{bytes[j]};
        std::vector<ChunkStatus> one_status(1);
        for (size_t k = plan.gpu_steps; k-- > 0;) {
          std::vector<Buffer> next(1);
          b2b[k]->decode(one, next, rep, one_status);
          one = std::move(next);
        }
        bytes[j] = std::move(one[0]);
        group_status[j] = std::move(one_status[0]);
        staged[members[j]].gpu_steps = 0;
      }
      for (size_t j = 0; j < members.size(); ++j) staged[members[j]].bytes = std::move(bytes[j]);
    } else {
      std::vector<NDBuffer> arrays(members.size());
      chain->decode(bytes, arrays, group_status);
      for (size_t j = 0; j < members.size(); ++j) {
        if (!group_status[j].ok) continue;
        staged[members[j]].bytes = contiguous_bytes(arrays[j]);
        decoded_whole[members[j]] = 1;
      }
    }
    for (size_t j = 0; j < members.size(); ++j) status[members[j]] = std::move(group_status[j]);
  }
  throw_if_failed(status, [&](size_t i) { return batch.labels[i]; });
  timer.emplace("stage for the GPU");

  // 2. Views, routes and staging offsets. Pinned slot: [fill value][packed chunks that the GPU
  //    scatters or decodes][GPU codec tables] (copied in one go), then [packed chunks copied
  //    straight into the output]. Device slot: a mirror of the copied part, then chunks from
  //    their own pinned buffers, GPU codec outputs, their sizes and statuses, and scratch.
  size_t pinned_size = align_up(dtype.size());
  size_t gpu_chunks = 0, max_gpu_steps = 0;
  for (size_t i = 0; i < n; ++i) {
    const CodecChain& chain = *batch.chains[i];
    const PlannedChunk& p = *batch.planned[i];
    StagedChunk& c = staged[i];
    const ChunkRepresentation& rep =
        decoded_whole[i] ? chain.decoded_representation() : chain.array_to_bytes_representation();
    c.array_nbytes = static_cast<uint64_t>(rep.nbytes());
    c.delta = !decoded_whole[i] && plan_for(chain).delta.has_value();
    if (c.gpu_steps == 0 && c.bytes.size() != c.array_nbytes) {
      throw CorruptDataError(fmt::format("{}: decodes to {} bytes, expected {}", batch.labels[i],
                                         c.bytes.size(), rep.nbytes()));
    }
    // The view math runs on a host stand-in of the array bytes; offsets carry over to wherever
    // the bytes are on the device.
    Buffer layout_bytes = c.gpu_steps == 0
                              ? c.bytes
                              : Buffer::wrap(reinterpret_cast<void*>(kStagingAlignment),
                                             c.array_nbytes, MemoryKind::host, nullptr);
    NDBuffer chunk(layout_bytes, dtype, rep.shape);
    if (!decoded_whole[i]) {
      // The transposes before a delta decoded on the GPU are views of its output.
      const auto& a2a = chain.array_to_array();
      for (size_t k = a2a.size() - (c.delta ? 1 : 0); k-- > 0;)
        chunk = chunk.permuted(static_cast<const TransposeCodec&>(*a2a[k]).inverse_order());
      const auto& bytes_codec = static_cast<const BytesCodec&>(*chain.array_to_bytes());
      if (bytes_codec.needs_swap(rep.data_type)) c.swap_unit = rep.data_type.endian_unit();
    }
    c.source = chunk_view(chunk, p);
    c.destination = output_view(out_, p);
    // Delta chunks are decoded in the device slot first, so they never land directly.
    const bool direct = !c.delta && c.swap_unit == 0 && c.source.is_c_contiguous() &&
                        c.destination.is_c_contiguous();
    if (c.gpu_steps > 0) {
      c.route = Route::on_device;  // decoded on the device
      ++gpu_chunks;
      max_gpu_steps = std::max(max_gpu_steps, c.gpu_steps);
      continue;
    }
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
  // Input of the GPU codecs: host bytes are packed into the pinned slot; bytes fetched into
  // pinned memory are copied from there into the device slot; device bytes are used in place.
  const auto packed = [](const StagedChunk& c) {
    return c.gpu_steps > 0 ? c.bytes.kind() == MemoryKind::host : c.route == Route::packed_staged;
  };
  for (auto& c : staged) {
    if (!packed(c)) continue;
    c.pinned_offset = c.device_offset = pinned_size;
    pinned_size += align_up(c.bytes.size());
  }
  // GPU codec tables, per step: input pointers, input sizes, output pointers, capacities.
  std::vector<size_t> gpu_order;  // the chunks the GPU decodes, in batch order
  for (size_t i = 0; i < n; ++i)
    if (staged[i].gpu_steps > 0) gpu_order.push_back(i);
  const size_t table_bytes = align_up(gpu_chunks * sizeof(uint64_t));
  const size_t tables_offset = pinned_size;
  pinned_size += max_gpu_steps * 4 * table_bytes;
  // The delta decode's tables (input pointers, input sizes, output pointers, capacities).
  std::vector<size_t> delta_order;  // the chunks whose delta the GPU decodes, in batch order
  for (size_t i = 0; i < n; ++i)
    if (staged[i].delta) delta_order.push_back(i);
  const size_t delta_table_bytes = align_up(delta_order.size() * sizeof(uint64_t));
  const size_t delta_tables_offset = pinned_size;
  pinned_size += 4 * delta_table_bytes;
  const size_t batch_copy_size = pinned_size;
  for (auto& c : staged) {
    if (c.route != Route::packed_direct || c.gpu_steps > 0) continue;
    c.pinned_offset = pinned_size;
    pinned_size += align_up(c.bytes.size());
  }
  size_t device_size = batch_copy_size;
  const auto own_pinned = [](const StagedChunk& c) {
    return c.gpu_steps > 0 ? c.bytes.kind() == MemoryKind::pinned : c.route == Route::pinned_staged;
  };
  // Chunks in pinned memory of their own are copied into the device slot, in runs.
  std::vector<size_t> own_pinned_chunks;
  std::vector<Buffer> own_pinned_bytes;
  for (size_t i = 0; i < n; ++i) {
    if (!own_pinned(staged[i])) continue;
    own_pinned_chunks.push_back(i);
    own_pinned_bytes.push_back(staged[i].bytes);
  }
  std::vector<size_t> own_pinned_offsets;
  const std::vector<BufferCopyRun> copy_runs = plan_buffer_copy_runs(
      own_pinned_bytes, kCopyRunGap, kStagingAlignment, device_size, own_pinned_offsets);
  for (size_t k = 0; k < own_pinned_chunks.size(); ++k)
    staged[own_pinned_chunks[k]].device_offset = own_pinned_offsets[k];
  // Capacities and outputs of the GPU steps (step j decodes codec j; the last step runs first).
  uint64_t max_capacity = 0;
  for (size_t i : gpu_order) {
    StagedChunk& c = staged[i];
    const ChainPlan& plan = plan_for(*batch.chains[i]);
    c.step_output_offset.assign(c.gpu_steps, 0);
    c.step_capacity.assign(c.gpu_steps, 0);
    uint64_t input_bound = c.bytes.size();
    for (size_t j = c.gpu_steps; j-- > 0;) {
      uint64_t capacity = c.array_nbytes;
      if (j > 0) {
        const auto from_input = plan.decoders[j]->decoded_size_from(input_bound);
        capacity = plan.forward_size[j] ? *plan.forward_size[j] : from_input.value_or(0);
      }
      c.step_capacity[j] = capacity;
      c.step_output_offset[j] = device_size;
      device_size += align_up(std::max<uint64_t>(capacity, 1));
      max_capacity = std::max(max_capacity, capacity);
      input_bound = capacity;
    }
  }
  uint64_t delta_max_bytes = 0;   // sizes the delta decode's split of its chunks
  for (size_t i : delta_order) {  // the delta decode's outputs, its sizes and statuses
    staged[i].delta_offset = device_size;
    device_size += align_up(std::max<uint64_t>(staged[i].array_nbytes, 1));
    delta_max_bytes = std::max(delta_max_bytes, staged[i].array_nbytes);
  }
  const size_t delta_sizes_offset = device_size;
  device_size += 2 * delta_table_bytes;
  const size_t sizes_offset = device_size;  // per step: output sizes (u64) of every GPU chunk
  device_size += max_gpu_steps * table_bytes;
  const size_t statuses_offset = device_size;  // per step: statuses (int32)
  device_size += max_gpu_steps * table_bytes;
  size_t temp_size = 0;
  for (size_t j = 0; j < max_gpu_steps; ++j) {
    for (const auto& [chain, members] : groups) {
      const ChainPlan& plan = plan_for(*chain);
      if (j < plan.gpu_steps)
        temp_size = std::max(temp_size, plan.decoders[j]->temp_bytes(gpu_chunks, max_capacity));
    }
  }
  if (!delta_order.empty())
    temp_size =
        std::max(temp_size, gpu::delta_decode_temp_bytes(delta_order.size(), delta_max_bytes));
  const size_t temp_offset = device_size;
  device_size += align_up(temp_size);

  // 3. Pack on the CPU (overlapping the previous batch's GPU work). The slots are allocated in
  //    the copy stream's order, where the batch's copies run first.
  Buffer pinned = Buffer::allocate(pinned_size, MemoryKind::pinned, copy_stream_);
  Buffer device = Buffer::allocate(device_size, MemoryKind::device, copy_stream_);
  std::memcpy(pinned.data(), fill_value_.data(), fill_value_.size());
  parallel_for(n, [&](size_t i) {
    const StagedChunk& c = staged[i];
    if (packed(c) || (c.gpu_steps == 0 && c.route == Route::packed_direct))
      std::memcpy(pinned.data() + c.pinned_offset, c.bytes.data(), c.bytes.size());
  });
  // Where the GPU codecs read chunk c.
  const auto gpu_input = [&](const StagedChunk& c) -> const std::byte* {
    return c.bytes.kind() == MemoryKind::device ? c.bytes.data() : device.data() + c.device_offset;
  };
  const auto device_at = [&](size_t offset) { return device.data() + offset; };
  const auto table = [&](size_t step, size_t which) {
    return reinterpret_cast<uint64_t*>(pinned.data() + tables_offset +
                                       (step * 4 + which) * table_bytes);
  };
  for (size_t k = 0; k < gpu_order.size(); ++k) {
    const StagedChunk& c = staged[gpu_order[k]];
    for (size_t j = 0; j < c.gpu_steps; ++j) {
      const bool first_step = j + 1 == c.gpu_steps;  // the outermost GPU codec runs first
      table(j, 0)[k] = reinterpret_cast<uint64_t>(
          first_step ? gpu_input(c) : device_at(c.step_output_offset[j + 1]));
      table(j, 1)[k] = first_step ? c.bytes.size() : 0;  // later steps read the sizes produced
      table(j, 2)[k] = reinterpret_cast<uint64_t>(device_at(c.step_output_offset[j]));
      table(j, 3)[k] = c.step_capacity[j];
    }
  }
  // Where chunk c's array bytes are on the device before a delta decode.
  const auto array_bytes_on_device = [&](const StagedChunk& c) -> const std::byte* {
    if (c.gpu_steps > 0) return device_at(c.step_output_offset[0]);
    return c.route == Route::on_device ? c.bytes.data() : device_at(c.device_offset);
  };
  for (size_t k = 0; k < delta_order.size(); ++k) {
    const StagedChunk& c = staged[delta_order[k]];
    const auto delta_table = [&](size_t which) {
      return reinterpret_cast<uint64_t*>(pinned.data() + delta_tables_offset +
                                         which * delta_table_bytes);
    };
    delta_table(0)[k] = reinterpret_cast<uint64_t>(array_bytes_on_device(c));
    delta_table(1)[k] = c.array_nbytes;
    delta_table(2)[k] = reinterpret_cast<uint64_t>(device_at(c.delta_offset));
    delta_table(3)[k] = c.array_nbytes;
  }

  // 4. The batch's host-to-device copies, on the copy stream: they run while the GPU still
  //    decodes earlier batches. Until its kernel stream's next sync (or finish), the batch's
  //    buffers stay here, whichever stream uses them.
  timer.emplace("queue GPU work");
  const size_t kernel_stream = next_stream_;
  next_stream_ = (next_stream_ + 1) % kernel_streams_.size();
  std::vector<Buffer>& held = in_flight_.emplace_back(InFlight{kernel_stream, true, {}}).buffers;
  held.push_back(pinned);
  held.push_back(device);
  // The copies read the chunks' own pinned (or device) bytes; host bytes were packed above.
  for (const auto& c : staged)
    if (c.bytes.kind() != MemoryKind::host) held.push_back(c.bytes);
  copy_time_.begin(copy_stream_);
  copy_bytes(device.data(), MemoryKind::device, pinned.data(), MemoryKind::pinned, batch_copy_size,
             copy_stream_);
  for (const BufferCopyRun& run : copy_runs) {
    copy_bytes(device_at(run.offset), MemoryKind::device, run.source, MemoryKind::pinned, run.size,
               copy_stream_);
  }
  for (const StagedChunk& c : staged) {
    // Chunks that land contiguously go straight into the output (regions no other chunk writes).
    const size_t nbytes = static_cast<size_t>(c.source.nbytes());
    if (c.route == Route::pinned_direct) {
      copy_bytes(c.destination.data(), MemoryKind::device, c.source.data(), MemoryKind::pinned,
                 nbytes, copy_stream_);
    } else if (c.route == Route::packed_direct) {
      copy_bytes(c.destination.data(), MemoryKind::device,
                 pinned.data() + c.pinned_offset + (c.source.data() - c.source.buffer().data()),
                 MemoryKind::pinned, nbytes, copy_stream_);
    }
  }

  copy_time_.end(copy_stream_);

  // 5. The kernels of the batch that last ran on this batch's kernel stream must be done before
  //    this batch queues its own (this bounds the memory in flight to concurrent_batches + 1
  //    batches); then its buffers can go. The kernels of the other streams' batches run on. A
  //    batch without GPU codecs (copies and a scatter: little GPU work to overlap) waits for every
  //    batch before it instead, which holds less memory in flight (bench/RESULTS.md).
  timer.emplace("wait for the GPU");
  if (!gpu_order.empty() || !delta_order.empty()) {
    retire(kernel_stream);
  } else {
    retire_all(kernel_stream);
  }
  in_flight_.back().queueing = false;
  timer.emplace("queue GPU work");
  const Stream& stream = kernel_streams_[kernel_stream];
  stream.wait_for(copy_stream_);
  kernel_time_.begin(stream);

  // 6. The GPU codecs, outermost first, each over every chunk that has it. (A batch holds the
  //    chunks of one chain, or of chains of one codec list on a rectilinear grid.)
  if (!gpu_order.empty()) {
    const ChainPlan& plan = plan_for(*batch.chains[gpu_order.front()]);
    for (size_t j = max_gpu_steps; j-- > 0;) {
      gpu::DeviceChunkBatch b;
      const auto device_table = [&](size_t which) {
        return device_at(tables_offset + (j * 4 + which) * table_bytes);
      };
      b.inputs = reinterpret_cast<const std::byte* const*>(device_table(0));
      b.input_sizes =
          j + 1 == max_gpu_steps
              ? reinterpret_cast<const uint64_t*>(device_table(1))
              : reinterpret_cast<const uint64_t*>(device_at(sizes_offset + (j + 1) * table_bytes));
      b.outputs = reinterpret_cast<std::byte* const*>(device_table(2));
      b.output_capacities = reinterpret_cast<const uint64_t*>(device_table(3));
      b.output_sizes = reinterpret_cast<uint64_t*>(device_at(sizes_offset + j * table_bytes));
      b.statuses =
          reinterpret_cast<gpu::DeviceChunkStatus*>(device_at(statuses_offset + j * table_bytes));
      b.count = gpu_order.size();
      plan.decoders[j]->decode(b, device_at(temp_offset), max_capacity, stream);
    }
    // Statuses and final sizes come back for checking at the next synchronisation: one copy
    // per step and one for the sizes.
    auto report = std::make_unique<GpuReport>();
    const size_t count = gpu_order.size();
    const size_t sizes_at = align_up(max_gpu_steps * count * sizeof(int32_t));
    report->pinned =
        Buffer::allocate(sizes_at + count * sizeof(uint64_t), MemoryKind::pinned, stream);
    report->count = count;
    for (size_t j = 0; j < max_gpu_steps; ++j) {
      copy_bytes(report->pinned.data() + j * count * sizeof(int32_t), MemoryKind::pinned,
                 device_at(statuses_offset + j * table_bytes), MemoryKind::device,
                 count * sizeof(int32_t), stream);
    }
    copy_bytes(report->pinned.data() + sizes_at, MemoryKind::pinned, device_at(sizes_offset),
               MemoryKind::device, count * sizeof(uint64_t), stream);
    report->sizes_at = sizes_at;
    report->step_names = plan.names;
    for (size_t i : gpu_order) {
      report->labels.push_back(batch.labels[i]);
      report->expected_size.push_back(staged[i].array_nbytes);
    }
    pending_reports_[kernel_stream] = std::move(report);
  }
  // The delta decode of the array bytes. Its sizes are the arrays' (multiples of the element),
  // so it reports no failure of its own; a GPU codec's wrong output size is reported above.
  if (!delta_order.empty()) {
    const auto delta_table = [&](size_t which) {
      return device_at(delta_tables_offset + which * delta_table_bytes);
    };
    gpu::DeviceChunkBatch b;
    b.inputs = reinterpret_cast<const std::byte* const*>(delta_table(0));
    b.input_sizes = reinterpret_cast<const uint64_t*>(delta_table(1));
    b.outputs = reinterpret_cast<std::byte* const*>(delta_table(2));
    b.output_capacities = reinterpret_cast<const uint64_t*>(delta_table(3));
    b.output_sizes = reinterpret_cast<uint64_t*>(device_at(delta_sizes_offset));
    b.statuses = reinterpret_cast<gpu::DeviceChunkStatus*>(
        device_at(delta_sizes_offset + delta_table_bytes));
    b.count = delta_order.size();
    gpu::delta_decode_batch(b, *plan_for(*batch.chains[delta_order.front()]).delta, delta_max_bytes,
                            device_at(temp_offset), stream);
  }

  // 7. Copies and the scatter.
  std::vector<detail::DeviceScatterItem> plain_items, swapped_items;
  size_t swap_unit = 0;
  const auto add_item = [&](const NDBuffer& host_view_source, const std::byte* host_base,
                            const std::byte* device_base, const NDBuffer& destination,
                            size_t unit) {
    detail::DeviceScatterItem item;
    if (!detail::make_scatter_item(host_view_source, destination, item)) {
      if (unit != 0) {
        throw UnsupportedError(fmt::format("byte-swapping copy of {} dimensions into device memory",
                                           destination.ndim()));
      }
      // Too many dimensions for the scatter kernel: a strided copy of its own.
      const size_t offset = static_cast<size_t>(device_base - device.data());
      const NDBuffer on_device(device.slice(offset, device.size() - offset), dtype,
                               host_view_source.shape(), host_view_source.byte_strides(),
                               host_view_source.data() - host_base);
      destination.assign(on_device, stream);
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
    const std::byte* base = c.source.buffer().data();  // the array bytes (or their stand-in)
    switch (c.route) {
      case Route::on_device: {
        const std::byte* on_device = c.delta           ? device_at(c.delta_offset)
                                     : c.gpu_steps > 0 ? device_at(c.step_output_offset[0])
                                                       : c.bytes.data();
        if (c.swap_unit == 0 && c.source.is_c_contiguous() && c.destination.is_c_contiguous()) {
          copy_bytes(c.destination.data(), MemoryKind::device, on_device + (c.source.data() - base),
                     MemoryKind::device, nbytes, stream);
        } else if (c.gpu_steps > 0 || c.delta) {
          add_item(c.source, base, on_device, c.destination, c.swap_unit);
        } else {
          // Read into device memory by the store: scatter straight from that buffer.
          detail::DeviceScatterItem item;
          if (!detail::make_scatter_item(c.source, c.destination, item)) {
            c.destination.assign(c.source, stream);
          } else if (c.swap_unit == 0) {
            plain_items.push_back(item);
          } else {
            swap_unit = c.swap_unit;
            swapped_items.push_back(item);
          }
        }
        break;
      }
      case Route::pinned_direct:  // copied into the output in step 4
      case Route::packed_direct:
        break;
      case Route::pinned_staged:  // copied into the device slot in step 4
      case Route::packed_staged:
        add_item(c.source, base, device_at(c.delta ? c.delta_offset : c.device_offset),
                 c.destination, c.swap_unit);
        break;
    }
  }
  detail::scatter_on_device(plain_items, dtype.size(), 0, stream);
  detail::scatter_on_device(swapped_items, dtype.size(), swap_unit, stream);
  kernel_time_.end(stream);
  // `pinned`, `device` and the chunks' buffers are held in in_flight_ until this work is done;
  // the report, allocated in the stream's order, is released once the queued work has used it.
#endif
}

void DeviceReadSink::retire_all(size_t oldest) {
  for (size_t k = 0; k < kernel_streams_.size(); ++k) retire((oldest + k) % kernel_streams_.size());
}

void DeviceReadSink::finish() {
  const StageTimer timer("wait for the GPU");
  retire_all(next_stream_);  // the stream of the batch queued longest ago
}

}  // namespace cuzarr
