#include <gtest/gtest.h>

#include "cuzarr/core/base64.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/interned_bytes.hpp"
#include "cuzarr/core/utf.hpp"

namespace cuzarr {
namespace {

TEST(Utf, RoundTripsEveryLength) {
  const std::string text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";  // a, é, €, 😀
  const auto cps = utf8_to_utf32(text);
  EXPECT_EQ(cps, (std::u32string{U'a', U'\u00e9', U'\u20ac', U'\U0001F600'}));
  EXPECT_EQ(utf32_to_utf8(cps), text);
  EXPECT_TRUE(is_valid_utf8(text));
}

TEST(Utf, RejectsMalformedInput) {
  for (const std::string bad :
       {"\xff", "\xc3", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ab\x80"}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << bad;
    EXPECT_THROW(utf8_to_utf32(bad), InvalidArgumentError);
  }
  EXPECT_THROW(utf32_to_utf8(std::u32string(1, static_cast<char32_t>(0xD800))),
               InvalidArgumentError);
  EXPECT_THROW(utf32_to_utf8(std::u32string(1, static_cast<char32_t>(0x110000))),
               InvalidArgumentError);
}

TEST(Base64, MatchesRfc4648Vectors) {
  // RFC 4648, section 10.
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"},
                                                         {std::string(3, '\0'), "AAAA"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(base64_encode(bytes), text);
    EXPECT_EQ(base64_decode(text), bytes);
  }
}

TEST(Base64, RejectsMalformedText) {
  for (const char* bad : {"Zg=", "Z===", "Zg=a", "Zm9v!", "=Zg="}) {
    EXPECT_THROW(base64_decode(bad), InvalidArgumentError) << bad;
  }
}

TEST(InternedBytes, SharesEqualContents) {
  const auto a = intern_bytes("fill");
  const auto b = intern_bytes(std::string("fi") + "ll");
  EXPECT_EQ(a.view(), "fill");
  EXPECT_EQ(a.data, b.data);
  const auto empty = intern_bytes("");
  EXPECT_EQ(empty.data, nullptr);
  EXPECT_EQ(empty.size, 0u);
}

}  // namespace
}  // namespace cuzarr
