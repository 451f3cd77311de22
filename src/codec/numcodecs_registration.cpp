#include "codec/numcodecs_registration.hpp"

#include <fmt/format.h>

#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/codec/numcodecs_astype_codec.hpp"
#include "cuzarr/codec/numcodecs_base64_codec.hpp"
#include "cuzarr/codec/numcodecs_bitround_codec.hpp"
#include "cuzarr/codec/numcodecs_bz2_codec.hpp"
#include "cuzarr/codec/numcodecs_checksum32_codec.hpp"
#include "cuzarr/codec/numcodecs_delta_codec.hpp"
#include "cuzarr/codec/numcodecs_fixedscaleoffset_codec.hpp"
#include "cuzarr/codec/numcodecs_fletcher32_codec.hpp"
#include "cuzarr/codec/numcodecs_gzip_codec.hpp"
#include "cuzarr/codec/numcodecs_jenkins_lookup3_codec.hpp"
#include "cuzarr/codec/numcodecs_lz4_codec.hpp"
#include "cuzarr/codec/numcodecs_lzma_codec.hpp"
#include "cuzarr/codec/numcodecs_packbits_codec.hpp"
#include "cuzarr/codec/numcodecs_quantize_codec.hpp"
#include "cuzarr/codec/numcodecs_shuffle_codec.hpp"
#include "cuzarr/codec/numcodecs_zlib_codec.hpp"
#include "cuzarr/codec/zstd_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/v2_codecs.hpp"

namespace cuzarr {
namespace {

// numcodecs.Blosc's configuration {"cname", "clevel", "shuffle" (an integer), "blocksize",
// "typesize"} as the v3 blosc codec's. zarr-python's wrapper hands numcodecs the chunk as bytes,
// so numcodecs compresses with a typesize of 1 unless the configuration names one, and takes its
// defaults (lz4, level 5, byte shuffle) for the keys it leaves out.
nlohmann::json numcodecs_blosc_configuration(const nlohmann::json& numcodecs) {
  if (!numcodecs.is_object()) {
    throw InvalidArgumentError(fmt::format(
        "codec \"numcodecs.blosc\": configuration must be an object, got {}", numcodecs.dump()));
  }
  nlohmann::json configuration = {
      {"cname", "lz4"}, {"clevel", 5}, {"blocksize", 0}, {"typesize", 1}};
  int64_t shuffle = 1;
  for (const auto& [key, value] : numcodecs.items()) {
    if (key == "shuffle") {
      if (!value.is_number_integer() || value.get<int64_t>() < -1 || value.get<int64_t>() > 2) {
        throw InvalidArgumentError(fmt::format(
            "codec \"numcodecs.blosc\": \"shuffle\" must be -1, 0, 1 or 2, got {}", value.dump()));
      }
      shuffle = value.get<int64_t>();
    } else if (key == "typesize" && value.is_null()) {
      // numcodecs' default: the size of the items it is given, here bytes
    } else {
      configuration[key] = value;  // checked, and unknown keys refused, by the blosc codec
    }
  }
  configuration["shuffle"] = numcodecs_blosc_shuffle_name(
      shuffle,
      configuration["typesize"].is_number_integer() ? configuration["typesize"].get<int64_t>() : 1);
  return configuration;
}

}  // namespace

void register_numcodecs_codecs(CodecRegistry& registry) {
  using Json = nlohmann::json;
  using Rep = ChunkRepresentation;
  using Checksum = NumcodecsChecksum32Codec;
  // bytes -> bytes (zarr.codecs.numcodecs: _NumcodecsBytesBytesCodec)
  registry.register_codec("numcodecs.zlib", [](const Json& c, const Rep& d) {
    return NumcodecsZlibCodec::create(c, d);
  });
  registry.register_codec("numcodecs.gzip", [](const Json& c, const Rep& d) {
    return NumcodecsGzipCodec::create(c, d);
  });
  registry.register_codec(
      "numcodecs.bz2", [](const Json& c, const Rep& d) { return NumcodecsBz2Codec::create(c, d); });
  registry.register_codec("numcodecs.lzma", [](const Json& c, const Rep& d) {
    return NumcodecsLzmaCodec::create(c, d);
  });
  registry.register_codec(
      "numcodecs.lz4", [](const Json& c, const Rep& d) { return NumcodecsLz4Codec::create(c, d); });
  registry.register_codec("numcodecs.shuffle", [](const Json& c, const Rep& d) {
    return NumcodecsShuffleCodec::create(c, d);
  });
  registry.register_codec("numcodecs.crc32", [](const Json& c, const Rep& d) {
    return Checksum::create(Checksum::Algorithm::crc32, c, d);
  });
  registry.register_codec("numcodecs.adler32", [](const Json& c, const Rep& d) {
    return Checksum::create(Checksum::Algorithm::adler32, c, d);
  });
  registry.register_codec("numcodecs.crc32c", [](const Json& c, const Rep& d) {
    return Checksum::create(Checksum::Algorithm::crc32c, c, d);
  });
  registry.register_codec("numcodecs.fletcher32", [](const Json& c, const Rep& d) {
    return NumcodecsFletcher32Codec::create(c, d);
  });
  registry.register_codec("numcodecs.jenkins_lookup3", [](const Json& c, const Rep& d) {
    return NumcodecsJenkinsLookup3Codec::create(c, d);
  });
  registry.register_codec("numcodecs.base64", [](const Json& c, const Rep& d) {
    return NumcodecsBase64Codec::create(c, d);
  });
  // numcodecs' Zstd and Blosc write the formats of the v3 core codecs (a zstd frame, a c-blosc
  // chunk), so they are those codecs under zarr-python's names, decoded on the GPU alike. An
  // array's metadata keeps the names and configurations it was written with; a copy to another
  // node (cp) writes the core codecs with the same settings.
  registry.register_codec("numcodecs.zstd", [](const Json& c, const Rep& d) {
    return ZstdCodec::create(c, d);  // {"level", "checksum"}, as numcodecs.Zstd's
  });
  registry.register_codec("numcodecs.blosc", [](const Json& c, const Rep& d) {
    return BloscCodec::create(numcodecs_blosc_configuration(c), d);
  });
  // array -> array (zarr.codecs.numcodecs: _NumcodecsArrayArrayCodec)
  registry.register_codec("numcodecs.delta", [](const Json& c, const Rep& d) {
    return NumcodecsDeltaCodec::create(c, d);
  });
  registry.register_codec("numcodecs.fixedscaleoffset", [](const Json& c, const Rep& d) {
    return NumcodecsFixedScaleOffsetCodec::create(c, d);
  });
  registry.register_codec("numcodecs.quantize", [](const Json& c, const Rep& d) {
    return NumcodecsQuantizeCodec::create(c, d);
  });
  registry.register_codec("numcodecs.packbits", [](const Json& c, const Rep& d) {
    return NumcodecsPackBitsCodec::create(c, d);
  });
  registry.register_codec("numcodecs.astype", [](const Json& c, const Rep& d) {
    return NumcodecsAsTypeCodec::create(c, d);
  });
  registry.register_codec("numcodecs.bitround", [](const Json& c, const Rep& d) {
    return NumcodecsBitRoundCodec::create(c, d);
  });
}

}  // namespace cuzarr
