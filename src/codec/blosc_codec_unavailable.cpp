// The "blosc" codec in builds without c-blosc (CUZARR_WITH_BLOSC=OFF or c-blosc not found): the
// name stays registered so that metadata using it fails with a clear error, not "unknown codec".
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {

bool BloscCodec::available() noexcept { return false; }

std::shared_ptr<BloscCodec> BloscCodec::create(const nlohmann::json&, const ChunkRepresentation&) {
  throw UnsupportedError(
      "codec \"blosc\": blosc support was not built (install c-blosc and configure cuzarr with "
      "CUZARR_WITH_BLOSC=ON)");
}

}  // namespace cuzarr
