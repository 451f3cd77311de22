// GPUDirect Storage (cuFile) for reads into device memory, and the mode that chooses it, like
// KvikIO's compatibility mode: `on` requires cuFile, `off` never uses it (POSIX reads into pinned
// bounce buffers, then a copy), `automatic` uses cuFile when it works on this machine. The
// environment variable CUZARR_GDS=ON|OFF|AUTO overrides the configured mode.
#pragma once

#include <string>
#include <string_view>

namespace cuzarr {

enum class GdsMode { off, on, automatic };

/// "off", "on" or "auto".
std::string_view gds_mode_name(GdsMode mode) noexcept;
/// Parses "on"/"off"/"auto" in any case (also "true"/"false", "1"/"0"); throws
/// InvalidArgumentError naming the text.
GdsMode parse_gds_mode(std::string_view text);
/// The mode in effect: CUZARR_GDS when set (InvalidArgumentError naming the variable when it
/// holds something else), otherwise `configured`.
GdsMode effective_gds_mode(GdsMode configured);
/// True when libcufile loads and its driver opens (tried once per process; CUDA builds only).
bool gds_available();
/// Why gds_available() is false ("" when it is true).
std::string gds_unavailable_reason();

}  // namespace cuzarr
