// The encode step of writes from device memory on the GPU: for chains whose bytes -> bytes codecs
// all have GPU encoders (numcodecs.lz4, blosc with lz4 blocks, numcodecs.shuffle, crc32c), the
// chunks are encoded in device memory by the batched kernels, codec after codec, and only the
// encoded bytes are copied to the host for the store. The chunks decode with the CPU codecs
// (the GPU LZ4 encoder is not byte-identical to liblz4, but its blocks are valid LZ4).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/codec_placement.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

class DeviceChunkEncoder {
 public:
  /// How the GPU encodes one bytes -> bytes codec (one per codec of the chain, inner first).
  struct Step;

  /// The GPU encoder of chunks of `chain`, or null when the chain stays on the CPU: it is not
  /// [bytes (little endian)] followed by GPU-encodable codecs only, a codec's placement is not
  /// gpu (automatic placement encodes on the CPU: see docs/gpu_codecs.md), or the build has no
  /// CUDA. Logs once why a chain whose codecs are placed on the GPU stays on the CPU.
  static std::unique_ptr<DeviceChunkEncoder> for_chain(const CodecChain& chain,
                                                       const CodecPlacement& placement);
  ~DeviceChunkEncoder();

  /// Encodes `chunks` (device memory, each the chain's whole chunk in C order) on `stream` and
  /// waits for it. Returns each chunk's encoded bytes in host-accessible memory. Throws
  /// InvalidArgumentError naming labels[i] and the codec when a kernel fails to encode chunk i,
  /// CudaError when the GPU work fails.
  std::vector<Buffer> encode(std::span<const Buffer> chunks, std::span<const std::string> labels,
                             const Stream& stream) const;

  /// The codec names, inner first (for messages).
  std::string describe() const;

 private:
  DeviceChunkEncoder() = default;
  std::vector<std::unique_ptr<Step>> steps_;
};

}  // namespace cuzarr
