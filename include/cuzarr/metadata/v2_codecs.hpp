// Zarr v2 "filters" and "compressor" (numcodecs codec objects {"id": ..., <configuration>}) <->
// entries of the v3 codec chain of the one metadata model. numcodecs ids map to the
// "numcodecs.<id>" codecs, except "zstd" and "blosc", which map to the v3 core codecs of the same
// format (their configurations are converted), and "vlen-utf8" / "vlen-bytes", which map to the v3
// array -> bytes codecs of those names. zarr-python's v3 "numcodecs.zstd" / "numcodecs.blosc"
// entries go back to v2 as "zstd" / "blosc" with their configuration.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

/// Where a codec sits in a v3 codec chain.
enum class CodecRole { array_to_array, array_to_bytes, bytes_to_bytes };

/// A Zarr v2 codec id that cuzarr reads and writes.
struct V2CodecId {
  std::string_view id;       ///< the numcodecs id in v2 metadata ("zlib")
  std::string_view v3_name;  ///< the codec it becomes in the chain ("numcodecs.zlib")
  CodecRole role;
};

/// Every supported v2 codec id, in alphabetical order of id.
std::span<const V2CodecId> v2_codec_ids();
/// The entry for `id`, nullopt when it is not supported.
std::optional<V2CodecId> find_v2_codec_id(std::string_view id);
/// The role of the chain codec named `v3_name` ("bytes", "transpose", "zstd", "numcodecs.delta",
/// ...), nullopt when it is none that v2 metadata can hold.
std::optional<CodecRole> v2_storable_codec_role(std::string_view v3_name);

/// Converts one v2 codec object into a chain entry. `itemsize` is the size in bytes of the
/// elements the codec sees (blosc's "typesize"). Throws InvalidArgumentError naming `source` and
/// `field` when `codec` is not an object with a string "id", UnsupportedError naming the id and
/// `source` when the id is unknown.
CodecSpec v2_codec_to_spec(const nlohmann::json& codec, size_t itemsize, const std::string& source,
                           std::string_view field);
/// The v3 blosc codec's "shuffle" for numcodecs.Blosc's: 0 "noshuffle", 1 "shuffle", 2
/// "bitshuffle", -1 (AUTOSHUFFLE) "bitshuffle" for items of one byte, else "shuffle".
std::string numcodecs_blosc_shuffle_name(int64_t shuffle, int64_t itemsize);

/// The v2 codec object of a chain entry, as numcodecs writes it. Throws UnsupportedError naming
/// the codec when v2 metadata cannot hold it.
nlohmann::ordered_json spec_to_v2_codec(const CodecSpec& spec);

}  // namespace cuzarr
