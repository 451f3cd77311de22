#include "cuzarr/codec/codec_registry.hpp"

#include <gtest/gtest.h>

#include "codec_test_arrays.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/crc32c_codec.hpp"

namespace cuzarr {
namespace {

const auto kRep = test::representation(DataType(DataTypeKind::uint16), {8, 8});

TEST(CodecRegistry, HasEveryBuiltInCodec) {
  auto& registry = CodecRegistry::instance();
  for (const char* name :
       {"bytes", "transpose", "crc32c", "gzip", "zstd", "blosc", "sharding_indexed"}) {
    EXPECT_TRUE(registry.contains(name)) << name;
  }
  auto names = registry.names();
  EXPECT_NE(std::find(names.begin(), names.end(), "blosc"), names.end());
  auto codec = registry.create(CodecSpec{"gzip", {{"level", 3}}}, kRep);
  EXPECT_EQ(codec->name(), "gzip");
  EXPECT_EQ(codec->kind(), CodecKind::bytes_to_bytes);
  EXPECT_EQ(registry.create(CodecSpec{"transpose", {{"order", {1, 0}}}}, kRep)->kind(),
            CodecKind::array_to_array);
  EXPECT_EQ(registry.create(CodecSpec{"bytes", {{"endian", "big"}}}, kRep)->kind(),
            CodecKind::array_to_bytes);
}

TEST(CodecRegistry, UnknownCodecsAndBadConfigurationsAreNamed) {
  auto& registry = CodecRegistry::instance();
  try {
    registry.create(CodecSpec{"lz77-deluxe", nlohmann::json::object()}, kRep);
    FAIL();
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown codec \"lz77-deluxe\""), std::string::npos)
        << e.what();
  }
  for (const auto& [name, config, field] :
       {std::tuple{"gzip", R"({"level":99})", "level"},
        std::tuple{"zstd", R"({"checksum":"yes"})", "checksum"},
        std::tuple{"crc32c", R"({"seed":1})", "seed"},
        std::tuple{"bytes", R"({"endian":"sideways"})", "endian"},
        std::tuple{"blosc", R"({"clevel":-2})", "clevel"},
        std::tuple{"transpose", R"({"order":[0]})", "order"},
        std::tuple{"gzip", R"([1,2])", "configuration"}}) {
    if (std::string_view(name) == "blosc" && !BloscCodec::available()) continue;
    try {
      registry.create(CodecSpec{name, nlohmann::json::parse(config)}, kRep);
      FAIL() << name << " " << config;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + name + "\""), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
}

TEST(CodecRegistry, RegisteredFactoriesAreUsed) {
  auto& registry = CodecRegistry::instance();
  int calls = 0;
  registry.register_codec("test.checksum",
                          [&](const nlohmann::json& c, const ChunkRepresentation& d) {
                            ++calls;
                            EXPECT_EQ(d.shape, kRep.shape);
                            return Crc32cCodec::create(c, d);
                          });
  EXPECT_TRUE(registry.contains("test.checksum"));
  auto codec = registry.create(CodecSpec{"test.checksum", nlohmann::json::object()}, kRep);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(codec->name(), "crc32c");
  EXPECT_THROW(registry.register_codec("test.empty", nullptr), InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
