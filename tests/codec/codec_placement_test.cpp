// CodecPlacement: the text grammar (plain values and per-codec entries), the resolution of a
// codec's placement (numcodecs names, the fallback), the errors that name the bad entry, the
// lenient parse of the environment variable, and when a GPU decoder is used for a placement.
#include "cuzarr/codec/codec_placement.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/cuda/device_bytes_decoder.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"

namespace cuzarr {
namespace {

// The message of the InvalidArgumentError `parse` throws for `text` ("" when none is thrown).
std::string parse_error(const std::string& text) {
  try {
    CodecPlacement::parse(text);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

TEST(CodecPlacementTest, PlainValuesSetEveryCodec) {
  EXPECT_EQ(CodecPlacement::parse("auto"), CodecPlacement::all(Placement::automatic));
  EXPECT_EQ(CodecPlacement::parse("gpu"), CodecPlacement::all(Placement::gpu));
  EXPECT_EQ(CodecPlacement::parse("cpu"), CodecPlacement::all(Placement::cpu));
  EXPECT_EQ(CodecPlacement::parse(""), CodecPlacement::all(Placement::automatic));
  EXPECT_EQ(CodecPlacement::parse("  gpu "), CodecPlacement::all(Placement::gpu));
  const auto cpu = CodecPlacement::parse("cpu");
  EXPECT_EQ(cpu.of("zstd"), Placement::cpu);
  EXPECT_EQ(cpu.of("numcodecs.lz4"), Placement::cpu);
}

TEST(CodecPlacementTest, PerCodecEntriesOverrideTheDefault) {
  const auto p = CodecPlacement::parse("zstd=gpu,blosc=cpu,default=auto");
  EXPECT_EQ(p.fallback, Placement::automatic);
  EXPECT_EQ(p.codecs.size(), 2u);
  EXPECT_EQ(p.of("zstd"), Placement::gpu);
  EXPECT_EQ(p.of("blosc"), Placement::cpu);
  EXPECT_EQ(p.of("gzip"), Placement::automatic);
  EXPECT_EQ(p.of("crc32c"), Placement::automatic);

  const auto q = CodecPlacement::parse(" default = cpu , gzip = gpu ");
  EXPECT_EQ(q.fallback, Placement::cpu);
  EXPECT_EQ(q.of("gzip"), Placement::gpu);
  EXPECT_EQ(q.of("zstd"), Placement::cpu);
  // A bare value among entries is the default too.
  EXPECT_EQ(CodecPlacement::parse("zstd=cpu,gpu").fallback, Placement::gpu);
}

TEST(CodecPlacementTest, NumcodecsNamesServeBothSpellings) {
  const auto p = CodecPlacement::parse("numcodecs.lz4=gpu,gzip=cpu,zlib=gpu");
  EXPECT_EQ(p.codecs.count("lz4"), 1u);
  EXPECT_EQ(p.of("numcodecs.lz4"), Placement::gpu);
  EXPECT_EQ(p.of("lz4"), Placement::gpu);
  // "gzip" is the Zarr v3 codec's name and numcodecs.gzip's: one entry serves both.
  EXPECT_EQ(p.of("gzip"), Placement::cpu);
  EXPECT_EQ(p.of("numcodecs.gzip"), Placement::cpu);
  EXPECT_EQ(p.of("numcodecs.zlib"), Placement::gpu);
  EXPECT_EQ(p.of("numcodecs.shuffle"), Placement::automatic);
}

TEST(CodecPlacementTest, ErrorsNameTheEntry) {
  std::string m = parse_error("zstd=fast");
  EXPECT_NE(m.find("\"zstd=fast\""), std::string::npos) << m;
  EXPECT_NE(m.find("auto, gpu or cpu"), std::string::npos) << m;

  m = parse_error("blosc=cpu,zsdt=gpu");
  EXPECT_NE(m.find("\"zsdt=gpu\""), std::string::npos) << m;
  EXPECT_NE(m.find("no registered codec is named \"zsdt\""), std::string::npos) << m;

  m = parse_error("=gpu");
  EXPECT_NE(m.find("\"=gpu\""), std::string::npos) << m;
  EXPECT_NE(m.find("no codec name"), std::string::npos) << m;

  m = parse_error("zstd=gpu,,blosc=cpu");
  EXPECT_NE(m.find("empty"), std::string::npos) << m;

  m = parse_error("zstd=gpu,numcodecs.zstd=cpu");
  EXPECT_NE(m.find("\"numcodecs.zstd=cpu\""), std::string::npos) << m;
  EXPECT_NE(m.find("given twice"), std::string::npos) << m;

  m = parse_error("default=gpu,cpu");
  EXPECT_NE(m.find("default placement is given twice"), std::string::npos) << m;

  m = parse_error("fast");
  EXPECT_NE(m.find("\"fast\""), std::string::npos) << m;

  EXPECT_EQ(parse_error("zstd=gpu,blosc=cpu"), "");
  // Every codec with a GPU decoder, and others, by their short names.
  EXPECT_EQ(parse_error("bz2=gpu,lz4=cpu,shuffle=gpu,zlib=cpu,gzip=auto,crc32c=cpu,delta=gpu"), "");
}

TEST(CodecPlacementTest, TextFormRoundTrips) {
  for (const std::string text : {"auto", "gpu", "cpu", "blosc=cpu,zstd=gpu",
                                 "crc32c=auto,lz4=gpu,default=cpu", "gzip=gpu,default=gpu"}) {
    const auto parsed = CodecPlacement::parse(text);
    EXPECT_EQ(parsed.to_string(), text);
    EXPECT_EQ(CodecPlacement::parse(parsed.to_string()), parsed) << text;
  }
  EXPECT_EQ(CodecPlacement::parse("zstd=gpu,default=auto").to_string(), "zstd=gpu");
  EXPECT_EQ(placement_name(Placement::automatic), "auto");
}

TEST(CodecPlacementTest, ValidateRejectsUnknownAndPrefixedNames) {
  EXPECT_NO_THROW((CodecPlacement{Placement::gpu, {{"zstd", Placement::cpu}}}.validate()));
  const auto message = [](const CodecPlacement& p) -> std::string {
    try {
      p.validate();
    } catch (const InvalidArgumentError& e) {
      return e.what();
    }
    return "";
  };
  std::string m = message(CodecPlacement{Placement::automatic, {{"nonesuch", Placement::gpu}}});
  EXPECT_NE(m.find("\"nonesuch=gpu\""), std::string::npos) << m;
  m = message(CodecPlacement{Placement::automatic, {{"numcodecs.zstd", Placement::gpu}}});
  EXPECT_NE(m.find("\"numcodecs.zstd=gpu\""), std::string::npos) << m;
  EXPECT_NE(m.find("prefix"), std::string::npos) << m;
  m = message(CodecPlacement{Placement::automatic, {{"", Placement::gpu}}});
  EXPECT_NE(m.find("empty"), std::string::npos) << m;
}

TEST(CodecPlacementTest, LenientParseLogsAndSkipsBadEntries) {
  std::vector<std::string> seen;
  set_log_sink([&](std::string_view m) { seen.emplace_back(m); });
  const auto p =
      parse_codec_placement_or_warn("zstd=gpu,bogus=cpu,blosc=fast,default=cpu", "CUZARR_TEST");
  set_log_sink([](std::string_view) {});
  EXPECT_EQ(p, (CodecPlacement{Placement::cpu, {{"zstd", Placement::gpu}}}));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[0].find("CUZARR_TEST"), std::string::npos) << seen[0];
  EXPECT_NE(seen[0].find("\"bogus=cpu\""), std::string::npos) << seen[0];
  EXPECT_NE(seen[0].find("ignored"), std::string::npos) << seen[0];
  EXPECT_NE(seen[1].find("\"blosc=fast\""), std::string::npos) << seen[1];
  // Plain values keep working.
  EXPECT_EQ(parse_codec_placement_or_warn("gpu", "X"), CodecPlacement::all(Placement::gpu));
}

// A GPU decoder that the automatic placement uses for chunks of up to 1000 bytes.
class LimitedDecoder final : public gpu::DeviceBytesDecoder {
 public:
  std::optional<uint64_t> decoded_size_from(uint64_t) const override { return std::nullopt; }
  uint64_t automatic_chunk_limit() const override { return 1000; }
  void decode(const gpu::DeviceChunkBatch&, void*, uint64_t, Stream) const override {}
};

TEST(CodecPlacementTest, DecodesOnGpuFollowsThePlacement) {
  const LimitedDecoder decoder;
  EXPECT_TRUE(gpu::decodes_on_gpu(decoder, Placement::automatic, 1000));
  EXPECT_FALSE(gpu::decodes_on_gpu(decoder, Placement::automatic, 1001));
  EXPECT_TRUE(gpu::decodes_on_gpu(decoder, Placement::automatic, std::nullopt));
  EXPECT_TRUE(gpu::decodes_on_gpu(decoder, Placement::gpu, 1u << 30));
  EXPECT_FALSE(gpu::decodes_on_gpu(decoder, Placement::cpu, 10));
  EXPECT_FALSE(gpu::decodes_on_gpu(decoder, Placement::cpu, std::nullopt));
  // Per codec: a placement picks the decision of the codec it names.
  const auto p = CodecPlacement::parse("zstd=gpu,gzip=cpu");
  EXPECT_TRUE(gpu::decodes_on_gpu(decoder, p.of("zstd"), 5000));
  EXPECT_FALSE(gpu::decodes_on_gpu(decoder, p.of("numcodecs.gzip"), 10));
  EXPECT_FALSE(gpu::decodes_on_gpu(decoder, p.of("blosc"), 5000));
}

}  // namespace
}  // namespace cuzarr
