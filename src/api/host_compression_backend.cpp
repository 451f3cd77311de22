#include "api/host_compression_backend.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

namespace cuzarr {
namespace {

// Runs `body`, rethrowing a cuzarr error with `label` in front of its message.
template <typename Body>
auto labelled(const std::string& label, Body&& body) {
  try {
    return body();
  } catch (const Error& e) {
    throw_error(e.code(), fmt::format("{}: {}", label, e.what()));
  }
}

}  // namespace

void HostCompressionBackend::compress(std::span<CompressTask> tasks,
                                      const CompressorOptions& options, const Stream&) const {
  parallel_for(tasks.size(), [&](size_t i) {
    CompressTask& task = tasks[i];
    task.compressed_size =
        labelled(task.label, [&] { return compress_chunk(task.input, task.output, options); });
  });
}

void HostCompressionBackend::decompress(std::span<const DecompressTask> tasks,
                                        const Stream&) const {
  parallel_for(tasks.size(), [&](size_t i) {
    const DecompressTask& task = tasks[i];
    labelled(task.label, [&] { decompress_chunk(task.input, task.output); });
  });
}

size_t HostCompressionBackend::decompress_prefix(std::span<const std::byte> input,
                                                 std::span<std::byte> output,
                                                 const std::string& label) const {
  return labelled(label, [&] { return decompress_chunk_prefix(input, output); });
}

std::optional<size_t> HostCompressionBackend::find_stream_size(std::span<const std::byte>,
                                                               size_t) const {
  return std::nullopt;
}

size_t HostCompressionBackend::decompress_chunk_prefix(std::span<const std::byte> input,
                                                       std::span<std::byte> output) const {
  const auto size = find_stream_size(input, output.size());
  if (!size) {
    throw UnsupportedError(fmt::format("{}: the end of a stream cannot be found without decoding",
                                       compression_algorithm_name(algorithm())));
  }
  decompress_chunk(input.first(*size), output);
  return *size;
}

void HostCompressionBackend::decompress_chunk(std::span<const std::byte> input,
                                              std::span<std::byte> output) const {
  const size_t used = decompress_chunk_prefix(input, output);
  if (used != input.size()) {
    throw CorruptDataError(fmt::format("{}: the stream ends after {} of its {} compressed bytes",
                                       compression_algorithm_name(algorithm()), used,
                                       input.size()));
  }
}

}  // namespace cuzarr
