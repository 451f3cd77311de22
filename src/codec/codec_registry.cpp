#include "cuzarr/codec/codec_registry.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <shared_mutex>

#include "codec/numcodecs_registration.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/crc32c_codec.hpp"
#include "cuzarr/codec/gzip_codec.hpp"
#include "cuzarr/codec/sharding_codec.hpp"
#include "cuzarr/codec/transpose_codec.hpp"
#include "cuzarr/codec/vlen_codec.hpp"
#include "cuzarr/codec/zstd_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {

struct CodecRegistry::Impl {
  mutable std::shared_mutex mutex;
  std::map<std::string, CodecFactory> factories;
};

CodecRegistry::CodecRegistry() : impl_(std::make_shared<Impl>()) {
  register_codec("bytes", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return BytesCodec::create(c, d);
  });
  register_codec("transpose", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return TransposeCodec::create(c, d);
  });
  register_codec("crc32c", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return Crc32cCodec::create(c, d);
  });
  register_codec("gzip", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return GzipCodec::create(c, d);
  });
  register_codec("zstd", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return ZstdCodec::create(c, d);
  });
  register_codec("blosc", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return BloscCodec::create(c, d);
  });
  register_codec("sharding_indexed", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return ShardingCodec::create(c, d);
  });
  register_codec("vlen-utf8", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return VlenCodec::create(VlenCodec::Flavor::utf8, c, d);
  });
  register_codec("vlen-bytes", [](const nlohmann::json& c, const ChunkRepresentation& d) {
    return VlenCodec::create(VlenCodec::Flavor::bytes, c, d);
  });
  register_numcodecs_codecs(*this);
}

CodecRegistry& CodecRegistry::instance() {
  static CodecRegistry registry;
  return registry;
}

void CodecRegistry::register_codec(const std::string& name, CodecFactory factory) {
  if (!factory)
    throw InvalidArgumentError(fmt::format("codec \"{}\": cannot register an empty factory", name));
  std::unique_lock lock(impl_->mutex);
  impl_->factories[name] = std::move(factory);
}

bool CodecRegistry::contains(const std::string& name) const {
  std::shared_lock lock(impl_->mutex);
  return impl_->factories.contains(name);
}

std::vector<std::string> CodecRegistry::names() const {
  std::shared_lock lock(impl_->mutex);
  std::vector<std::string> result;
  for (const auto& entry : impl_->factories) result.push_back(entry.first);
  return result;
}

std::shared_ptr<Codec> CodecRegistry::create(const CodecSpec& spec,
                                             const ChunkRepresentation& decoded) const {
  CodecFactory factory;
  {
    std::shared_lock lock(impl_->mutex);
    auto it = impl_->factories.find(spec.name);
    if (it == impl_->factories.end()) {
      std::string known;
      for (const auto& entry : impl_->factories)
        known += fmt::format("{}{}", known.empty() ? "" : ", ", entry.first);
      throw UnsupportedError(
          fmt::format("unknown codec \"{}\" (supported codecs: {})", spec.name, known));
    }
    factory = it->second;
  }
  // Factories run outside the lock: sharding resolves its inner chains through this registry.
  std::shared_ptr<Codec> codec;
  try {
    codec = factory(spec.configuration, decoded);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgumentError(fmt::format("codec \"{}\": bad configuration {}: {}", spec.name,
                                           spec.configuration.dump(), e.what()));
  }
  if (!codec)
    throw InvalidArgumentError(
        fmt::format("codec \"{}\": the factory returned no codec", spec.name));
  return codec;
}

}  // namespace cuzarr
