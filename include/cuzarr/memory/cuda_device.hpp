// Whether this process can use a CUDA device.
#pragma once

#include <string>

namespace cuzarr {

/// True when cuzarr was built with CUDA support (CUZARR_HAVE_CUDA).
bool built_with_cuda() noexcept;
/// The number of CUDA devices visible (0 without CUDA support, without a driver or without GPUs).
int cuda_device_count() noexcept;
/// Why no CUDA device can be used ("cuzarr was built without CUDA support", "no CUDA device:
/// cudaErrorNoDevice (...)"), or an empty string when one can.
std::string cuda_unavailable_reason();

}  // namespace cuzarr
