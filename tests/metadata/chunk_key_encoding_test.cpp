#include "cuzarr/metadata/chunk_key_encoding.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "cuzarr/core/error.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

std::string encode(const ChunkKeyEncoding& encoding, std::vector<int64_t> coords) {
  return encoding.encode(coords);
}

TEST(ChunkKeyEncoding, DefaultEncoding) {
  ChunkKeyEncoding slash;
  EXPECT_EQ(encode(slash, {1, 23, 0}), "c/1/23/0");
  EXPECT_EQ(encode(slash, {7}), "c/7");
  EXPECT_EQ(encode(slash, {}), "c");
  ChunkKeyEncoding dot{ChunkKeyEncoding::Kind::default_, '.'};
  EXPECT_EQ(encode(dot, {1, 2}), "c.1.2");
  EXPECT_EQ(encode(dot, {}), "c");
}

TEST(ChunkKeyEncoding, V2Encoding) {
  ChunkKeyEncoding dot{ChunkKeyEncoding::Kind::v2, '.'};
  EXPECT_EQ(encode(dot, {1, 23, 0}), "1.23.0");
  EXPECT_EQ(encode(dot, {4}), "4");
  EXPECT_EQ(encode(dot, {}), "0");
  ChunkKeyEncoding slash{ChunkKeyEncoding::Kind::v2, '/'};
  EXPECT_EQ(encode(slash, {1, 2}), "1/2");
  EXPECT_EQ(encode(slash, {}), "0");
}

TEST(ChunkKeyEncoding, ParsesWithDefaultSeparators) {
  auto def = ChunkKeyEncoding::from_json(json{{"name", "default"}});
  EXPECT_EQ(def.kind, ChunkKeyEncoding::Kind::default_);
  EXPECT_EQ(def.separator, '/');
  auto v2 = ChunkKeyEncoding::from_json(json{{"name", "v2"}, {"configuration", json::object()}});
  EXPECT_EQ(v2.kind, ChunkKeyEncoding::Kind::v2);
  EXPECT_EQ(v2.separator, '.');
  EXPECT_EQ(ChunkKeyEncoding::from_json("v2"), v2);
  EXPECT_EQ(ChunkKeyEncoding::from_json("default"), def);
}

TEST(ChunkKeyEncoding, ParsesExplicitSeparators) {
  auto def = ChunkKeyEncoding::from_json(
      json::parse(R"({"name":"default","configuration":{"separator":"."}})"));
  EXPECT_EQ(def, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::default_, '.'}));
  auto v2 = ChunkKeyEncoding::from_json(
      json::parse(R"({"name":"v2","configuration":{"separator":"/"}})"));
  EXPECT_EQ(v2, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '/'}));
}

TEST(ChunkKeyEncoding, RoundTrips) {
  for (auto kind : {ChunkKeyEncoding::Kind::default_, ChunkKeyEncoding::Kind::v2}) {
    for (char sep : {'/', '.'}) {
      ChunkKeyEncoding encoding{kind, sep};
      EXPECT_EQ(ChunkKeyEncoding::from_json(encoding.to_json()), encoding);
    }
  }
  EXPECT_EQ(ChunkKeyEncoding{}.to_json(),
            json::parse(R"({"name":"default","configuration":{"separator":"/"}})"));
  EXPECT_EQ((ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'}.to_json()),
            json::parse(R"({"name":"v2","configuration":{"separator":"."}})"));
}

TEST(ChunkKeyEncoding, RejectsMalformed) {
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    ChunkKeyEncoding::from_json(json::parse(R"({"name":"fancy"})")), "name",
                    "fancy");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    ChunkKeyEncoding::from_json(json::parse(R"({"configuration":{}})")), "name");
  EXPECT_ERROR_WITH(InvalidArgumentError, ChunkKeyEncoding::from_json(json::parse(R"({"name":5})")),
                    "name");
  EXPECT_ERROR_WITH(InvalidArgumentError, ChunkKeyEncoding::from_json(json(3)), "name");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    ChunkKeyEncoding::from_json(
                        json::parse(R"({"name":"default","configuration":{"separator":"-"}})")),
                    "separator", "\"-\"");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    ChunkKeyEncoding::from_json(
                        json::parse(R"({"name":"v2","configuration":{"separator":"//"}})")),
                    "separator");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      ChunkKeyEncoding::from_json(json::parse(R"({"name":"v2","configuration":{"separator":1}})")),
      "separator");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      ChunkKeyEncoding::from_json(json::parse(R"({"name":"v2","configuration":"/"})")),
      "configuration");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      ChunkKeyEncoding::from_json(json::parse(R"({"name":"v2","configuration":{"sep":"/"}})")),
      "sep");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    ChunkKeyEncoding::from_json(json::parse(R"({"name":"v2","extra":1})")),
                    "extra");
}

}  // namespace
}  // namespace cuzarr
