#include "cuzarr/codec/numcodecs_gzip_codec.hpp"

#include "codec/codec_configuration.hpp"

namespace cuzarr {

std::shared_ptr<NumcodecsGzipCodec> NumcodecsGzipCodec::create(const nlohmann::json& configuration,
                                                               const ChunkRepresentation&) {
  CodecConfiguration config("numcodecs.gzip", configuration, {"level"});
  return std::make_shared<NumcodecsGzipCodec>(
      static_cast<int>(config.integer("level", 0, 9).value_or(1)));
}

nlohmann::json NumcodecsGzipCodec::to_json() const {
  return {{"name", "numcodecs.gzip"}, {"configuration", {{"level", level()}}}};
}

}  // namespace cuzarr
