#include "codec/cuda/device_bytes_decoder.hpp"

#include "cuzarr/codec/blosc_codec.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include "codec/cuda/blosc_inner_streams.hpp"
#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/shuffle_kernels.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "cuzarr/codec/crc32c_codec.hpp"
#include "cuzarr/codec/gzip_codec.hpp"
#include "cuzarr/codec/numcodecs_gzip_codec.hpp"
#include "cuzarr/codec/numcodecs_lz4_codec.hpp"
#include "cuzarr/codec/numcodecs_shuffle_codec.hpp"
#include "cuzarr/codec/numcodecs_zlib_codec.hpp"
#include "cuzarr/codec/zstd_codec.hpp"
#endif

namespace cuzarr::gpu {

bool decodes_on_gpu(const DeviceBytesDecoder& decoder, Placement placement,
                    std::optional<uint64_t> decoded_bytes) {
  if (placement == Placement::cpu) return false;
  if (placement == Placement::gpu) return true;
  return !decoded_bytes || *decoded_bytes <= decoder.automatic_chunk_limit();
}

bool blosc_inner_streams_on_gpu(const BloscCodec& codec) {
  return codec.cname() == "zstd" || codec.cname() == "zlib";
}

#if defined(CUZARR_HAVE_CUDA)
namespace {

// Arrays whose blosc codec names zstd or zlib (zarr-python's default is zstd) take the inner
// stream path, which waits for the stream once per batch to read the chunk headers; the others
// keep the lz4-family kernel alone, which never waits (their rare zstd / zlib chunks are sent to
// the CPU by the read pipeline, see blosc_inner_streams_on_gpu).
class BloscDeviceDecoder final : public DeviceBytesDecoder {
 public:
  explicit BloscDeviceDecoder(bool inner_streams) : inner_streams_(inner_streams) {}
  std::optional<uint64_t> decoded_size_from(uint64_t) const override { return std::nullopt; }
  size_t temp_bytes(size_t count, uint64_t max_output) const override {
    return inner_streams_ ? blosc_inner_streams_decode_temp_bytes(count, max_output)
                          : blosc_decode_temp_bytes(count, max_output);
  }
  void decode(const DeviceChunkBatch& batch, void* temp, uint64_t max_output,
              Stream stream) const override {
    if (inner_streams_) {
      blosc_inner_streams_decode_batch(batch, temp, max_output, stream);
    } else {
      blosc_decode_batch(batch, temp, max_output, stream);
    }
  }

 private:
  bool inner_streams_;
};

// numcodecs.lz4 stores a chunk as one LZ4 block: chunks of 256 KiB and more decode
// block-parallel (many warps per chunk), smaller ones one warp per chunk.
class NumcodecsLz4DeviceDecoder final : public DeviceBytesDecoder {
 public:
  std::optional<uint64_t> decoded_size_from(uint64_t) const override { return std::nullopt; }
  size_t temp_bytes(size_t count, uint64_t max_output) const override {
    return lz4_decode_temp_bytes(count, max_output);
  }
  void decode(const DeviceChunkBatch& batch, void* temp, uint64_t max_output,
              Stream stream) const override {
    numcodecs_lz4_decode_batch(batch, max_output, temp, stream);
  }
};

// Zarr v3 "zstd" and numcodecs' "zstd" (both ZstdCodec): frames back to back, checksums verified.
class ZstdDeviceDecoder final : public DeviceBytesDecoder {
 public:
  std::optional<uint64_t> decoded_size_from(uint64_t) const override { return std::nullopt; }
  size_t temp_bytes(size_t count, uint64_t max_output) const override {
    return zstd_decode_temp_bytes(count, max_output);
  }
  void decode(const DeviceChunkBatch& batch, void* temp, uint64_t max_output,
              Stream stream) const override {
    zstd_decode_batch(batch, true, max_output, temp, stream);
  }
};

class Crc32cDeviceDecoder final : public DeviceBytesDecoder {
 public:
  std::optional<uint64_t> decoded_size_from(uint64_t encoded_size) const override {
    return encoded_size >= 4 ? encoded_size - 4 : 0;
  }
  size_t temp_bytes(size_t count, uint64_t) const override {
    return crc32c_codec_temp_bytes(count);
  }
  void decode(const DeviceChunkBatch& batch, void* temp, uint64_t, Stream stream) const override {
    crc32c_decode_batch(batch, temp, stream);
  }
};

/// gzip (Zarr v3 "gzip", numcodecs.gzip: gzip members, zlib streams accepted as the CPU codec
/// does) and numcodecs.zlib (one zlib stream).
class InflateDeviceDecoder final : public DeviceBytesDecoder {
 public:
  explicit InflateDeviceDecoder(DeflateWrapper wrapper) : wrapper_(wrapper) {}
  std::optional<uint64_t> decoded_size_from(uint64_t) const override { return std::nullopt; }
  size_t temp_bytes(size_t count, uint64_t max_output) const override {
    return inflate_temp_bytes(count, max_output);
  }
  void decode(const DeviceChunkBatch& batch, void* temp, uint64_t max_output,
              Stream stream) const override {
    inflate_batch(batch, wrapper_, true, max_output, temp, stream);
  }

 private:
  DeflateWrapper wrapper_;
};

class UnshuffleDeviceDecoder final : public DeviceBytesDecoder {
 public:
  explicit UnshuffleDeviceDecoder(uint32_t element_size) : element_size_(element_size) {}
  std::optional<uint64_t> decoded_size_from(uint64_t encoded_size) const override {
    return encoded_size;
  }
  void decode(const DeviceChunkBatch& batch, void*, uint64_t, Stream stream) const override {
    unshuffle_batch(batch, element_size_, stream);
  }

 private:
  uint32_t element_size_;
};

}  // namespace

std::unique_ptr<DeviceBytesDecoder> make_device_decoder(const BytesToBytesCodec& codec) {
  if (const auto* blosc = dynamic_cast<const BloscCodec*>(&codec))
    return std::make_unique<BloscDeviceDecoder>(blosc_inner_streams_on_gpu(*blosc));
  if (dynamic_cast<const NumcodecsLz4Codec*>(&codec))
    return std::make_unique<NumcodecsLz4DeviceDecoder>();
  if (dynamic_cast<const Crc32cCodec*>(&codec)) return std::make_unique<Crc32cDeviceDecoder>();
  if (dynamic_cast<const ZstdCodec*>(&codec)) return std::make_unique<ZstdDeviceDecoder>();
  if (dynamic_cast<const GzipCodec*>(&codec) || dynamic_cast<const NumcodecsGzipCodec*>(&codec))
    return std::make_unique<InflateDeviceDecoder>(DeflateWrapper::gzip_or_zlib);
  if (dynamic_cast<const NumcodecsZlibCodec*>(&codec))
    return std::make_unique<InflateDeviceDecoder>(DeflateWrapper::zlib);
  if (const auto* shuffle = dynamic_cast<const NumcodecsShuffleCodec*>(&codec)) {
    if (shuffle->elementsize() > 1 && shuffle->elementsize() < (int64_t{1} << 31))
      return std::make_unique<UnshuffleDeviceDecoder>(
          static_cast<uint32_t>(shuffle->elementsize()));
  }
  return nullptr;
}
#else
std::unique_ptr<DeviceBytesDecoder> make_device_decoder(const BytesToBytesCodec&) {
  return nullptr;
}
#endif

}  // namespace cuzarr::gpu
