// The one place that picks the Compressor's backend per algorithm and execution target.
#include <fmt/format.h>

#include "api/compression_backend.hpp"
#include "api/host_compression_backend.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"

namespace cuzarr {

const CompressionBackend& host_compression_backend(CompressionAlgorithm algorithm) {
  switch (algorithm) {
    case CompressionAlgorithm::lz4:
      return host_lz4_backend();
    case CompressionAlgorithm::zstd:
      return host_zstd_backend();
    case CompressionAlgorithm::deflate:
      return host_deflate_backend();
    case CompressionAlgorithm::gzip:
      return host_gzip_backend();
    case CompressionAlgorithm::zlib:
      return host_zlib_backend();
    case CompressionAlgorithm::bz2:
      return host_bz2_backend();
    case CompressionAlgorithm::lzma:
      return host_lzma_backend();
    case CompressionAlgorithm::blosc:
      if (!compression_algorithm_available(algorithm))
        throw UnsupportedError(
            "compressor: algorithm blosc: blosc support was not built (c-blosc was not found)");
      return host_blosc_backend();
  }
  throw InvalidArgumentError(fmt::format("compressor: \"algorithm\" has an unknown value {}",
                                         static_cast<int>(algorithm)));
}

const CompressionBackend& select_compression_backend(const CompressorOptions& options,
                                                     bool data_on_device,
                                                     CompressionDirection direction) {
  const auto honours = [&](const CompressionBackend& backend) {
    return direction == CompressionDirection::decompress || backend.compresses_with(options);
  };
  switch (options.execution) {
    case ExecutionTarget::host:
      return host_compression_backend(options.algorithm);
    case ExecutionTarget::automatic: {
      const CompressionBackend* device = device_compression_backend(options.algorithm);
      if (device != nullptr && data_on_device && honours(*device) &&
          cuda_unavailable_reason().empty())
        return *device;
      return host_compression_backend(options.algorithm);
    }
    case ExecutionTarget::device: {
      const std::string reason = cuda_unavailable_reason();
      if (!reason.empty())
        throw UnsupportedError(
            fmt::format("compressor: \"execution\" device needs a usable GPU: {}", reason));
      const CompressionBackend* device = device_compression_backend(options.algorithm);
      if (device == nullptr)
        throw UnsupportedError(fmt::format(
            "compressor: \"execution\" device: {} has no GPU implementation yet (use auto or host)",
            compression_algorithm_name(options.algorithm)));
      if (!honours(*device) && device->decodes_only())
        throw UnsupportedError(fmt::format(
            "compressor: \"execution\" device: {} has no GPU implementation of compression yet "
            "(its GPU backend only decodes; use auto or host)",
            compression_algorithm_name(options.algorithm)));
      if (!honours(*device))
        throw UnsupportedError(fmt::format(
            "compressor: \"execution\" device: the GPU {} encoder has no level {} (use auto or "
            "host)",
            compression_algorithm_name(options.algorithm), options.effective_level()));
      return *device;
    }
  }
  throw InvalidArgumentError("compressor: \"execution\" has an unknown value");
}

}  // namespace cuzarr
