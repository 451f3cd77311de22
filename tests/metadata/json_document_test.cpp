#include "cuzarr/metadata/json_document.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// What Python's json.dumps (zarr-python's writer) makes of attributes holding non-finite floats.
TEST(JsonDocument, ReadsTheNonFiniteTokensOfPythonsJson) {
  const auto j = parse_json_document(
      R"({"scale": NaN, "range": [-Infinity, 0.5, Infinity], "nested": {"v": [NaN, {"w": -Infinity}]}})",
      "a/.zattrs");
  ASSERT_TRUE(j["scale"].is_number_float());
  EXPECT_TRUE(std::isnan(j["scale"].get<double>()));
  EXPECT_EQ(j["range"][0].get<double>(), -kInfinity);
  EXPECT_EQ(j["range"][1].get<double>(), 0.5);
  EXPECT_EQ(j["range"][2].get<double>(), kInfinity);
  EXPECT_TRUE(std::isnan(j["nested"]["v"][0].get<double>()));
  EXPECT_EQ(j["nested"]["v"][1]["w"].get<double>(), -kInfinity);
  EXPECT_EQ(parse_json_document("NaN", "x").is_number_float(), true);
}

// Strings keep their text, the stand-ins' own text included, and strings that hold the tokens,
// quotes and escapes.
TEST(JsonDocument, StringsAreNeverTakenForTokens) {
  const auto j = parse_json_document(
      R"({"N": "N", "NaN": "NaN", "q": "say \"NaN\" \\", "Infini": ["-Infini", -Infinity, "Infini"], "x": Infinity})",
      "zarr.json");
  EXPECT_EQ(j["N"], "N");
  EXPECT_EQ(j["NaN"], "NaN");
  EXPECT_EQ(j["q"], "say \"NaN\" \\");
  EXPECT_EQ(j["Infini"][0], "-Infini");
  EXPECT_EQ(j["Infini"][1].get<double>(), -kInfinity);
  EXPECT_EQ(j["Infini"][2], "Infini");
  EXPECT_EQ(j["x"].get<double>(), kInfinity);
}

TEST(JsonDocument, ErrorsNameTheSource) {
  EXPECT_EQ(parse_json_document(R"({"a": [1, 2]})", "g/zarr.json"),
            nlohmann::json::parse(R"({"a": [1, 2]})"));
  for (const char* text :
       {"{ not json", "{\"a\": ", "", "{NaN: 1}", "[NaNa]", "[-NaN]", "{\"a\": Infinity"}) {
    try {
      parse_json_document(text, "g/zarr.json");
      ADD_FAILURE() << text << " was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("g/zarr.json: not valid JSON"), std::string::npos)
          << e.what();
    }
  }
}

TEST(JsonDocument, WritesWhatDumpWritesForFiniteDocuments) {
  const auto j = nlohmann::json::parse(
      R"({"a": 1, "b": [1, 2.5, "x\n\u00e9"], "c": {}, "d": [], "e": {"f": null, "g": [true, {}]}})");
  for (int indent : {-1, 0, 2, 4}) {
    EXPECT_EQ(dump_json_document(j, indent), j.dump(indent)) << indent;
    // The writer for documents with non-finite numbers lays them out the same way.
    nlohmann::json with = j;
    with["z"] = std::numeric_limits<double>::quiet_NaN();
    nlohmann::json expected = j;
    expected["z"] = "@";
    std::string text = expected.dump(indent);
    text.replace(text.find("\"@\""), 3, "NaN");
    EXPECT_EQ(dump_json_document(with, indent), text) << indent;
  }
}

TEST(JsonDocument, NonFiniteNumbersRoundTrip) {
  nlohmann::json j = {{"nan", std::numeric_limits<double>::quiet_NaN()},
                      {"inf", kInfinity},
                      {"list", {-kInfinity, 1, "NaN"}}};
  const std::string text = dump_json_document(j, 2);
  EXPECT_NE(text.find("\"inf\": Infinity"), std::string::npos) << text;
  EXPECT_NE(text.find("-Infinity"), std::string::npos) << text;
  EXPECT_EQ(text.find("null"), std::string::npos) << text;
  const auto back = parse_json_document(text, "x");
  EXPECT_TRUE(std::isnan(back["nan"].get<double>()));
  EXPECT_EQ(back["inf"].get<double>(), kInfinity);
  EXPECT_EQ(back["list"][0].get<double>(), -kInfinity);
  EXPECT_EQ(back["list"][1], 1);
  EXPECT_EQ(back["list"][2], "NaN");
}

}  // namespace
}  // namespace cuzarr
