// Metadata documents as JSON text, read and written the way zarr-python does. Python's json
// module, which zarr-python uses for zarr.json, .zarray, .zattrs and .zmetadata, writes a float
// that is not finite as the bare token NaN, Infinity or -Infinity, which RFC 8259 does not allow.
// zarr-python writes them in attributes (a v3 fill value is a string such as "NaN"); these
// functions read such tokens as numbers and write non-finite numbers back as the same tokens, so
// that a document from zarr-python reads, and rewrites, with its values intact.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cuzarr {

/// Parses `text` as JSON, with NaN, Infinity and -Infinity outside strings read as numbers;
/// throws InvalidArgumentError naming `source` on a syntax error.
nlohmann::json parse_json_document(std::string_view text, const std::string& source);

/// The JSON text of `document` as nlohmann::json::dump(indent) writes it, except that a number
/// that is not finite is written as NaN, Infinity or -Infinity (dump writes null).
std::string dump_json_document(const nlohmann::json& document, int indent = -1);

}  // namespace cuzarr
