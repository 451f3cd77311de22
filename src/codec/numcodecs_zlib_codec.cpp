#include "cuzarr/codec/numcodecs_zlib_codec.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "codec \"numcodecs.zlib\"";
constexpr int kZlibWindowBits = 15;  // RFC 1950 wrapper, 32 KiB window (Python's zlib default)
constexpr size_t kMaxStep = std::numeric_limits<uInt>::max();

std::string zlib_message(const z_stream& stream, int code) {
  if (stream.msg != nullptr) return stream.msg;
  return fmt::format("zlib error {}", code);
}

struct Deflater {
  z_stream stream{};
  explicit Deflater(int level) {
    const int rc = deflateInit2(&stream, level, Z_DEFLATED, kZlibWindowBits, 8, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK)
      throw InvalidArgumentError(fmt::format("{}: deflateInit2 failed ({})", kName, rc));
  }
  ~Deflater() { deflateEnd(&stream); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
};

struct Inflater {
  z_stream stream{};
  Inflater() {
    const int rc = inflateInit2(&stream, kZlibWindowBits);
    if (rc != Z_OK) throw CorruptDataError(fmt::format("{}: inflateInit2 failed ({})", kName, rc));
  }
  ~Inflater() { inflateEnd(&stream); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

Buffer zlib_compress(std::span<const std::byte> data, int level) {
  Deflater d(level);
  Buffer out = Buffer::allocate(deflateBound(&d.stream, data.size()));
  d.stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  size_t in_left = data.size();
  size_t produced = 0;
  // avail_in/avail_out are 32-bit: feed large chunks in steps.
  for (;;) {
    const size_t in_step = std::min(in_left, kMaxStep);
    d.stream.avail_in = static_cast<uInt>(in_step);
    d.stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    d.stream.avail_out = static_cast<uInt>(std::min(out.size() - produced, kMaxStep));
    const uInt avail_out_before = d.stream.avail_out;
    const int rc = deflate(&d.stream, in_step == in_left ? Z_FINISH : Z_NO_FLUSH);
    in_left -= in_step - d.stream.avail_in;
    produced += avail_out_before - d.stream.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw InvalidArgumentError(
          fmt::format("{}: deflate failed: {}", kName, zlib_message(d.stream, rc)));
    }
    if (produced == out.size())
      throw InvalidArgumentError(fmt::format("{}: deflate output exceeded its bound", kName));
  }
  return out.slice(0, produced);
}

Buffer zlib_decompress(std::span<const std::byte> data, const ChunkRepresentation& decoded) {
  if (data.empty())
    throw CorruptDataError(fmt::format("{}: empty input is not a zlib stream", kName));
  DecodeOutput output(static_cast<size_t>(decoded.nbytes()) + 64, decoded_size_limit(decoded),
                      kName);
  Inflater inf;
  inf.stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
  size_t in_left = data.size();
  size_t produced = 0;
  for (;;) {
    if (produced == output.capacity()) output.grow(produced);
    const size_t in_step = std::min(in_left, kMaxStep);
    const size_t out_step = std::min(output.capacity() - produced, kMaxStep);
    inf.stream.avail_in = static_cast<uInt>(in_step);
    inf.stream.next_out = reinterpret_cast<Bytef*>(output.data() + produced);
    inf.stream.avail_out = static_cast<uInt>(out_step);
    const int rc = inflate(&inf.stream, Z_NO_FLUSH);
    in_left -= in_step - inf.stream.avail_in;
    produced += out_step - inf.stream.avail_out;
    // One stream only: whatever follows its Adler-32 trailer is ignored, as zlib.decompress does.
    if (rc == Z_STREAM_END) break;
    if (rc == Z_NEED_DICT)
      throw CorruptDataError(fmt::format("{}: stream needs a preset dictionary", kName));
    if (rc == Z_DATA_ERROR || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR) {
      throw CorruptDataError(fmt::format("{}: {}", kName, zlib_message(inf.stream, rc)));
    }
    if (in_left == 0 && inf.stream.avail_in == 0 && produced < output.capacity()) {
      throw CorruptDataError(
          fmt::format("{}: stream truncated after {} input bytes", kName, data.size()));
    }
  }
  return output.finish(produced);
}

}  // namespace

NumcodecsZlibCodec::NumcodecsZlibCodec(int level) : level_(level) {
  if (level < -1 || level > 9) {
    throw InvalidArgumentError(
        fmt::format("{}: \"level\" must be in [-1, 9], got {}", kName, level));
  }
}

std::shared_ptr<NumcodecsZlibCodec> NumcodecsZlibCodec::create(const nlohmann::json& configuration,
                                                               const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.zlib", configuration, {"level"});
  return std::make_shared<NumcodecsZlibCodec>(
      static_cast<int>(config.integer("level", -1, 9).value_or(1)));
}

nlohmann::json NumcodecsZlibCodec::to_json() const {
  return {{"name", "numcodecs.zlib"}, {"configuration", {{"level", level_}}}};
}

void NumcodecsZlibCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.zlib", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = zlib_compress(in[i].bytes(), level_); });
}

void NumcodecsZlibCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                const ChunkRepresentation& decoded,
                                std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.zlib", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = zlib_decompress(in[i].bytes(), decoded); });
}

}  // namespace cuzarr
