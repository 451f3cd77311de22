#include "cuzarr/core/log.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cuzarr {
namespace {

TEST(Log, MessagesGoToTheSinkAndLogOnceLogsOnce) {
  std::vector<std::string> seen;
  set_log_sink([&](std::string_view m) { seen.emplace_back(m); });
  log_message("one");
  log_once("log-test-key", "two");
  log_once("log-test-key", "three");
  log_once("log-test-other-key", "four");
  set_log_sink({});
  log_message("dropped");
  EXPECT_EQ(seen, (std::vector<std::string>{"one", "two", "four"}));
  set_log_sink([](std::string_view) {});
}

}  // namespace
}  // namespace cuzarr
