// Registers the numcodecs codecs under their zarr-python 3 names, "numcodecs.<id>".
#pragma once

namespace cuzarr {

class CodecRegistry;

/// Registers every codec of numcodecs_ids.hpp's list in `registry`.
void register_numcodecs_codecs(CodecRegistry& registry);

}  // namespace cuzarr
