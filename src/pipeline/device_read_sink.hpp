// The decode and scatter steps of a read into device memory. For each batch: the CPU runs the
// bytes -> bytes codecs that have no GPU decoder (the outer ones of a chain, see ChainPlan) and
// packs what remains of each chunk into one pinned staging buffer; one host-to-device copy moves
// the batch (with the pointer tables of the GPU codecs); the GPU codecs run as batched kernels,
// then numcodecs.delta on the array bytes where it is the chain's last array -> array codec; one
// kernel places every chunk (byte-swapped for big-endian "bytes", seen through "transpose") into
// its region of the output, and the fill value into the regions of missing chunks. Chunks that
// land contiguously in the output are copied there directly. Chunks that decode entirely on the
// GPU are copied to the device as each read lands (upload_early), before their batch is
// submitted. Batches overlap: the CPU work of batch k+1 overlaps the copies and kernels of the
// batches before it, the host-to-device copies of batch k+1 (on a stream of their own) overlap
// their kernels, and the kernels of up to `concurrent_batches` batches run at once, each batch on
// the next of as many kernel streams (a batch of a few large chunks leaves most of a GPU idle
// while its kernels wait on their longest chunks; the next batch's kernels fill it).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/codec_placement.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/stream.hpp"
#include "pipeline/chunk_read_batch.hpp"
#include "pipeline/stream_stage_timer.hpp"

namespace cuzarr {

class DeviceReadSink {
 public:
  /// `out` is the whole output (full result shape, device memory); `fill_value` one element;
  /// `placement` says which codecs may decode on the GPU; the kernels of up to
  /// `concurrent_batches` batches (0 counts as 1) run at the same time, the first batch's on
  /// `stream`.
  DeviceReadSink(NDBuffer out, std::vector<std::byte> fill_value, Stream stream,
                 CodecPlacement placement, size_t concurrent_batches);
  /// Waits for the queued work (errors are dropped here; call finish() to see them).
  ~DeviceReadSink();
  DeviceReadSink(const DeviceReadSink&) = delete;
  DeviceReadSink& operator=(const DeviceReadSink&) = delete;

  /// True when the GPU takes chunks of `chain` as their array bytes: the chain is "bytes" with
  /// only "transpose" codecs before it, or with "numcodecs.delta" (dtype == astype, a numeric
  /// type, native byte order) as the last of them when its placement allows the GPU: that delta
  /// then decodes on the GPU. Other chains are decoded whole on the CPU.
  bool stages_array_bytes(const CodecChain& chain);
  /// True when chunks of `chain` reach the GPU still encoded and every bytes -> bytes codec of it
  /// decodes there (per the placement): the CPU never touches their bytes, so they may be
  /// fetched straight into pinned (or device) memory.
  bool decodes_entirely_on_gpu(const CodecChain& chain);
  /// True when chunks of `chain` may go to the device as soon as they are read (upload_early):
  /// they decode entirely on the GPU through at least one GPU codec, none of them blosc (whose
  /// chunks the CPU decodes when their inner codec has no GPU decoder).
  bool uploads_early(const CodecChain& chain);
  /// Queues the copy of a chunk's pinned bytes to device memory on the copy stream and returns the
  /// device bytes (which keep `pinned` alive), for submit() to decode in place: the fetching
  /// threads call it as each read lands, so that a batch's copies overlap its reads and the last
  /// batch's kernels start once its reads are done. Calls may run at once (not with submit());
  /// bytes that are not pinned, or empty, come back as they are.
  Buffer upload_early(Buffer pinned);

  /// Decodes on the CPU what must be, queues this batch's copies, waits for the GPU work of the
  /// batch that last used the next kernel stream, then queues this batch's kernels there. Throws an
  /// Error naming the chunk for a bad chunk.
  void submit(ChunkReadBatch& batch);
  /// Waits until every submitted batch is in `out`; throws CudaError when the GPU work failed,
  /// CorruptDataError naming the chunk when a GPU codec rejected one.
  void finish();

  /// How chunks of one chain are decoded: bytes -> bytes codecs [0, gpu_steps) on the GPU (the
  /// inner ones), the others on the CPU.
  struct ChainPlan;

 private:
  const ChainPlan& plan_for(const CodecChain& chain);
  /// Waits for the work queued on kernel stream `s`, releases the buffers of the batches that ran
  /// there and throws for their chunks whose GPU decode failed.
  void retire(size_t s);
  /// retire() of every kernel stream, from `oldest` (that of the batch queued longest ago) on,
  /// so that the first failing batch in read order is the one reported.
  void retire_all(size_t oldest);

  NDBuffer out_;
  std::vector<std::byte> fill_value_;
  /// Kernels, device-to-device copies and the reports of batch k run on kernel_streams_[k % n].
  std::vector<Stream> kernel_streams_;
  size_t next_stream_ = 0;
  /// Host-to-device copies; a kernel stream waits for them before a batch's kernels.
  Stream copy_stream_;
  /// Orders upload_early's calls (their copies and timing events on the copy stream).
  std::mutex upload_mutex_;
  CodecPlacement placement_;
  /// The buffers of the batches whose copies or kernels may still run, with their kernel stream
  /// (at most concurrent_batches + 1 batches).
  struct InFlight {
    size_t stream = 0;
    bool queueing = false;  // the batch being queued: its stream's earlier work is not its own
    std::vector<Buffer> buffers;
  };
  std::vector<InFlight> in_flight_;
  /// With stage times on: the GPU's time for the batches' copies, and for their kernels.
  StreamStageTimer copy_time_{"GPU: host-to-device copies"};
  StreamStageTimer kernel_time_{"GPU: decode and scatter"};
  std::map<const CodecChain*, std::shared_ptr<const ChainPlan>> plans_;
  struct GpuReport;
  /// Per kernel stream: the report of the last batch queued there, checked once it has run.
  std::vector<std::unique_ptr<GpuReport>> pending_reports_;
};

}  // namespace cuzarr
