#include "cuzarr/core/log.hpp"

#include <iostream>
#include <mutex>
#include <set>

namespace cuzarr {
namespace {

struct LogState {
  std::mutex mutex;
  std::function<void(std::string_view)> sink = [](std::string_view message) {
    std::cerr << "cuzarr: " << message << '\n';
  };
  std::set<std::string> logged_keys;
};

LogState& state() {
  static LogState instance;
  return instance;
}

}  // namespace

void set_log_sink(std::function<void(std::string_view message)> sink) {
  std::lock_guard lock(state().mutex);
  state().sink = std::move(sink);
}

void log_message(std::string_view message) {
  std::lock_guard lock(state().mutex);
  if (state().sink) state().sink(message);
}

void log_once(const std::string& key, std::string_view message) {
  std::lock_guard lock(state().mutex);
  if (!state().logged_keys.insert(key).second) return;
  if (state().sink) state().sink(message);
}

}  // namespace cuzarr
