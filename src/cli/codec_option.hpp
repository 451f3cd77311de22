// The --codec option of `cuzarr import`: a short form "name:key=value,key=value" or a JSON codec
// object, completed with the defaults a codec needs for the array's data type.
#pragma once

#include <string_view>
#include <vector>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr::cli {

/// Parses one --codec argument: a JSON object ({"name": "zstd", "configuration": {...}}), a JSON
/// string, or the short form "zstd", "zstd:level=3,checksum=true", "transpose:order=1,0",
/// "blosc:cname=lz4,clevel=5,shuffle=shuffle", "bytes:endian=big". Values that parse as JSON
/// (numbers, true/false) become JSON values, others strings; a comma-separated item without '='
/// extends the previous key's value into a list. Throws InvalidArgumentError naming the argument.
CodecSpec parse_codec_option(std::string_view text);

/// Fills in what the short forms leave out, for arrays of `dtype`: bytes gets endian "little"
/// (for types wider than one byte), blosc gets cname zstd / clevel 5 / shuffle / typesize /
/// blocksize 0, gzip level 5, zstd level 0 and checksum false. Fields already set are kept.
CodecSpec complete_codec(CodecSpec spec, const DataType& dtype);

/// Turns the --codec list into a full codec list: completes each codec, and inserts a "bytes"
/// codec after the array->array codecs when the list has no array->bytes codec
/// ("bytes" or "sharding_indexed").
std::vector<CodecSpec> complete_codec_list(std::vector<CodecSpec> codecs, const DataType& dtype);

}  // namespace cuzarr::cli
