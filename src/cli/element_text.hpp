// Text of the extension-type elements as numpy prints them: ISO dates and times for datetime64,
// counts for timedelta64, Python literals for strings and byte strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr::cli {

/// numpy's ISO text of a datetime64 count of `dtype`'s unit times scale factor since
/// 1970-01-01: "2024-01-02T03:04:05.006" for milliseconds, "2024-01-02" for days, "NaT".
std::string format_datetime(int64_t count, const DataType& dtype);
/// Python's repr of a str holding the UTF-8 `text`: 'abc', "it's", '\n' escaped.
std::string python_str_literal(std::string_view text);
/// Python's repr of a bytes object: b'a\x00'.
std::string python_bytes_literal(std::string_view bytes);

}  // namespace cuzarr::cli
