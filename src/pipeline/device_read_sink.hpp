// The decode and scatter steps of a read into device memory. For each batch: the CPU runs the
// bytes -> bytes codecs that have no GPU decoder (the outer ones of a chain, see ChainPlan) and
// packs what remains of each chunk into one pinned staging buffer; one host-to-device copy moves
// the batch (with the pointer tables of the GPU codecs); the GPU codecs run as batched kernels,
// then numcodecs.delta on the array bytes where it is the chain's last array -> array codec; one
// kernel places every chunk (byte-swapped for big-endian "bytes", seen through "transpose") into
// its region of the output, and the fill value into the regions of missing chunks. Chunks that
// land contiguously in the output are copied there directly. Batches are double-buffered: the CPU
// work of batch k+1 overlaps the copies and kernels of batch k, and the host-to-device copies of
// batch k+1 (on a stream of their own) overlap the kernels of batch k.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
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
  /// `placement` says which codecs may decode on the GPU.
  DeviceReadSink(NDBuffer out, std::vector<std::byte> fill_value, Stream stream,
                 CodecPlacement placement = {});
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

  /// Decodes on the CPU what must be, waits for the previous batch's GPU work, then queues this
  /// batch's copies and scatter. Throws an Error naming the chunk for a bad chunk.
  void submit(ChunkReadBatch& batch);
  /// Waits until every submitted batch is in `out`; throws CudaError when the GPU work failed,
  /// CorruptDataError naming the chunk when a GPU codec rejected one.
  void finish();

  /// How chunks of one chain are decoded: bytes -> bytes codecs [0, gpu_steps) on the GPU (the
  /// inner ones), the others on the CPU.
  struct ChainPlan;

 private:
  const ChainPlan& plan_for(const CodecChain& chain);
  /// Throws for the chunks of the last batch whose GPU decode failed (after a stream sync).
  void check_gpu_statuses();

  NDBuffer out_;
  std::vector<std::byte> fill_value_;
  Stream stream_;       // kernels, device-to-device copies, the reports
  Stream copy_stream_;  // host-to-device copies; stream_ waits for them before a batch's kernels
  CodecPlacement placement_;
  /// The buffers of the batches whose copies or kernels may still run (at most two batches).
  std::vector<std::vector<Buffer>> in_flight_;
  /// With stage times on: the GPU's time for the batches' copies, and for their kernels.
  StreamStageTimer copy_time_{"GPU: host-to-device copies"};
  StreamStageTimer kernel_time_{"GPU: decode and scatter"};
  std::map<const CodecChain*, std::shared_ptr<const ChainPlan>> plans_;
  struct GpuReport;
  std::unique_ptr<GpuReport> pending_report_;
};

}  // namespace cuzarr
