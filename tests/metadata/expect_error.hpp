// Assertion helper: a call throws exactly `Error` and its message contains every given fragment.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#define EXPECT_ERROR_WITH(Error, statement, ...)                                                \
  do {                                                                                          \
    bool thrown_ = false;                                                                       \
    try {                                                                                       \
      statement;                                                                                \
    } catch (const Error& e_) {                                                                 \
      thrown_ = true;                                                                           \
      const std::string message_ = e_.what();                                                   \
      for (std::string_view fragment_ : std::initializer_list<std::string_view>{__VA_ARGS__}) { \
        EXPECT_NE(message_.find(fragment_), std::string::npos)                                  \
            << "message \"" << message_ << "\" lacks \"" << fragment_ << "\"";                  \
      }                                                                                         \
    }                                                                                           \
    EXPECT_TRUE(thrown_) << #statement " did not throw " #Error;                                \
  } while (false)
