#include "cuzarr/codec/numcodecs_ids.hpp"

#include <algorithm>
#include <array>

namespace cuzarr {
namespace {

// The numcodecs ids with a codec registered as "numcodecs.<id>" (numcodecs_registration.cpp),
// in alphabetical order.
constexpr std::array<std::string_view, 18> kIds = {
    "adler32", "astype", "base64",           "bitround",   "bz2",     "crc32",
    "crc32c",  "delta",  "fixedscaleoffset", "fletcher32", "gzip",    "jenkins_lookup3",
    "lz4",     "lzma",   "packbits",         "quantize",   "shuffle", "zlib"};

}  // namespace

std::vector<std::string> supported_numcodecs_ids() { return {kIds.begin(), kIds.end()}; }

std::optional<std::string> v3_name_for_numcodecs_id(std::string_view id) {
  if (std::binary_search(kIds.begin(), kIds.end(), id)) return "numcodecs." + std::string(id);
  return std::nullopt;
}

}  // namespace cuzarr
