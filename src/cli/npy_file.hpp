// Reading and writing numpy .npy files (format versions 1.0, 2.0 and 3.0; see numpy's
// "NEP 1 / numpy.lib.format" description of the format).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr::cli {

/// The numpy dtype descriptor of `dtype` in little-endian form: "<u2", "<f4", "|b1", "<c8",
/// "|V3" for r24 and raw_bytes, "<U5", "|S4", "<M8[ms]", "<m8[10s]", ... Throws
/// UnsupportedError for a type numpy cannot describe (bfloat16, float8, variable-length).
std::string npy_descr(const DataType& dtype);

/// A parsed descriptor: the data type and whether its bytes are big-endian.
struct NpyDescr {
  DataType dtype;
  bool big_endian = false;
};

/// Parses a numpy dtype descriptor ("<u2", ">f8", "|b1", "<c16", "|V3", "=i4", "<U5" ->
/// fixed_length_utf32, "|S4" -> null_terminated_bytes, "<M8[ms]", "<m8[10s]", ...). Throws
/// UnsupportedError naming the descriptor for structured, object or generic-unit time types.
NpyDescr parse_npy_descr(std::string_view descr);

/// Reads the .npy file at `path` into a new C-ordered, host, native (little-endian) array.
/// Fortran-ordered and big-endian files are converted. Throws NotFoundError when the file is
/// missing, IoError when it cannot be read, InvalidArgumentError naming the file when it is not
/// a valid .npy file, UnsupportedError for data types Zarr has no equivalent for.
NDBuffer read_npy(const std::filesystem::path& path);

/// Parses the bytes of a whole .npy file; `source` is named in errors.
NDBuffer parse_npy(std::string_view bytes, const std::string& source);

/// The bytes of a .npy file (format 1.0, or 2.0 when the header is too long for 1.0) holding
/// `array` in C order with a little-endian descriptor. `array` must be host-accessible.
std::string format_npy(const NDBuffer& array);

/// Writes format_npy(array) to `path`. Throws IoError naming the file when writing fails.
void write_npy(const std::filesystem::path& path, const NDBuffer& array);

}  // namespace cuzarr::cli
