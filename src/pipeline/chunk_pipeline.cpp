#include "cuzarr/pipeline/chunk_pipeline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

#include "codec/direct_chunk_encoder.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/stage_times.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"
#include "cuzarr/pipeline/byte_range_coalescing.hpp"
#include "cuzarr/pipeline/chunk_plan.hpp"
#include "pipeline/device_chunk_encoder.hpp"
#include "pipeline/device_read_sink.hpp"
#include "pipeline/direct_chunk_read.hpp"
#include "pipeline/planned_chunk_views.hpp"
#include "pipeline/raw_chunk_reads.hpp"
#include "pipeline/scratch_pool.hpp"

namespace cuzarr {
namespace {

bool holds_only(const NDBuffer& chunk, std::span<const std::byte> element) {
  if (chunk.dtype().is_variable_length()) {  // compare the values, not where they are stored
    VariableLengthValue value;
    std::memcpy(&value, element.data(), sizeof value);
    return variable_length_holds_only(chunk, value.view());
  }
  const size_t elem = element.size();
  const auto* p = chunk.data();
  const size_t n = static_cast<size_t>(chunk.size());
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(p + i * elem, element.data(), elem) != 0) return false;
  }
  return true;
}

// Runs `work` once per distinct chain over the indices of `chains` that use it.
void for_each_group(std::span<const CodecChain* const> chains,
                    const std::function<void(const CodecChain&, std::span<const size_t>)>& work) {
  std::map<const CodecChain*, std::vector<size_t>> groups;
  for (size_t i = 0; i < chains.size(); ++i) groups[chains[i]].push_back(i);
  for (const auto& [chain, members] : groups) work(*chain, members);
}

std::string join_key(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "/" + key;
}

// Chunks (or shards) per batch of a read or write. A batch holds all its encoded chunks at once,
// so besides `batch_bytes` (decoded bytes) a batch in host memory is bounded by an eighth of the
// caller's array `out` (read into or written from): peak memory stays near the size of that
// array. It holds at least one chunk per thread, so that every thread decodes (or encodes), even
// beyond `batch_bytes` as long as that stays within a quarter of `out`. A batch for device memory
// is staged in pinned memory, not in `out`: it holds one chunk per thread even beyond `batch_bytes`
// (up to 4x), so that every core decodes large chunks (the pinned pool caches the two batches in
// flight).
size_t bounded_batch_size(uint64_t batch_bytes, int64_t chunk_bytes, size_t chunks,
                          const NDBuffer& out) {
  const uint64_t per_chunk = std::max<uint64_t>(1, static_cast<uint64_t>(chunk_bytes));
  const uint64_t out_bytes = static_cast<uint64_t>(out.size()) * out.dtype().size();
  const uint64_t one_per_thread = cpu_threads() * per_chunk;
  const uint64_t budget =
      out.kind() == MemoryKind::device
          ? std::max(batch_bytes, std::min(one_per_thread, 4 * batch_bytes))
          : std::max(std::min(batch_bytes, std::max(out_bytes / 8, one_per_thread)),
                     std::min(one_per_thread, out_bytes / 4));
  return std::clamp<size_t>(static_cast<size_t>(budget / per_chunk), 1,
                            std::max<size_t>(1, chunks));
}

// Writes the chunks `chunks` of data `in` in device memory, each covered by the data in its part
// inside the array, with `encoder` on the GPU: each chunk is made whole in device memory (the
// fill value around an edge chunk's data; chunks whose data is contiguous are used in place),
// encoded there, and only its encoded bytes reach the host. A chunk that holds only the fill
// value encodes to exactly the bytes of a chunk of fill (the encoders are deterministic and
// lossless), so comparing the encoded bytes finds the chunks to erase.
// The bytes of a C-contiguous array.
Buffer bytes_of(const NDBuffer& array) {
  return array.buffer().slice(static_cast<size_t>(array.data() - array.buffer().data()),
                              static_cast<size_t>(array.nbytes()));
}

void write_encoded_on_device(const DeviceChunkEncoder& encoder,
                             std::span<const PlannedChunk* const> chunks, const NDBuffer& in,
                             const ChunkRepresentation& rep, const PipelineOptions& options,
                             Store& store,
                             const std::function<std::string(const PlannedChunk&)>& key_of) {
  if (chunks.empty()) return;
  Stream stream = Stream::create();
  NDBuffer fill_host = NDBuffer::allocate(rep.data_type, rep.shape);
  fill_host.fill(rep.fill_value);
  const NDBuffer fill = fill_host.copy_to(MemoryKind::device, stream);
  const std::string fill_label = "a chunk of the fill value";
  const Buffer fill_bytes = bytes_of(fill);
  const Buffer fill_encoded =
      encoder.encode(std::span<const Buffer>(&fill_bytes, 1), {&fill_label, 1}, stream)[0];
  const size_t per_batch = bounded_batch_size(options.batch_bytes, rep.nbytes(), chunks.size(), in);
  for (size_t first = 0; first < chunks.size(); first += per_batch) {
    const size_t n = std::min(per_batch, chunks.size() - first);
    std::vector<Buffer> device_chunks(n);
    std::vector<std::string> keys(n), labels(n);
    for (size_t i = 0; i < n; ++i) {
      const PlannedChunk& p = *chunks[first + i];
      keys[i] = key_of(p);
      labels[i] = fmt::format("chunk \"{}\" (encode)", keys[i]);
      const NDBuffer part = output_view(in, p);
      if (p.covers_whole_chunk && part.is_c_contiguous() && part.nbytes() == rep.nbytes()) {
        device_chunks[i] =
            part.buffer().slice(static_cast<size_t>(part.data() - part.buffer().data()),
                                static_cast<size_t>(part.nbytes()));
        continue;
      }
      const NDBuffer chunk =
          NDBuffer::allocate(rep.data_type, rep.shape, MemoryKind::device, stream);
      if (!p.covers_whole_chunk) chunk.assign(fill, stream);
      chunk_view(chunk, p).assign(part, stream);
      device_chunks[i] = bytes_of(chunk);
    }
    const std::vector<Buffer> encoded = encoder.encode(device_chunks, labels, stream);
    parallel_for(n, [&](size_t i) {
      const bool only_fill =
          encoded[i].size() == fill_encoded.size() &&
          std::memcmp(encoded[i].data(), fill_encoded.data(), fill_encoded.size()) == 0;
      if (only_fill && !options.write_empty_chunks)
        store.erase(keys[i]);
      else
        store.set(keys[i], encoded[i].bytes());
    });
  }
}

}  // namespace

ChunkPipeline::ChunkPipeline(std::shared_ptr<Store> store, std::string key_prefix,
                             std::shared_ptr<const ArrayMetadata> metadata, PipelineOptions options)
    : store_(std::move(store)),
      prefix_(std::move(key_prefix)),
      metadata_(std::move(metadata)),
      options_(options) {
  if (options_.codec_placement) options_.codec_placement->validate();
  ChunkRepresentation rep{metadata_->chunk_shape, metadata_->data_type, metadata_->fill_value};
  try {
    chain_ = CodecChain::create(metadata_->codecs, rep);
  } catch (const Error& e) {  // a codec list that does not build: an error of the document
    throw_error(e.code(), fmt::format("{}: {}",
                                      join_key(prefix_, metadata_->zarr_format == 2 ? ".zarray"
                                                                                    : "zarr.json"),
                                      e.what()));
  }
  if (chain_->array_to_array().empty() && chain_->bytes_to_bytes().empty()) {
    sharding_ = dynamic_cast<const ShardingCodec*>(chain_->array_to_bytes().get());
  }
  if (sharding_ && metadata_->rectilinear_grid) {
    throw UnsupportedError(
        "sharding_indexed over a rectilinear chunk grid is not supported (shards of varying "
        "shapes)");
  }
}

std::optional<std::string> ChunkPipeline::stored_shard_problem(uint64_t size) const {
  if (sharding_ == nullptr) return std::nullopt;
  const auto index_size = static_cast<uint64_t>(sharding_->index_encoded_size());
  if (size >= index_size) return std::nullopt;
  return fmt::format("{} bytes, smaller than its {}-byte index", size, index_size);
}

std::vector<PlannedChunk> ChunkPipeline::plan(const NormalizedSelection& selection) const {
  if (metadata_->rectilinear_grid)
    return plan_chunks(selection, metadata_->shape, *metadata_->rectilinear_grid);
  return plan_chunks(selection, metadata_->shape, metadata_->chunk_shape);
}

const CodecChain& ChunkPipeline::chain_for(std::span<const int64_t> coords) const {
  if (!metadata_->rectilinear_grid) return *chain_;
  Shape shape = metadata_->chunk_shape_at(coords);
  if (shape == chain_->decoded_representation().shape) return *chain_;
  std::lock_guard lock(chains_mutex_);
  auto& chain = chains_by_shape_[shape];
  if (!chain) {
    chain = CodecChain::create(
        metadata_->codecs,
        ChunkRepresentation{std::move(shape), metadata_->data_type, metadata_->fill_value});
  }
  return *chain;
}

void ChunkPipeline::for_each_chain(
    std::span<const Index> coords,
    const std::function<void(const CodecChain&, std::span<const size_t>)>& work) const {
  std::vector<size_t> all(coords.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (!metadata_->rectilinear_grid) {
    work(*chain_, all);
    return;
  }
  // Chunks of one shape share a chain; a batch is decoded (or encoded) per shape.
  std::map<const CodecChain*, std::vector<size_t>> groups;
  for (size_t i = 0; i < coords.size(); ++i) groups[&chain_for(coords[i])].push_back(i);
  for (const auto& [chain, members] : groups) work(*chain, members);
}

void ChunkPipeline::decode_batch(std::span<const Index> coords, std::vector<Buffer>& encoded,
                                 std::vector<NDBuffer>& decoded,
                                 std::vector<ChunkStatus>& status) const {
  for_each_chain(coords, [&](const CodecChain& chain, std::span<const size_t> members) {
    if (members.size() == coords.size()) {
      chain.decode(encoded, decoded, status);
      return;
    }
    std::vector<Buffer> in;
    std::vector<NDBuffer> out;
    std::vector<ChunkStatus> st(members.size());
    for (size_t m : members) {
      in.push_back(encoded[m]);
      out.push_back(decoded[m]);
    }
    chain.decode(in, out, st);
    for (size_t j = 0; j < members.size(); ++j) {
      decoded[members[j]] = std::move(out[j]);
      status[members[j]] = std::move(st[j]);
    }
  });
}

void ChunkPipeline::encode_batch(std::span<const Index> coords, const std::vector<NDBuffer>& chunks,
                                 std::vector<Buffer>& encoded,
                                 std::vector<ChunkStatus>& status) const {
  for_each_chain(coords, [&](const CodecChain& chain, std::span<const size_t> members) {
    if (members.size() == coords.size()) {
      chain.encode(chunks, encoded, status);
      return;
    }
    std::vector<NDBuffer> in;
    std::vector<Buffer> out(members.size());
    std::vector<ChunkStatus> st(members.size());
    for (size_t m : members) in.push_back(chunks[m]);
    chain.encode(in, out, st);
    for (size_t j = 0; j < members.size(); ++j) {
      encoded[members[j]] = std::move(out[j]);
      status[members[j]] = std::move(st[j]);
    }
  });
}

std::string ChunkPipeline::chunk_key(std::span<const int64_t> coords) const {
  return join_key(prefix_, metadata_->chunk_key_encoding.encode(coords));
}

void ChunkPipeline::read(const NormalizedSelection& selection, const NDBuffer& out) const {
  if (out.shape() != selection.full_result_shape()) {
    throw InvalidArgumentError(
        fmt::format("read: output shape {} does not match the selection shape {}",
                    shape_to_string(out.shape()), shape_to_string(selection.full_result_shape())));
  }
  if (out.dtype().size() != metadata_->data_type.size()) {
    throw InvalidArgumentError("read: output data type does not match the array's");
  }
  if (out.size() == 0) return;
  const CodecChain& chunk_chain = sharding_ ? sharding_->inner_chain() : *chain_;
  if (is_host_accessible(out.kind())) {
    const auto sink = [&](ChunkReadBatch& batch) { decode_and_scatter_on_host(batch, out); };
    if (sharding_)
      read_sharded(selection, out, Fetch{}, sink);
    else
      read_regular(selection, out, Fetch{}, sink);
    return;
  }
  if (metadata_->data_type.is_variable_length()) {
    throw UnsupportedError(fmt::format("reading data type {} into device memory is not supported",
                                       metadata_->data_type.name()));
  }
  // Device output: chunks whose codecs leave nothing to decode on the CPU are read straight into
  // pinned memory (or device memory, when the store reads there itself); so are encoded chunks
  // whose codecs all decode on the GPU (into pinned memory: a blosc chunk whose inner codec has
  // no GPU decoder is still decoded on the CPU from there).
  DeviceReadSink device(out, metadata_->fill_value, Stream::create(),
                        options_.effective_codec_placement(), options_.concurrent_device_batches);
  Fetch fetch;
  if (device.stages_array_bytes(chunk_chain) && !metadata_->rectilinear_grid) {
    if (chunk_chain.bytes_to_bytes().empty())
      fetch.kind = store_->reads_into_device() ? MemoryKind::device : MemoryKind::pinned;
    else if (device.decodes_entirely_on_gpu(chunk_chain))
      fetch.kind = MemoryKind::pinned;
  }
  // Chunks the GPU decodes are copied there as each read lands, not once the batch is read.
  if (fetch.kind == MemoryKind::pinned && device.uploads_early(chunk_chain))
    fetch.hand_off = [&](Buffer pinned) { return device.upload_early(std::move(pinned)); };
  const auto sink = [&](ChunkReadBatch& batch) { device.submit(batch); };
  if (sharding_)
    read_sharded(selection, out, fetch, sink);
  else
    read_regular(selection, out, fetch, sink);
  device.finish();
}

void ChunkPipeline::decode_and_scatter_on_host(ChunkReadBatch& batch, const NDBuffer& out) const {
  const size_t n = batch.encoded.size();
  // Decode every present chunk, one batch per codec chain; fully covered chunks decode straight
  // into `out`.
  std::vector<NDBuffer> decoded(n);
  std::vector<ChunkStatus> status(n);
  for (size_t i = 0; i < n; ++i) {
    if (batch.planned[i]->covers_whole_chunk) decoded[i] = output_view(out, *batch.planned[i]);
  }
  std::optional<StageTimer> timer(std::in_place, "decode on the CPU");
  for_each_group(batch.chains, [&](const CodecChain& chain, std::span<const size_t> members) {
    if (members.size() == n) {
      chain.decode(batch.encoded, decoded, status);
      return;
    }
    std::vector<Buffer> in;
    std::vector<NDBuffer> group_out;
    std::vector<ChunkStatus> group_status(members.size());
    for (size_t m : members) {
      in.push_back(batch.encoded[m]);
      group_out.push_back(decoded[m]);
    }
    chain.decode(in, group_out, group_status);
    for (size_t j = 0; j < members.size(); ++j) {
      decoded[members[j]] = std::move(group_out[j]);
      status[members[j]] = std::move(group_status[j]);
    }
  });
  throw_if_failed(status, [&](size_t i) { return batch.labels[i]; });
  timer.emplace("scatter on the CPU");

  const auto& fill = metadata_->fill_value;
  parallel_for(n + batch.missing.size(), [&](size_t t) {
    if (t >= n) {
      output_view(out, *batch.missing[t - n]).fill(fill);
      return;
    }
    const PlannedChunk& p = *batch.planned[t];
    const NDBuffer dst = output_view(out, p);
    if (!(p.covers_whole_chunk && decoded[t].data() == dst.data()))
      dst.assign(chunk_view(decoded[t], p));
  });
}

std::vector<std::optional<Buffer>> ChunkPipeline::fetch_values(std::span<const KeyRange> requests,
                                                               const Fetch& fetch) const {
  if (!fetch.hand_off) return store_->get_many(requests, fetch.kind);
  std::vector<std::optional<Buffer>> values(requests.size());
  store_->get_many_each(requests, fetch.kind, [&](size_t i, std::optional<Buffer> value) {
    if (value) value = fetch.hand_off(std::move(*value));
    values[i] = std::move(value);
  });
  return values;
}

void ChunkPipeline::read_regular(const NormalizedSelection& selection, const NDBuffer& out,
                                 const Fetch& fetch,
                                 const std::function<void(ChunkReadBatch&)>& sink) const {
  const auto plan = this->plan(selection);
  const auto& rep = chain_->decoded_representation();
  const size_t per_batch = bounded_batch_size(options_.batch_bytes, rep.nbytes(), plan.size(), out);
  // Chunks that fill their place in a host output whole are read and decoded straight into it,
  // each by one task, when the chain allows (raw, or one compressor, each optionally behind a
  // numcodecs.delta): no batch of fetched chunks.
  const bool into_place = fetch.kind == MemoryKind::host && is_host_accessible(out.kind()) &&
                          !metadata_->rectilinear_grid && reads_chunks_into_place(*chain_);
  ScratchPool<Buffer> encoded_scratch;
  enum class Placed : char { no, read, absent };
  for (size_t first = 0; first < plan.size(); first += per_batch) {
    const size_t n = std::min(per_batch, plan.size() - first);
    std::vector<std::string> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = chunk_key(plan[first + i].coords);
    std::vector<Placed> placed(n, Placed::no);
    // A compressed chunk is decoded by one thread here; a batch of fewer chunks than threads goes
    // the usual way, where the decoder may use the spare threads inside each chunk.
    if (into_place && (n >= cpu_threads() || stores_raw_elements(*chain_))) {
      const StageTimer timer("read and decode chunks into place");
      parallel_for(n, [&](size_t i) {
        const PlannedChunk& p = plan[first + i];
        if (!p.covers_whole_chunk) return;
        switch (read_chunk_into_place(*store_, keys[i], *chain_, output_view(out, p),
                                      encoded_scratch)) {
          case DirectChunkRead::done:
            placed[i] = Placed::read;
            break;
          case DirectChunkRead::absent:
            placed[i] = Placed::absent;
            break;
          case DirectChunkRead::declined:  // fetched and decoded below
            break;
        }
      });
    }
    std::vector<KeyRange> requests;
    std::vector<size_t> request_owner;
    for (size_t i = 0; i < n; ++i) {
      if (placed[i] != Placed::no) continue;
      requests.push_back({keys[i], ByteRange::full()});
      request_owner.push_back(i);
    }
    auto fetched = [&] {
      const StageTimer timer("fetch chunks");
      return fetch_values(requests, fetch);
    }();

    ChunkReadBatch batch;
    for (size_t i = 0; i < n; ++i)
      if (placed[i] == Placed::absent) batch.missing.push_back(&plan[first + i]);
    for (size_t r = 0; r < requests.size(); ++r) {
      const PlannedChunk& p = plan[first + request_owner[r]];
      if (!fetched[r]) {
        batch.missing.push_back(&p);
        continue;
      }
      batch.encoded.push_back(std::move(*fetched[r]));
      batch.planned.push_back(&p);
      batch.chains.push_back(&chain_for(p.coords));
      batch.labels.push_back(fmt::format("chunk \"{}\"", requests[r].key));
    }
    sink(batch);
  }
}

void ChunkPipeline::read_sharded(const NormalizedSelection& selection, const NDBuffer& out,
                                 const Fetch& fetch,
                                 const std::function<void(ChunkReadBatch&)>& sink) const {
  const ShardingCodec& sharding = *sharding_;
  const Shape& inner_shape = sharding.inner_chunk_shape();
  const Shape& grid = sharding.inner_grid();
  const size_t ndim = metadata_->shape.size();
  // Inner chunks tile the array on a regular grid of inner_shape (the shard shape is a multiple).
  const auto inner_plan = plan_chunks(selection, metadata_->shape, inner_shape);

  // Group the inner chunks by shard, shards in C order.
  std::map<Index, std::vector<size_t>> by_shard;
  for (size_t i = 0; i < inner_plan.size(); ++i) {
    Index shard(ndim);
    for (size_t d = 0; d < ndim; ++d) shard[d] = inner_plan[i].coords[d] / grid[d];
    by_shard[shard].push_back(i);
  }
  std::vector<std::pair<Index, std::vector<size_t>>> shards(by_shard.begin(), by_shard.end());

  const int64_t index_size = sharding.index_encoded_size();
  // A shard's inner chunks keep every thread busy, so a batch for host memory needs no shard per
  // thread: it is bounded by batch_bytes alone, which bounds the encoded shards held at once.
  const int64_t shard_bytes = chain_->decoded_representation().nbytes();
  size_t shards_per_batch =
      bounded_batch_size(options_.batch_bytes, shard_bytes, shards.size(), out);
  if (is_host_accessible(out.kind())) {
    shards_per_batch = std::min<size_t>(
        shards_per_batch,
        std::max<uint64_t>(1, options_.batch_bytes / std::max<int64_t>(shard_bytes, 1)));
  }

  for (size_t first = 0; first < shards.size(); first += shards_per_batch) {
    const size_t n = std::min(shards_per_batch, shards.size() - first);
    std::vector<std::string> keys(n);
    std::vector<std::optional<uint64_t>> sizes(n);
    parallel_for(n, [&](size_t s) {
      keys[s] = chunk_key(shards[first + s].first);
      sizes[s] = store_->size(keys[s]);
    });

    // 1. The indexes of the present shards.
    std::vector<KeyRange> index_requests;
    std::vector<size_t> index_owner;
    for (size_t s = 0; s < n; ++s) {
      if (!sizes[s]) continue;
      if (auto problem = stored_shard_problem(*sizes[s]))
        throw CorruptDataError(fmt::format("shard \"{}\": {}", keys[s], *problem));
      const uint64_t at = sharding.index_location() == ShardingCodec::IndexLocation::start
                              ? 0
                              : *sizes[s] - static_cast<uint64_t>(index_size);
      index_requests.push_back({keys[s], ByteRange::range(at, static_cast<uint64_t>(index_size))});
      index_owner.push_back(s);
    }
    auto index_bytes = [&] {
      const StageTimer timer("fetch shard indexes");
      return store_->get_many(index_requests);
    }();
    std::vector<std::optional<ShardIndex>> indexes(n);
    parallel_for(index_requests.size(), [&](size_t r) {
      const size_t s = index_owner[r];
      if (!index_bytes[r]) return;  // removed meanwhile: reads as missing
      indexes[s] = sharding.decode_index(*index_bytes[r], *sizes[s], keys[s]);
    });

    // 2. The inner chunks the selection needs, coalesced per shard.
    struct InnerRead {
      size_t plan_index;
      size_t request;
      uint64_t offset_in_request;
      uint64_t nbytes;
      std::string label;
    };
    std::vector<InnerRead> inner_reads;
    std::vector<KeyRange> data_requests;
    ChunkReadBatch batch;
    for (size_t s = 0; s < n; ++s) {
      const auto& members = shards[first + s].second;
      if (!indexes[s]) {
        for (size_t m : members) batch.missing.push_back(&inner_plan[m]);
        continue;
      }
      const ShardIndex& index = *indexes[s];
      std::vector<std::pair<uint64_t, uint64_t>> ranges;
      std::vector<size_t> range_plan;
      for (size_t m : members) {
        Index local(ndim);
        for (size_t d = 0; d < ndim; ++d) local[d] = inner_plan[m].coords[d] % grid[d];
        const size_t li = index.linear_index(local);
        if (index.is_empty(li)) {
          batch.missing.push_back(&inner_plan[m]);
          continue;
        }
        ranges.emplace_back(index.offsets[li], index.nbytes[li]);
        range_plan.push_back(m);
      }
      for (const auto& read : coalesce_byte_ranges(ranges, options_.coalesce_gap_bytes)) {
        const size_t request = data_requests.size();
        data_requests.push_back({keys[s], ByteRange::range(read.offset, read.length)});
        for (size_t member : read.members) {
          const size_t m = range_plan[member];
          Index local(ndim);
          for (size_t d = 0; d < ndim; ++d) local[d] = inner_plan[m].coords[d] % grid[d];
          inner_reads.push_back(
              {m, request, ranges[member].first - read.offset, ranges[member].second,
               fmt::format("shard \"{}\", inner chunk {}", keys[s], shape_to_string(local))});
        }
      }
    }
    auto data = [&] {
      const StageTimer timer("fetch inner chunks");
      return fetch_values(data_requests, fetch);
    }();

    // 3. Every inner chunk the shards hold, for one batched decode.
    for (auto& ir : inner_reads) {
      const auto& got = data[ir.request];
      if (!got || got->size() < ir.offset_in_request + ir.nbytes) {
        throw CorruptDataError(
            fmt::format("{}: the shard ends before the inner chunk its index points to", ir.label));
      }
      batch.encoded.push_back(got->slice(ir.offset_in_request, ir.nbytes));
      batch.planned.push_back(&inner_plan[ir.plan_index]);
      batch.chains.push_back(&sharding.inner_chain());
      batch.labels.push_back(std::move(ir.label));
    }
    sink(batch);
  }
}

void ChunkPipeline::write(const NormalizedSelection& selection, const NDBuffer& in) const {
  if (in.shape() != selection.full_result_shape()) {
    throw InvalidArgumentError(
        fmt::format("write: data shape {} does not match the selection shape {}",
                    shape_to_string(in.shape()), shape_to_string(selection.full_result_shape())));
  }
  if (in.dtype().size() != metadata_->data_type.size()) {
    throw InvalidArgumentError(fmt::format("write: data type {} does not match the array's {}",
                                           in.dtype().name(), metadata_->data_type.name()));
  }
  auto plan = this->plan(selection);
  const auto& rep = chain_->decoded_representation();
  // Data in device memory whose chain the GPU encodes (as the codec placement asks): the chunks
  // the data covers are encoded there; the others (read-modify-write) take the CPU path below.
  if (!is_host_accessible(in.kind()) && !sharding_ && !metadata_->rectilinear_grid &&
      !rep.data_type.is_variable_length()) {
    if (const auto encoder = DeviceChunkEncoder::for_chain(
            *chain_, options_.codec_placement.value_or(CodecPlacement{}))) {
      std::vector<const PlannedChunk*> covered;
      for (const auto& p : plan)
        if (p.covers_valid_region) covered.push_back(&p);
      write_encoded_on_device(*encoder, covered, in, rep, options_, *store_,
                              [&](const PlannedChunk& p) { return chunk_key(p.coords); });
      std::erase_if(plan, [](const PlannedChunk& p) { return p.covers_valid_region; });
      if (plan.empty()) return;
    }
  }
  const size_t per_batch = bounded_batch_size(options_.batch_bytes, rep.nbytes(), plan.size(), in);
  // Whole shards, and chunks of [bytes] and [bytes, zstd or blosc] chains, are encoded into
  // scratch memory reused from chunk to chunk and stored by the task that encoded them (below):
  // write(2) then copies bytes still in the CPU's caches into the page cache.
  const auto direct =
      metadata_->rectilinear_grid ? std::nullopt : DirectChunkEncoder::for_chain(*chain_);
  ScratchPool<ShardingCodec::EncodeScratch> shard_scratch;
  ScratchPool<Buffer> chunk_scratch;
  const bool fused = sharding_ || direct;
  // Encodes one chunk (or shard) of the fused path into scratch memory and stores it.
  const auto encode_and_store = [&](const std::string& key, const NDBuffer& chunk) {
    const auto encode_failure = [&](const Error& e) {
      throw_error(e.code(), fmt::format("chunk \"{}\" (encode): {}", key, e.what()));
    };
    if (sharding_) {
      const auto scratch = shard_scratch.take();
      std::span<const std::span<const std::byte>> parts;
      try {
        parts = sharding_->encode_shard(chunk, *scratch);
      } catch (const Error& e) {
        encode_failure(e);
      }
      // A shard whose inner chunks are all empty encodes to nothing: nothing to store.
      if (parts.empty())
        store_->erase(key);
      else
        store_->set_parts(key, parts);
      return;
    }
    const auto scratch = chunk_scratch.take();
    if (scratch->size() < direct->bound()) *scratch = Buffer::allocate(direct->bound());
    size_t size = 0;
    try {
      size = direct->encode(chunk, scratch->bytes());
    } catch (const Error& e) {
      encode_failure(e);
    }
    store_->set(key, scratch->bytes().first(size));
  };
  // On that path a chunk's copy (when it needs one) lives only while its task runs, so a batch
  // of host data may hold more chunks: fewer waits for a batch's last chunk. Its bound is then
  // the chunks read before a partial write (held for the whole batch), and 16 per thread.
  const auto batch_length = [&](size_t first) -> size_t {
    const size_t rest = plan.size() - first;
    if (!fused || !is_host_accessible(in.kind())) return std::min(per_batch, rest);
    const size_t limit = std::min(rest, std::max(per_batch, 16 * cpu_threads()));
    size_t length = 0, partial = 0;
    for (; length < limit; ++length) {
      if (!plan[first + length].covers_valid_region && ++partial > per_batch) break;
    }
    return std::max<size_t>(1, length);
  };
  for (size_t first = 0, n = 0; first < plan.size(); first += n) {
    n = batch_length(first);
    std::vector<std::string> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = chunk_key(plan[first + i].coords);

    // Data in device memory: the codecs run on the CPU, so each chunk's part of the data is
    // copied into pinned memory first (one kernel per strided part, one stream per batch).
    std::vector<NDBuffer> staged_input(n);
    if (!is_host_accessible(in.kind())) {
      Stream stream = Stream::create();
      for (size_t i = 0; i < n; ++i) {
        const NDBuffer part = output_view(in, plan[first + i]);
        staged_input[i] = NDBuffer::allocate(in.dtype(), part.shape(), MemoryKind::pinned, stream);
        staged_input[i].assign(part, stream);
      }
      stream.synchronize();
    }
    const auto input_part = [&](size_t i) {
      return staged_input[i].buffer().data() ? staged_input[i] : output_view(in, plan[first + i]);
    };

    // Read-modify-write: fetch and decode the chunks the selection covers only in part.
    std::vector<KeyRange> requests;
    std::vector<size_t> request_owner;
    for (size_t i = 0; i < n; ++i) {
      if (!plan[first + i].covers_valid_region) {
        requests.push_back({keys[i], ByteRange::full()});
        request_owner.push_back(i);
      }
    }
    auto fetched = store_->get_many(requests);
    std::vector<size_t> present;
    std::vector<Index> present_coords;
    std::vector<Buffer> old_encoded;
    for (size_t r = 0; r < requests.size(); ++r) {
      if (!fetched[r]) continue;
      present.push_back(request_owner[r]);
      present_coords.push_back(plan[first + request_owner[r]].coords);
      old_encoded.push_back(std::move(*fetched[r]));
    }
    std::vector<NDBuffer> old_decoded(present.size());
    std::vector<ChunkStatus> old_status(present.size());
    decode_batch(present_coords, old_encoded, old_decoded, old_status);
    throw_if_failed(old_status, [&](size_t j) {
      return fmt::format("chunk \"{}\" (read before a partial write)", keys[present[j]]);
    });

    std::vector<NDBuffer> chunks(n);
    for (size_t j = 0; j < present.size(); ++j) chunks[present[j]] = old_decoded[j];
    std::vector<char> keep(n, 0);
    // A chunk the data covers whole is encoded from the caller's data in place (a strided view,
    // no copy) when it cannot hold only the fill value: its first element differs. The bytes or
    // sharding codec reads any strides; array -> array codecs get copies as before.
    const bool encode_views =
        chain_->array_to_array().empty() && !rep.data_type.is_variable_length();
    const std::span<const std::byte> fill = rep.fill_value;
    const auto prepare = [&](size_t i) {
      const auto& p = plan[first + i];
      if (encode_views && p.covers_whole_chunk) {
        NDBuffer view = input_part(i);  // host-accessible (device data was staged)
        if (view.size() > 0 && std::memcmp(view.data(), fill.data(), fill.size()) != 0) {
          chunks[i] = std::move(view);
          keep[i] = 1;
          return;
        }
      }
      NDBuffer chunk = NDBuffer::allocate(rep.data_type, metadata_->chunk_shape_at(p.coords));
      if (chunks[i].buffer().data())
        chunk.assign(chunks[i]);
      else
        chunk.fill(rep.fill_value);
      chunk_view(chunk, p).assign(input_part(i));
      chunks[i] = chunk;
      keep[i] = options_.write_empty_chunks || !holds_only(chunk, rep.fill_value);
    };

    if (fused) {
      // Each chunk (or shard) is prepared, encoded into scratch memory and written by one task:
      // no batch of encoded chunks is held, and the writes of some overlap the encoding of
      // others.
      parallel_for(n, [&](size_t i) {
        prepare(i);
        const NDBuffer chunk = std::move(chunks[i]);  // freed when the task ends
        if (keep[i])
          encode_and_store(keys[i], chunk);
        else
          store_->erase(keys[i]);
      });
      continue;
    }
    parallel_for(n, prepare);

    std::vector<size_t> to_store;
    std::vector<Index> to_store_coords;
    std::vector<NDBuffer> to_encode;
    for (size_t i = 0; i < n; ++i) {
      if (keep[i]) {
        to_store.push_back(i);
        to_store_coords.push_back(plan[first + i].coords);
        to_encode.push_back(chunks[i]);
      } else {
        store_->erase(keys[i]);
      }
    }
    std::vector<Buffer> encoded(to_encode.size());
    std::vector<ChunkStatus> status(to_encode.size());
    encode_batch(to_store_coords, to_encode, encoded, status);
    throw_if_failed(
        status, [&](size_t j) { return fmt::format("chunk \"{}\" (encode)", keys[to_store[j]]); });
    parallel_for(to_store.size(), [&](size_t j) {
      // A shard whose inner chunks are all empty encodes to nothing: nothing to store.
      if (encoded[j].empty() && sharding_)
        store_->erase(keys[to_store[j]]);
      else
        store_->set(keys[to_store[j]], encoded[j].bytes());
    });
  }
}

}  // namespace cuzarr
