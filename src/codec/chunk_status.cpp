#include "cuzarr/codec/chunk_status.hpp"

#include <fmt/format.h>

#include <exception>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

namespace cuzarr {

void check_batch_sizes(std::string_view codec, size_t inputs, size_t outputs, size_t statuses) {
  if (inputs != statuses || outputs != statuses) {
    throw InvalidArgumentError(
        fmt::format("codec \"{}\": batch sizes of inputs, outputs and statuses differ", codec));
  }
}

void for_each_chunk(std::span<ChunkStatus> status, const std::function<void(size_t)>& body) {
  // Each body runs under its own try block, so parallel_for never sees an exception and one bad
  // chunk cannot cancel the others.
  parallel_for(status.size(), [&](size_t i) {
    if (!status[i].ok) return;
    try {
      body(i);
    } catch (const Error& e) {
      status[i].fail(e.code(), e.what());
    } catch (const std::bad_alloc&) {
      status[i].fail(ErrorCode::corrupt_data, "out of memory while processing the chunk");
    } catch (const std::exception& e) {
      status[i].fail(ErrorCode::corrupt_data, e.what());
    } catch (...) {
      status[i].fail(ErrorCode::corrupt_data, "unknown exception while processing the chunk");
    }
  });
}

void throw_if_failed(std::span<const ChunkStatus> status,
                     const std::function<std::string(size_t)>& context) {
  for (size_t i = 0; i < status.size(); ++i) {
    if (status[i].ok) continue;
    std::string prefix = context ? context(i) : std::string();
    throw_error(status[i].code,
                prefix.empty() ? status[i].message : prefix + ": " + status[i].message);
  }
}

}  // namespace cuzarr
