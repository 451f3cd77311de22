// The Zarr v3 "blosc" codec (bytes -> bytes), c-blosc 1.x format.
#pragma once

#include <memory>
#include <string>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class BloscCodec final : public BytesToBytesCodec {
 public:
  enum class Shuffle { noshuffle, shuffle, bitshuffle };

  /// Resolves {"cname", "clevel", "shuffle", "typesize", "blocksize"} for chunks of `decoded`.
  /// Defaults follow zarr-python: cname "zstd", clevel 5, typesize = the data type's size,
  /// shuffle "bitshuffle" for one-byte types and "shuffle" otherwise, blocksize 0 (automatic).
  /// Throws UnsupportedError naming an unknown "cname" (or one this c-blosc build lacks),
  /// InvalidArgumentError naming the field for any other bad value, and UnsupportedError
  /// "blosc support was not built" when cuzarr was built without c-blosc.
  static std::shared_ptr<BloscCodec> create(const nlohmann::json& configuration,
                                            const ChunkRepresentation& decoded);
  /// False when cuzarr was built without c-blosc (then create() throws UnsupportedError).
  static bool available() noexcept;
  BloscCodec(std::string cname, int clevel, Shuffle shuffle, int64_t typesize, int64_t blocksize);

  std::string name() const override { return "blosc"; }
  /// Every field written explicitly.
  nlohmann::json to_json() const override;
  /// Compresses each chunk with blosc_compress_ctx (one internal thread: chunks already run in
  /// parallel). invalid_argument for inputs larger than blosc's 2 GB limit.
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// decoded_size + BLOSC_MAX_OVERHEAD.
  std::optional<size_t> encode_into_bound(size_t decoded_size) const override;
  /// Compresses one chunk into `out` (what encode() produces), one blosc thread.
  std::optional<size_t> encode_into(std::span<const std::byte> in,
                                    std::span<std::byte> out) const override;
  /// Validates each header against the input size before decompressing; corrupt_data for
  /// malformed input or a decoded size over decoded_size_limit(decoded). A batch of fewer chunks
  /// than cpu_threads() shares the spare threads among its chunks (blosc's internal threads).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes into `out` when the validated header records out.size() decoded bytes, with up to
  /// `threads` blosc internal threads.
  bool decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                   const ChunkRepresentation& decoded, size_t threads) const override;
  /// Decodes whole blocks at a time (pieces of about 512 KiB) into `sink`, one thread, with no
  /// chunk-sized buffer, when the validated header records `size` decoded bytes in blocks of
  /// whole items. CorruptDataError naming the failing byte range for a corrupt block.
  bool decode_to_sink(std::span<const std::byte> in, size_t size,
                      const DecodedBytesSink& sink) const override;
  /// Reads the chunk window by window: the header and block offsets, then the compressed blocks
  /// of each window of decoded bytes, decoded as a blosc chunk of their own (c-blosc format:
  /// every block is compressed on its own). Declines memcpyed chunks and offsets out of order.
  bool decode_stream_to_sink(size_t encoded_size, const EncodedBytesSource& source, size_t size,
                             const DecodedBytesSink& sink) const override;

  const std::string& cname() const { return cname_; }
  int clevel() const { return clevel_; }
  Shuffle shuffle() const { return shuffle_; }
  int64_t typesize() const { return typesize_; }
  int64_t blocksize() const { return blocksize_; }

 private:
  std::string cname_;
  int clevel_;
  Shuffle shuffle_;
  int64_t typesize_;
  int64_t blocksize_;
};

}  // namespace cuzarr
