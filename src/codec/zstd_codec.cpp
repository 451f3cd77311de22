#include "cuzarr/codec/zstd_codec.hpp"

#include <fmt/format.h>
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "codec/decode_window.hpp"
#include "codec/zstd_thread_contexts.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

void check_zstd(size_t rc, const char* what) {
  if (ZSTD_isError(rc))
    throw CorruptDataError(fmt::format("codec \"zstd\": {}: {}", what, ZSTD_getErrorName(rc)));
}

// Compresses `data` into `out` (at least ZSTD_compressBound(data.size()) bytes); returns the
// frame's size.
size_t zstd_compress_into(std::span<const std::byte> data, std::span<std::byte> out, int level,
                          bool checksum) {
  ZSTD_CCtx* cctx = zstd_thread_compression_context();
  auto setup = [&](size_t rc) {
    if (ZSTD_isError(rc)) {
      throw InvalidArgumentError(
          fmt::format("codec \"zstd\": bad compression parameter: {}", ZSTD_getErrorName(rc)));
    }
  };
  setup(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters));
  setup(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level));
  setup(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0));
  const size_t written = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(written)) {
    throw InvalidArgumentError(
        fmt::format("codec \"zstd\": compression failed: {}", ZSTD_getErrorName(written)));
  }
  return written;
}

Buffer zstd_compress(std::span<const std::byte> data, int level, bool checksum) {
  Buffer out = Buffer::allocate(ZSTD_compressBound(data.size()));
  return out.slice(0, zstd_compress_into(data, out.bytes(), level, checksum));
}

// Frames without a content size (streaming writers) or too large to trust: decode as a stream,
// growing the output as data actually comes out.
Buffer zstd_decompress_streaming(std::span<const std::byte> data,
                                 const ChunkRepresentation& decoded, size_t limit) {
  ZSTD_DCtx* dctx = zstd_thread_decompression_context();
  check_zstd(ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters), "reset");
  DecodeOutput output(static_cast<size_t>(decoded.nbytes()) + 64, limit, "codec \"zstd\"");
  ZSTD_inBuffer input{data.data(), data.size(), 0};
  size_t produced = 0;
  for (;;) {
    if (produced == output.capacity()) output.grow(produced);
    ZSTD_outBuffer out{output.data(), output.capacity(), produced};
    const size_t rc = ZSTD_decompressStream(dctx, &out, &input);
    check_zstd(rc, "decompression failed");
    produced = out.pos;
    // rc == 0: a frame is complete and flushed; another may follow (frames back to back).
    if (rc == 0 && input.pos == input.size) break;
    if (input.pos == input.size && out.pos < out.size) {
      throw CorruptDataError(
          fmt::format("codec \"zstd\": frame truncated after {} input bytes", data.size()));
    }
  }
  return output.finish(produced);
}

// The sum of the content sizes of every frame in `data`; ZSTD_CONTENTSIZE_UNKNOWN when a frame
// does not record its size, ZSTD_CONTENTSIZE_ERROR when a frame header is malformed.
unsigned long long total_content_size(std::span<const std::byte> data) {
  unsigned long long total = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    const unsigned long long size = ZSTD_getFrameContentSize(data.data() + pos, data.size() - pos);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return size;
    const size_t frame = ZSTD_findFrameCompressedSize(data.data() + pos, data.size() - pos);
    if (ZSTD_isError(frame) || frame == 0) return ZSTD_CONTENTSIZE_ERROR;
    if (total + size < total || total + size >= ZSTD_CONTENTSIZE_ERROR)
      return ZSTD_CONTENTSIZE_ERROR;
    total += size;
    pos += frame;
  }
  return total;
}

// Decompresses frames whose headers record `size` bytes in total into `out` (out.size() == size).
void zstd_decompress_known_size(std::span<const std::byte> data, std::span<std::byte> out) {
  const size_t got = ZSTD_decompressDCtx(zstd_thread_decompression_context(), out.data(),
                                         out.size(), data.data(), data.size());
  check_zstd(got, "decompression failed");
  if (got != out.size()) {
    throw CorruptDataError(
        fmt::format("codec \"zstd\": frame header claims {} bytes, decoded {}", out.size(), got));
  }
}

Buffer zstd_decompress(std::span<const std::byte> data, const ChunkRepresentation& decoded) {
  if (data.empty()) throw CorruptDataError("codec \"zstd\": empty input is not a zstd frame");
  const size_t limit = decoded_size_limit(decoded);
  const unsigned long long size = total_content_size(data);
  if (size == ZSTD_CONTENTSIZE_ERROR)
    throw CorruptDataError("codec \"zstd\": input is not a valid zstd frame");
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) return zstd_decompress_streaming(data, decoded, limit);
  if (size > limit) {
    throw CorruptDataError(
        fmt::format("codec \"zstd\": frame header claims {} bytes, more than the limit of {} bytes "
                    "for this chunk",
                    size, limit));
  }
  Buffer out = Buffer::allocate(static_cast<size_t>(size));
  zstd_decompress_known_size(data, out.bytes());
  return out;
}

}  // namespace

ZstdCodec::ZstdCodec(int level, bool checksum) : level_(level), checksum_(checksum) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    throw InvalidArgumentError(fmt::format("codec \"zstd\": \"level\" must be in [{}, {}], got {}",
                                           ZSTD_minCLevel(), ZSTD_maxCLevel(), level));
  }
}

std::shared_ptr<ZstdCodec> ZstdCodec::create(const nlohmann::json& configuration,
                                             const ChunkRepresentation&) {
  CodecConfiguration config("zstd", configuration, {"level", "checksum"});
  const auto level = config.integer("level", ZSTD_minCLevel(), ZSTD_maxCLevel()).value_or(0);
  return std::make_shared<ZstdCodec>(static_cast<int>(level),
                                     config.boolean("checksum").value_or(false));
}

nlohmann::json ZstdCodec::to_json() const {
  return {{"name", "zstd"}, {"configuration", {{"level", level_}, {"checksum", checksum_}}}};
}

void ZstdCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                       const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("zstd", in.size(), out.size(), status.size());
  for_each_chunk(status,
                 [&](size_t i) { out[i] = zstd_compress(in[i].bytes(), level_, checksum_); });
}

std::optional<size_t> ZstdCodec::encode_into_bound(size_t decoded_size) const {
  return ZSTD_compressBound(decoded_size);
}

std::optional<size_t> ZstdCodec::encode_into(std::span<const std::byte> in,
                                             std::span<std::byte> out) const {
  return zstd_compress_into(in, out, level_, checksum_);
}

void ZstdCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                       const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes("zstd", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = zstd_decompress(in[i].bytes(), decoded); });
}

bool ZstdCodec::decode_to_sink(std::span<const std::byte> in, size_t size,
                               const DecodedBytesSink& sink) const {
  if (in.empty() || total_content_size(in) != size) return false;
  thread_local std::vector<std::byte> piece(kDecodeWindowBytes);
  ZSTD_DCtx* dctx = zstd_thread_decompression_context();
  check_zstd(ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters), "reset");
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t delivered = 0;
  bool finished = false;
  while (!finished) {
    ZSTD_outBuffer out{piece.data(), piece.size(), 0};
    while (out.pos < out.size) {
      const size_t rc = ZSTD_decompressStream(dctx, &out, &input);
      check_zstd(rc, "decompression failed");
      if (input.pos == input.size) {
        if (rc == 0) {  // the last frame is complete and flushed
          finished = true;
          break;
        }
        if (out.pos < out.size) {  // room left, input gone, frame unfinished
          throw CorruptDataError(
              fmt::format("codec \"zstd\": frame truncated after {} input bytes", in.size()));
        }
      }
    }
    if (delivered + out.pos > size) {
      throw CorruptDataError(fmt::format(
          "codec \"zstd\": frames decode to more than the {} bytes their headers claim", size));
    }
    if (out.pos > 0) sink(std::span<const std::byte>(piece.data(), out.pos));
    delivered += out.pos;
  }
  if (delivered != size) {
    throw CorruptDataError(
        fmt::format("codec \"zstd\": frame headers claim {} bytes, decoded {}", size, delivered));
  }
  return true;
}

bool ZstdCodec::decode_stream_to_sink(size_t encoded_size, const EncodedBytesSource& source,
                                      size_t size, const DecodedBytesSink& sink) const {
  if (encoded_size == 0) return false;
  thread_local std::vector<std::byte> input_buffer(kDecodeWindowBytes);
  thread_local std::vector<std::byte> output_buffer(kDecodeWindowBytes);
  size_t read = 0;  // encoded bytes taken from `source`
  ZSTD_inBuffer input{input_buffer.data(), 0, 0};
  const auto refill = [&] {
    const size_t want = std::min(input_buffer.size(), encoded_size - read);
    const size_t got = source(std::span(input_buffer.data(), want));
    if (got == 0 || got > want) {
      throw CorruptDataError(fmt::format("codec \"zstd\": the input ended after {} of its {} bytes",
                                         read, encoded_size));
    }
    read += got;
    input = {input_buffer.data(), got, 0};
  };
  refill();
  // Zstandard frame format (RFC 8878, 3.1.1): the first frame's header says whether it records
  // its content size. Frames back to back must decode to exactly `size` bytes in all.
  const unsigned long long first = ZSTD_getFrameContentSize(input_buffer.data(), input.size);
  if (first == ZSTD_CONTENTSIZE_ERROR || first == ZSTD_CONTENTSIZE_UNKNOWN || first > size)
    return false;
  ZSTD_DCtx* dctx = zstd_thread_decompression_context();
  check_zstd(ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters), "reset");
  const auto input_gone = [&] { return input.pos == input.size && read == encoded_size; };
  size_t delivered = 0;
  bool finished = false;
  while (!finished) {
    ZSTD_outBuffer out{output_buffer.data(), output_buffer.size(), 0};
    while (out.pos < out.size) {
      if (input.pos == input.size && read < encoded_size) refill();
      const size_t rc = ZSTD_decompressStream(dctx, &out, &input);
      check_zstd(rc, "decompression failed");
      if (input_gone()) {
        if (rc == 0) {  // the last frame is complete and flushed
          finished = true;
          break;
        }
        if (out.pos < out.size) {  // room left, input gone, frame unfinished
          throw CorruptDataError(
              fmt::format("codec \"zstd\": frame truncated after {} input bytes", encoded_size));
        }
      }
    }
    if (delivered + out.pos > size) {
      throw CorruptDataError(
          fmt::format("codec \"zstd\": frames decode to more than the chunk's {} bytes", size));
    }
    if (out.pos > 0) sink(std::span<const std::byte>(output_buffer.data(), out.pos));
    delivered += out.pos;
  }
  if (delivered != size) {
    throw CorruptDataError(fmt::format(
        "codec \"zstd\": frames decode to {} bytes, the chunk has {}", delivered, size));
  }
  return true;
}

bool ZstdCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                            const ChunkRepresentation&, size_t) const {
  // Only frames that record their size, and exactly out.size(): anything else goes through
  // decode(), which checks sizes against the chunk's limit and streams unknown sizes.
  if (in.empty() || total_content_size(in) != out.size()) return false;
  zstd_decompress_known_size(in, out);
  return true;
}

}  // namespace cuzarr
