#include "cuzarr/codec/numcodecs_lzma_codec.hpp"

#include <fmt/format.h>
#include <lzma.h>

#include <algorithm>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "codec \"numcodecs.lzma\"";
constexpr uint32_t kExtremeFlag =
    0x80000000u;  // Python's lzma.PRESET_EXTREME == LZMA_PRESET_EXTREME
constexpr uint64_t kDecoderMemoryLimit = uint64_t{1} << 30;

const char* lzma_error_name(lzma_ret rc) {
  switch (rc) {
    case LZMA_MEM_ERROR:
      return "out of memory";
    case LZMA_MEMLIMIT_ERROR:
      return "the stream needs more decoder memory than the 1 GiB limit";
    case LZMA_FORMAT_ERROR:
      return "input is not in the expected format";
    case LZMA_OPTIONS_ERROR:
      return "unsupported options in the stream header";
    case LZMA_DATA_ERROR:
      return "corrupt data";
    case LZMA_BUF_ERROR:
      return "stream truncated";
    case LZMA_UNSUPPORTED_CHECK:
      return "unsupported integrity check";
    case LZMA_PROG_ERROR:
      return "programming error";
    default:
      return "unexpected error";
  }
}

struct Stream {
  lzma_stream s = LZMA_STREAM_INIT;
  ~Stream() { lzma_end(&s); }
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

lzma_check to_lzma_check(int check, NumcodecsLzmaCodec::Format format) {
  if (check == -1)
    return format == NumcodecsLzmaCodec::Format::xz ? LZMA_CHECK_CRC64 : LZMA_CHECK_NONE;
  return static_cast<lzma_check>(check);
}

Buffer lzma_compress(std::span<const std::byte> data, NumcodecsLzmaCodec::Format format, int check,
                     std::optional<uint32_t> preset) {
  Stream st;
  const uint32_t level = preset.value_or(LZMA_PRESET_DEFAULT);
  lzma_ret rc = LZMA_OK;
  if (format == NumcodecsLzmaCodec::Format::xz) {
    rc = lzma_easy_encoder(&st.s, level, to_lzma_check(check, format));
  } else {
    lzma_options_lzma options;
    if (lzma_lzma_preset(&options, level))
      throw InvalidArgumentError(fmt::format("{}: bad \"preset\" {}", kName, level));
    rc = lzma_alone_encoder(&st.s, &options);
  }
  if (rc != LZMA_OK)
    throw InvalidArgumentError(
        fmt::format("{}: encoder setup failed: {}", kName, lzma_error_name(rc)));
  // liblzma's bound for a single-call buffer encoder covers the stream overheads generously.
  DecodeOutput output(lzma_stream_buffer_bound(data.size()) + 128, SIZE_MAX / 2, kName);
  st.s.next_in = reinterpret_cast<const uint8_t*>(data.data());
  st.s.avail_in = data.size();
  size_t produced = 0;
  for (;;) {
    if (produced == output.capacity()) output.grow(produced);
    st.s.next_out = reinterpret_cast<uint8_t*>(output.data() + produced);
    st.s.avail_out = output.capacity() - produced;
    const size_t before = st.s.avail_out;
    rc = lzma_code(&st.s, LZMA_FINISH);
    produced += before - st.s.avail_out;
    if (rc == LZMA_STREAM_END) break;
    if (rc != LZMA_OK)
      throw InvalidArgumentError(
          fmt::format("{}: compression failed: {}", kName, lzma_error_name(rc)));
  }
  return output.finish(produced);
}

Buffer lzma_decompress(std::span<const std::byte> data, NumcodecsLzmaCodec::Format format,
                       const ChunkRepresentation& decoded) {
  if (data.empty())
    throw CorruptDataError(fmt::format("{}: empty input is not an lzma stream", kName));
  Stream st;
  lzma_ret rc = LZMA_OK;
  switch (format) {
    case NumcodecsLzmaCodec::Format::xz:
      rc = lzma_stream_decoder(&st.s, kDecoderMemoryLimit, LZMA_CONCATENATED);
      break;
    case NumcodecsLzmaCodec::Format::alone:
      rc = lzma_alone_decoder(&st.s, kDecoderMemoryLimit);
      break;
    case NumcodecsLzmaCodec::Format::automatic:
      rc = lzma_auto_decoder(&st.s, kDecoderMemoryLimit, LZMA_CONCATENATED);
      break;
  }
  if (rc != LZMA_OK)
    throw CorruptDataError(fmt::format("{}: decoder setup failed: {}", kName, lzma_error_name(rc)));
  DecodeOutput output(static_cast<size_t>(decoded.nbytes()) + 64, decoded_size_limit(decoded),
                      kName);
  st.s.next_in = reinterpret_cast<const uint8_t*>(data.data());
  st.s.avail_in = data.size();
  size_t produced = 0;
  for (;;) {
    if (produced == output.capacity()) output.grow(produced);
    st.s.next_out = reinterpret_cast<uint8_t*>(output.data() + produced);
    st.s.avail_out = output.capacity() - produced;
    const size_t before = st.s.avail_out;
    // LZMA_FINISH: all input is given, so a stream that ends early is reported (LZMA_BUF_ERROR).
    rc = lzma_code(&st.s, LZMA_FINISH);
    produced += before - st.s.avail_out;
    if (rc == LZMA_STREAM_END) break;
    // liblzma returns LZMA_BUF_ERROR once no progress is possible (truncated input).
    if (rc == LZMA_OK) continue;
    throw CorruptDataError(fmt::format("{}: {}", kName, lzma_error_name(rc)));
  }
  return output.finish(produced);
}

}  // namespace

NumcodecsLzmaCodec::NumcodecsLzmaCodec(Format format, int check, std::optional<uint32_t> preset)
    : format_(format), check_(check), preset_(preset) {
  if (check != -1 && check != 0 && check != 1 && check != 4 && check != 10) {
    throw InvalidArgumentError(
        fmt::format("{}: \"check\" must be -1, 0, 1, 4 or 10, got {}", kName, check));
  }
  if (format == Format::alone && check != -1 && check != 0) {
    throw InvalidArgumentError(
        fmt::format("{}: \"check\" must be -1 or 0 for format 2 (.lzma), got {}", kName, check));
  }
  if (preset && (*preset & ~kExtremeFlag) > 9) {
    throw InvalidArgumentError(fmt::format(
        "{}: \"preset\" must be 0..9, optionally with the extreme flag, got {}", kName, *preset));
  }
}

std::shared_ptr<NumcodecsLzmaCodec> NumcodecsLzmaCodec::create(const nlohmann::json& configuration,
                                                               const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.lzma", configuration,
                            {"format", "check", "preset", "filters"});
  const auto format = config.integer("format", 0, 3).value_or(1);
  if (format == 3)
    throw UnsupportedError("codec \"numcodecs.lzma\": \"format\" 3 (raw streams) is not supported");
  if (config.has("filters") && !config.at("filters").is_null()) {
    throw UnsupportedError(fmt::format(
        "codec \"numcodecs.lzma\": explicit \"filters\" chains are not supported, got {}",
        config.at("filters").dump()));
  }
  std::optional<uint32_t> preset;
  if (config.has("preset") && !config.at("preset").is_null()) {
    preset = static_cast<uint32_t>(config.integer("preset", 0, 0xFFFFFFFFll).value());
  }
  const auto check = config.integer("check", -1, 10).value_or(-1);
  return std::make_shared<NumcodecsLzmaCodec>(static_cast<Format>(format), static_cast<int>(check),
                                              preset);
}

nlohmann::json NumcodecsLzmaCodec::to_json() const {
  nlohmann::json preset = preset_ ? nlohmann::json(*preset_) : nlohmann::json(nullptr);
  return {{"name", "numcodecs.lzma"},
          {"configuration",
           {{"format", static_cast<int>(format_)},
            {"check", check_},
            {"preset", preset},
            {"filters", nullptr}}}};
}

void NumcodecsLzmaCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                                const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.lzma", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    if (format_ == Format::automatic) {
      throw InvalidArgumentError(
          "codec \"numcodecs.lzma\": \"format\" 0 (auto-detect) can decode but not encode");
    }
    out[i] = lzma_compress(in[i].bytes(), format_, check_, preset_);
  });
}

void NumcodecsLzmaCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                                const ChunkRepresentation& decoded,
                                std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.lzma", in.size(), out.size(), status.size());
  for_each_chunk(status,
                 [&](size_t i) { out[i] = lzma_decompress(in[i].bytes(), format_, decoded); });
}

}  // namespace cuzarr
