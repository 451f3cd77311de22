#include "cuzarr/codec/numcodecs_bz2_codec.hpp"

#include <bzlib.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "codec \"numcodecs.bz2\"";
constexpr size_t kMaxStep = std::numeric_limits<unsigned int>::max();

const char* bz2_error_name(int rc) {
  switch (rc) {
    case BZ_DATA_ERROR:
      return "data integrity error (corrupt stream or bad CRC)";
    case BZ_DATA_ERROR_MAGIC:
      return "not a bzip2 stream (bad magic)";
    case BZ_MEM_ERROR:
      return "out of memory";
    case BZ_PARAM_ERROR:
      return "bad parameter";
    case BZ_SEQUENCE_ERROR:
      return "sequence error";
    default:
      return "unexpected error";
  }
}

struct Compressor {
  bz_stream stream{};
  explicit Compressor(int level) {
    // workFactor 0 selects libbz2's default (30), as Python's bz2 module does.
    const int rc = BZ2_bzCompressInit(&stream, level, 0, 0);
    if (rc != BZ_OK)
      throw InvalidArgumentError(
          fmt::format("{}: BZ2_bzCompressInit failed: {}", kName, bz2_error_name(rc)));
  }
  ~Compressor() { BZ2_bzCompressEnd(&stream); }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
};

struct Decompressor {
  bz_stream stream{};
  Decompressor() {
    const int rc = BZ2_bzDecompressInit(&stream, 0, 0);
    if (rc != BZ_OK)
      throw CorruptDataError(
          fmt::format("{}: BZ2_bzDecompressInit failed: {}", kName, bz2_error_name(rc)));
  }
  ~Decompressor() { BZ2_bzDecompressEnd(&stream); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
};

Buffer bz2_compress(std::span<const std::byte> data, int level) {
  Compressor c(level);
  // bzip2 expands incompressible data by at most 1% plus 600 bytes (bzlib manual, 3.3.1).
  DecodeOutput output(data.size() + data.size() / 100 + 601, std::numeric_limits<size_t>::max() / 2,
                      kName);
  c.stream.next_in = const_cast<char*>(reinterpret_cast<const char*>(data.data()));
  size_t in_left = data.size();
  size_t produced = 0;
  for (;;) {
    if (produced == output.capacity()) output.grow(produced);
    const size_t in_step = std::min(in_left, kMaxStep);
    const size_t out_step = std::min(output.capacity() - produced, kMaxStep);
    c.stream.avail_in = static_cast<unsigned int>(in_step);
    c.stream.next_out = reinterpret_cast<char*>(output.data() + produced);
    c.stream.avail_out = static_cast<unsigned int>(out_step);
    const int rc = BZ2_bzCompress(&c.stream, in_step == in_left ? BZ_FINISH : BZ_RUN);
    in_left -= in_step - c.stream.avail_in;
    produced += out_step - c.stream.avail_out;
    if (rc == BZ_STREAM_END) break;
    if (rc != BZ_RUN_OK && rc != BZ_FINISH_OK) {
      throw InvalidArgumentError(
          fmt::format("{}: compression failed: {}", kName, bz2_error_name(rc)));
    }
  }
  return output.finish(produced);
}

Buffer bz2_decompress(std::span<const std::byte> data, const ChunkRepresentation& decoded) {
  if (data.empty())
    throw CorruptDataError(fmt::format("{}: empty input is not a bzip2 stream", kName));
  DecodeOutput output(static_cast<size_t>(decoded.nbytes()) + 64, decoded_size_limit(decoded),
                      kName);
  size_t consumed = 0;
  size_t produced = 0;
  while (consumed < data.size()) {
    Decompressor d;
    d.stream.next_in = const_cast<char*>(reinterpret_cast<const char*>(data.data() + consumed));
    for (;;) {
      if (produced == output.capacity()) output.grow(produced);
      const size_t in_step = std::min(data.size() - consumed, kMaxStep);
      const size_t out_step = std::min(output.capacity() - produced, kMaxStep);
      d.stream.avail_in = static_cast<unsigned int>(in_step);
      d.stream.next_out = reinterpret_cast<char*>(output.data() + produced);
      d.stream.avail_out = static_cast<unsigned int>(out_step);
      const int rc = BZ2_bzDecompress(&d.stream);
      consumed += in_step - d.stream.avail_in;
      produced += out_step - d.stream.avail_out;
      if (rc == BZ_STREAM_END) break;
      if (rc != BZ_OK) throw CorruptDataError(fmt::format("{}: {}", kName, bz2_error_name(rc)));
      if (consumed == data.size() && produced < output.capacity()) {
        throw CorruptDataError(
            fmt::format("{}: stream truncated after {} input bytes", kName, data.size()));
      }
    }
    // Python's bz2.decompress decodes concatenated streams until the input is used up.
  }
  return output.finish(produced);
}

}  // namespace

NumcodecsBz2Codec::NumcodecsBz2Codec(int level) : level_(level) {
  if (level < 1 || level > 9)
    throw InvalidArgumentError(
        fmt::format("{}: \"level\" must be in [1, 9], got {}", kName, level));
}

std::shared_ptr<NumcodecsBz2Codec> NumcodecsBz2Codec::create(const nlohmann::json& configuration,
                                                             const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.bz2", configuration, {"level"});
  return std::make_shared<NumcodecsBz2Codec>(
      static_cast<int>(config.integer("level", 1, 9).value_or(1)));
}

nlohmann::json NumcodecsBz2Codec::to_json() const {
  return {{"name", "numcodecs.bz2"}, {"configuration", {{"level", level_}}}};
}

void NumcodecsBz2Codec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                               const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.bz2", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = bz2_compress(in[i].bytes(), level_); });
}

void NumcodecsBz2Codec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                               const ChunkRepresentation& decoded,
                               std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.bz2", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) { out[i] = bz2_decompress(in[i].bytes(), decoded); });
}

}  // namespace cuzarr
