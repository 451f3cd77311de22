// The chunk pipeline of one array: plan -> fetch a batch -> decode the batch -> scatter (read),
// and gather -> encode the batch -> store (write). Sharded arrays are read partially: only the
// shard indexes and the inner chunks the selection needs are fetched, nearby ranges coalesced.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/codec_placement.hpp"
#include "cuzarr/codec/sharding_codec.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/pipeline/chunk_plan.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

struct ChunkReadBatch;

struct PipelineOptions {
  /// Decoded bytes a batch may hold; a batch has at least one chunk.
  uint64_t batch_bytes = uint64_t{256} << 20;
  /// Batches of a read into device memory whose GPU decoding may run at the same time (at least
  /// 1; bench/RESULTS.md has the numbers that chose 3).
  size_t concurrent_device_batches = 3;
  /// Reads of one shard whose gap is at most this many bytes are merged into one read.
  uint64_t coalesce_gap_bytes = uint64_t{64} << 10;
  /// Store chunks that hold only the fill value (default: erase them).
  bool write_empty_chunks = false;
  /// Where the codecs run for data in device memory (reads into and writes from it). nullopt:
  /// reads decode as the environment variable CUZARR_GPU_DECODE says (default auto), writes
  /// encode as auto (on the CPU). See CodecPlacement and docs/gpu_codecs.md.
  std::optional<CodecPlacement> codec_placement;
  /// The placement of decoders: codec_placement, or the environment's when it is not set.
  const CodecPlacement& effective_codec_placement() const {
    return codec_placement ? *codec_placement : codec_placement_from_environment();
  }
};

class ChunkPipeline {
 public:
  /// `key_prefix` is the array's path in the store ("" or "a/b"). Resolves the codec chain; throws
  /// what CodecChain::create throws.
  ChunkPipeline(std::shared_ptr<Store> store, std::string key_prefix,
                std::shared_ptr<const ArrayMetadata> metadata, PipelineOptions options = {});

  /// Reads `selection` into `out`, whose shape is selection.full_result_shape() (dropped
  /// dimensions kept with extent 1). Throws an Error naming the chunk key on a bad chunk.
  void read(const NormalizedSelection& selection, const NDBuffer& out) const;
  /// Writes `in` (shape selection.full_result_shape()) to `selection`.
  void write(const NormalizedSelection& selection, const NDBuffer& in) const;

  /// The store key of the chunk at `coords`.
  std::string chunk_key(std::span<const int64_t> coords) const;
  const CodecChain& chain() const { return *chain_; }
  /// The sharding codec when the codecs are exactly [sharding_indexed], else null.
  const ShardingCodec* sharding() const { return sharding_; }
  /// With sharding(): why a stored shard of `size` bytes cannot be read (shorter than its index,
  /// an empty one included; the sharding codec itself takes an empty value for a shard of fill
  /// value, which is never stored), else nullopt.
  std::optional<std::string> stored_shard_problem(uint64_t size) const;
  const ChunkRepresentation& chunk_representation() const {
    return chain_->decoded_representation();
  }
  const PipelineOptions& options() const { return options_; }
  /// Decodes a batch of encoded chunks (or shards) at grid positions `coords` with the chain of
  /// each one's shape; `decoded[i]`, when given, is the destination. Failures land in `status`.
  void decode_batch(std::span<const Index> coords, std::vector<Buffer>& encoded,
                    std::vector<NDBuffer>& decoded, std::vector<ChunkStatus>& status) const;

 private:
  std::vector<PlannedChunk> plan(const NormalizedSelection& selection) const;
  /// The codec chain for the chunk at `coords` (one per chunk shape on a rectilinear grid).
  const CodecChain& chain_for(std::span<const int64_t> coords) const;
  /// Runs `work` once per distinct chain over the indices of `coords` it serves.
  void for_each_chain(
      std::span<const Index> coords,
      const std::function<void(const CodecChain&, std::span<const size_t>)>& work) const;
  void encode_batch(std::span<const Index> coords, const std::vector<NDBuffer>& chunks,
                    std::vector<Buffer>& encoded, std::vector<ChunkStatus>& status) const;
  /// How chunks are fetched: into memory of `kind`, each then passed through `hand_off` (when
  /// set) by the thread that read it, as soon as it is read (a read into device memory queues the
  /// chunk's copy to the GPU there).
  struct Fetch {
    MemoryKind kind = MemoryKind::host;
    std::function<Buffer(Buffer)> hand_off;
  };
  /// The values of `requests` fetched as `fetch` says; result i answers requests[i].
  std::vector<std::optional<Buffer>> fetch_values(std::span<const KeyRange> requests,
                                                  const Fetch& fetch) const;
  /// Fetch: hands each batch of encoded chunks (fetched as `fetch` says) to `sink`; batches are
  /// sized for `out`, the output.
  void read_regular(const NormalizedSelection& selection, const NDBuffer& out, const Fetch& fetch,
                    const std::function<void(ChunkReadBatch&)>& sink) const;
  void read_sharded(const NormalizedSelection& selection, const NDBuffer& out, const Fetch& fetch,
                    const std::function<void(ChunkReadBatch&)>& sink) const;
  /// Decode and scatter of a batch on the CPU, into a host-accessible `out`.
  void decode_and_scatter_on_host(ChunkReadBatch& batch, const NDBuffer& out) const;

  std::shared_ptr<Store> store_;
  std::string prefix_;
  std::shared_ptr<const ArrayMetadata> metadata_;
  PipelineOptions options_;
  std::shared_ptr<CodecChain> chain_;
  const ShardingCodec* sharding_ = nullptr;
  mutable std::mutex chains_mutex_;
  mutable std::map<Shape, std::shared_ptr<CodecChain>> chains_by_shape_;
};

}  // namespace cuzarr
