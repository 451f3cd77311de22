// The Zarr v2 codec table of the metadata layer agrees with the codec layer: every numcodecs id
// maps to the registered codec of that id, with the role it declares.
#include <gtest/gtest.h>

#include <map>

#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/codec/numcodecs_ids.hpp"
#include "cuzarr/metadata/v2_codecs.hpp"

namespace cuzarr {
namespace {

CodecKind kind_of(CodecRole role) {
  switch (role) {
    case CodecRole::array_to_array:
      return CodecKind::array_to_array;
    case CodecRole::array_to_bytes:
      return CodecKind::array_to_bytes;
    default:
      return CodecKind::bytes_to_bytes;
  }
}

TEST(V2CodecIds, EveryNumcodecsIdIsInTheV2Table) {
  for (const auto& id : supported_numcodecs_ids()) {
    const auto entry = find_v2_codec_id(id);
    ASSERT_TRUE(entry) << id;
    EXPECT_EQ(std::string(entry->v3_name), *v3_name_for_numcodecs_id(id));
  }
}

TEST(V2CodecIds, EveryTableEntryIsARegisteredCodecOfItsRole) {
  // Configurations that the codecs with required fields need.
  const std::map<std::string, nlohmann::json> configurations = {
      {"delta", {{"dtype", "<f4"}}},
      {"fixedscaleoffset", {{"offset", 0}, {"scale", 1}, {"dtype", "<f4"}}},
      {"quantize", {{"digits", 2}, {"dtype", "<f4"}}},
      {"astype", {{"encode_dtype", "<f8"}, {"decode_dtype", "<f4"}}},
      {"bitround", {{"keepbits", 5}}},
      {"shuffle", {{"elementsize", 4}}},
  };
  const ChunkRepresentation floats{
      {4, 4}, DataType(DataTypeKind::float32), std::vector<std::byte>(4)};
  const ChunkRepresentation bools{
      {4, 4}, DataType(DataTypeKind::boolean), std::vector<std::byte>(1)};
  const ChunkRepresentation strings{
      {4, 4}, DataType(DataTypeKind::string), std::vector<std::byte>(sizeof(VariableLengthValue))};
  const ChunkRepresentation byte_strings{{4, 4},
                                         DataType(DataTypeKind::variable_length_bytes),
                                         std::vector<std::byte>(sizeof(VariableLengthValue))};
  size_t checked = 0, skipped = 0;
  for (const auto& entry : v2_codec_ids()) {
    const std::string name(entry.v3_name);
    if (entry.id == "blosc" && !BloscCodec::available()) {
      ++skipped;  // checked where blosc is built
      continue;
    }
    const auto it = configurations.find(std::string(entry.id));
    CodecSpec spec{name, it == configurations.end() ? nlohmann::json::object() : it->second};
    const ChunkRepresentation& representation = entry.id == "packbits"     ? bools
                                                : entry.id == "vlen-utf8"  ? strings
                                                : entry.id == "vlen-bytes" ? byte_strings
                                                                           : floats;
    const auto codec = CodecRegistry::instance().create(spec, representation);
    EXPECT_EQ(codec->kind(), kind_of(entry.role)) << entry.id;
    EXPECT_EQ(v2_storable_codec_role(name), entry.role) << entry.id;
    ++checked;
  }
  EXPECT_EQ(checked + skipped, v2_codec_ids().size());
  EXPECT_GE(checked, 18u);
}

TEST(V2CodecIds, ChainCodecsConvertBackToTheirV2Objects) {
  const auto round_trip = [](const char* text) {
    const auto v2 = nlohmann::json::parse(text);
    const CodecSpec spec = v2_codec_to_spec(v2, 4, "a/.zarray", "compressor");
    return nlohmann::json::parse(spec_to_v2_codec(spec).dump()) == v2;
  };
  EXPECT_TRUE(round_trip(R"({"id": "zlib", "level": 3})"));
  EXPECT_TRUE(round_trip(R"({"id": "zstd", "level": 3})"));
  EXPECT_TRUE(round_trip(R"({"id": "zstd", "level": 3, "checksum": true})"));
  EXPECT_TRUE(round_trip(R"({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 2,
                             "blocksize": 0})"));
  EXPECT_TRUE(round_trip(R"({"id": "delta", "dtype": "<i4", "astype": "<i4"})"));
  EXPECT_EQ(nlohmann::json::parse(spec_to_v2_codec(CodecSpec{"gzip", {{"level", 4}}}).dump()),
            nlohmann::json::parse(R"({"id": "gzip", "level": 4})"));
}

// zarr-python's v3 wrappers of numcodecs' Zstd and Blosc hold numcodecs' configuration: v2
// metadata takes it as it is, under the numcodecs id.
TEST(V2CodecIds, ZarrPythonsNumcodecsZstdAndBloscGoBackToV2AsTheyAre) {
  const auto v2_of = [](const char* name, const char* configuration) {
    return nlohmann::json::parse(
        spec_to_v2_codec(CodecSpec{name, nlohmann::json::parse(configuration)}).dump());
  };
  EXPECT_EQ(v2_of("numcodecs.zstd", R"({"level": 3})"),
            nlohmann::json::parse(R"({"id": "zstd", "level": 3})"));
  EXPECT_EQ(v2_of("numcodecs.blosc", R"({"cname": "lz4", "clevel": 5, "shuffle": 1})"),
            nlohmann::json::parse(R"({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1})"));
  EXPECT_EQ(v2_storable_codec_role("numcodecs.zstd"), CodecRole::bytes_to_bytes);
  EXPECT_EQ(v2_storable_codec_role("numcodecs.blosc"), CodecRole::bytes_to_bytes);
  EXPECT_EQ(numcodecs_blosc_shuffle_name(-1, 1), "bitshuffle");
  EXPECT_EQ(numcodecs_blosc_shuffle_name(-1, 2), "shuffle");
  EXPECT_EQ(numcodecs_blosc_shuffle_name(0, 8), "noshuffle");
}

}  // namespace
}  // namespace cuzarr
