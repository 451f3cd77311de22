// Per-chunk status of a batched codec call. A batched call never throws for one bad chunk: it
// marks that chunk's status and goes on with the others; the caller turns a bad status into an
// error that names the chunk's key.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

struct ChunkStatus {
  bool ok = true;
  ErrorCode code = ErrorCode::corrupt_data;
  std::string message;

  void fail(ErrorCode c, std::string m) {
    ok = false;
    code = c;
    message = std::move(m);
  }
};

/// Runs body(i) for every chunk i whose status is still ok, in parallel on the CPU thread pool.
/// An Error thrown by body(i) marks status[i] with its code and message; other exceptions are
/// recorded as corrupt_data.
void for_each_chunk(std::span<ChunkStatus> status, const std::function<void(size_t)>& body);

/// Throws InvalidArgumentError naming `codec` unless a batch has as many inputs and outputs as
/// statuses (every codec's encode and decode check their spans with it).
void check_batch_sizes(std::string_view codec, size_t inputs, size_t outputs, size_t statuses);

/// Throws the first failed status as an Error whose message starts with `context(i)` (for
/// example the chunk key); does nothing when every status is ok.
void throw_if_failed(std::span<const ChunkStatus> status,
                     const std::function<std::string(size_t)>& context);

}  // namespace cuzarr
