#include "cuzarr/codec/gzip_codec.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr int kGzipWindowBits = 15 + 16;        // RFC 1952 wrapper
constexpr int kAutoDetectWindowBits = 15 + 32;  // gzip or zlib wrapper, detected from the header
constexpr size_t kMaxStep = std::numeric_limits<uInt>::max();

std::string zlib_message(const z_stream& stream, int code) {
  if (stream.msg != nullptr) return stream.msg;
  return fmt::format("zlib error {}", code);
}

// Owns a deflate or inflate stream.
struct Deflater {
  z_stream stream{};
  explicit Deflater(int level) {
    const int rc = deflateInit2(&stream, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK)
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("codec \"gzip\": deflateInit2 failed ({})", rc));
  }
  ~Deflater() { deflateEnd(&stream); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
};

struct Inflater {
  z_stream stream{};
  Inflater() {
    const int rc = inflateInit2(&stream, kAutoDetectWindowBits);
    if (rc != Z_OK)
      throw CorruptDataError(fmt::format("codec \"gzip\": inflateInit2 failed ({})", rc));
  }
  ~Inflater() { inflateEnd(&stream); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

Buffer gzip_compress(std::span<const std::byte> data, int level) {
  Deflater d(level);
  Buffer out = Buffer::allocate(deflateBound(&d.stream, data.size()));
  auto* next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  size_t in_left = data.size();
  size_t produced = 0;
  d.stream.next_in = next_in;
  // avail_in/avail_out are 32-bit: feed large chunks in steps.
  for (;;) {
    const size_t in_step = std::min(in_left, kMaxStep);
    d.stream.avail_in = static_cast<uInt>(in_step);
    d.stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    d.stream.avail_out = static_cast<uInt>(std::min(out.size() - produced, kMaxStep));
    const uInt avail_out_before = d.stream.avail_out;
    const int flush = in_step == in_left ? Z_FINISH : Z_NO_FLUSH;
    const int rc = deflate(&d.stream, flush);
    in_left -= in_step - d.stream.avail_in;
    produced += avail_out_before - d.stream.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("codec \"gzip\": deflate failed: {}", zlib_message(d.stream, rc)));
    }
    if (produced == out.size())
      throw Error(ErrorCode::invalid_argument, "codec \"gzip\": deflate output exceeded its bound");
  }
  return out.slice(0, produced);
}

Buffer gzip_decompress(std::span<const std::byte> data, const ChunkRepresentation& decoded) {
  if (data.empty()) throw CorruptDataError("codec \"gzip\": empty input is not a gzip stream");
  const size_t limit = decoded_size_limit(decoded);
  DecodeOutput output(static_cast<size_t>(decoded.nbytes()) + 64, limit, "codec \"gzip\"");
  Inflater inf;
  auto* next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  size_t in_left = data.size();
  size_t produced = 0;
  inf.stream.next_in = next_in;
  while (true) {
    if (produced == output.capacity()) output.grow(produced);
    const size_t in_step = std::min(in_left, kMaxStep);
    const size_t out_step = std::min(output.capacity() - produced, kMaxStep);
    inf.stream.avail_in = static_cast<uInt>(in_step);
    inf.stream.next_out = reinterpret_cast<Bytef*>(output.data() + produced);
    inf.stream.avail_out = static_cast<uInt>(out_step);
    const int rc = inflate(&inf.stream, Z_NO_FLUSH);
    in_left -= in_step - inf.stream.avail_in;
    produced += out_step - inf.stream.avail_out;
    if (rc == Z_STREAM_END) {
      if (in_left == 0) break;
      // RFC 1952, section 2.2: a gzip file is a series of members; decode the next one.
      if (inflateReset(&inf.stream) != Z_OK)
        throw CorruptDataError("codec \"gzip\": inflateReset failed");
      continue;
    }
    if (rc == Z_NEED_DICT)
      throw CorruptDataError("codec \"gzip\": stream needs a preset dictionary");
    if (rc == Z_DATA_ERROR || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR) {
      throw CorruptDataError(fmt::format("codec \"gzip\": {}", zlib_message(inf.stream, rc)));
    }
    // Z_OK or Z_BUF_ERROR: progress stalls only when input ran out before the member ended.
    const bool output_full = produced == output.capacity();
    if (in_left == 0 && !output_full && inf.stream.avail_in == 0) {
      throw CorruptDataError(
          fmt::format("codec \"gzip\": stream truncated after {} input bytes", data.size()));
    }
  }
  return output.finish(produced);
}

}  // namespace

GzipCodec::GzipCodec(int level) : level_(level) {
  if (level < 0 || level > 9)
    throw InvalidArgumentError(
        fmt::format("codec \"gzip\": \"level\" must be in [0, 9], got {}", level));
}

std::shared_ptr<GzipCodec> GzipCodec::create(const nlohmann::json& configuration,
                                             const ChunkRepresentation&) {
  CodecConfiguration config("gzip", configuration, {"level"});
  return std::make_shared<GzipCodec>(static_cast<int>(config.integer("level", 0, 9).value_or(5)));
}

nlohmann::json GzipCodec::to_json() const {
  return {{"name", "gzip"}, {"configuration", {{"level", level_}}}};
}

void GzipCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                       const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("gzip", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = gzip_compress(in[i].bytes(), level_); });
}

void GzipCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                       const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes("gzip", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = gzip_decompress(in[i].bytes(), decoded); });
}

}  // namespace cuzarr
