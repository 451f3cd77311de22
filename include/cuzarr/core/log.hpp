// cuzarr's log: short notes about choices made at run time (for example a codec that runs on the
// CPU because it has no GPU decoder yet). By default they go to stderr prefixed with "cuzarr: ";
// set_log_sink redirects them (or silences them with an empty function).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace cuzarr {

/// Where log messages go; an empty function drops them. Thread-safe.
void set_log_sink(std::function<void(std::string_view message)> sink);
/// Sends `message` to the sink.
void log_message(std::string_view message);
/// Sends `message` the first time it is logged with `key` in this process, then never again.
void log_once(const std::string& key, std::string_view message);

}  // namespace cuzarr
