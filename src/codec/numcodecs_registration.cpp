#include "codec/numcodecs_registration.hpp"

#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/codec/numcodecs_astype_codec.hpp"
#include "cuzarr/codec/numcodecs_bitround_codec.hpp"
#include "cuzarr/codec/numcodecs_bz2_codec.hpp"
#include "cuzarr/codec/numcodecs_checksum32_codec.hpp"
#include "cuzarr/codec/numcodecs_delta_codec.hpp"
#include "cuzarr/codec/numcodecs_fixedscaleoffset_codec.hpp"
#include "cuzarr/codec/numcodecs_fletcher32_codec.hpp"
#include "cuzarr/codec/numcodecs_gzip_codec.hpp"
#include "cuzarr/codec/numcodecs_lz4_codec.hpp"
#include "cuzarr/codec/numcodecs_lzma_codec.hpp"
#include "cuzarr/codec/numcodecs_packbits_codec.hpp"
#include "cuzarr/codec/numcodecs_quantize_codec.hpp"
#include "cuzarr/codec/numcodecs_shuffle_codec.hpp"
#include "cuzarr/codec/numcodecs_zlib_codec.hpp"

namespace cuzarr {

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
