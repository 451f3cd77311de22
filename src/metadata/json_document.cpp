#include "cuzarr/metadata/json_document.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

struct NonFiniteToken {
  std::string_view token;
  std::string_view stand_in;  // a string literal of the token's length (error positions hold)
  double value;
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// -Infinity before Infinity: the longer token where both start.
const NonFiniteToken kNonFiniteTokens[] = {
    {"NaN", "\"N\"", std::numeric_limits<double>::quiet_NaN()},
    {"-Infinity", "\"-Infini\"", -kInfinity},
    {"Infinity", "\"Infini\"", kInfinity},
};

/// `text` with every NaN, Infinity and -Infinity outside a string replaced by a string of the
/// same length, and for each the ordinal of that string among the document's strings (keys and
/// values in text order) with the number it stands for. Empty `found`: nothing was replaced.
struct StandIns {
  std::string text;
  std::vector<std::pair<size_t, double>> found;
};

StandIns replace_non_finite_tokens(std::string_view text) {
  StandIns out;
  size_t strings = 0, copied = 0;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '"') {  // a string: to its closing quote, past escaped characters
      ++strings;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    const NonFiniteToken* match = nullptr;
    for (const NonFiniteToken& t : kNonFiniteTokens) {
      if (text.substr(i, t.token.size()) == t.token) {
        match = &t;
        break;
      }
    }
    if (match == nullptr) {
      ++i;
      continue;
    }
    out.text.append(text.substr(copied, i - copied));
    out.text.append(match->stand_in);
    out.found.emplace_back(strings++, match->value);
    i += match->token.size();
    copied = i;
  }
  if (!out.found.empty()) out.text.append(text.substr(copied));
  return out;
}

bool has_non_finite_number(const nlohmann::json& j) {
  if (j.is_number_float()) return !std::isfinite(j.get<double>());
  if (!j.is_structured()) return false;
  for (const auto& item : j) {
    if (has_non_finite_number(item)) return true;
  }
  return false;
}

// The layout of nlohmann::json::dump: with indent >= 0, members one per line, indented by depth;
// with indent < 0, no whitespace at all.
void write_json(const nlohmann::json& j, int indent, int depth, std::string& out) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) {
    const double v = j.get<double>();
    out += std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (!j.is_structured()) {
    out += j.dump();
    return;
  }
  const bool object = j.is_object();
  if (j.empty()) {
    out += object ? "{}" : "[]";
    return;
  }
  const std::string inner(indent >= 0 ? static_cast<size_t>(indent) * (depth + 1) : 0, ' ');
  out += object ? '{' : '[';
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ',';
    first = false;
    if (indent >= 0) out += '\n' + inner;
    if (object) {
      out += nlohmann::json(it.key()).dump();
      out += indent >= 0 ? ": " : ":";
    }
    write_json(it.value(), indent, depth + 1, out);
  }
  if (indent >= 0) out += '\n' + std::string(static_cast<size_t>(indent) * depth, ' ');
  out += object ? '}' : ']';
}

}  // namespace

nlohmann::json parse_json_document(std::string_view text, const std::string& source) {
  try {
    StandIns stand_ins = replace_non_finite_tokens(text);
    if (stand_ins.found.empty()) return nlohmann::json::parse(text.begin(), text.end());
    // The parser reports keys and values in text order: the stand-ins are found by ordinal, so
    // no string of the document is taken for one.
    size_t ordinal = 0, next = 0;
    bool stand_in_key = false;
    const auto put_back = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      const bool key = event == nlohmann::json::parse_event_t::key;
      if (key || (event == nlohmann::json::parse_event_t::value && parsed.is_string())) {
        if (next < stand_ins.found.size() && stand_ins.found[next].first == ordinal) {
          if (key) stand_in_key = true;
          parsed = stand_ins.found[next].second;
          ++next;
        }
        ++ordinal;
      }
      return true;
    };
    nlohmann::json document = nlohmann::json::parse(stand_ins.text, put_back);
    if (stand_in_key) {
      throw InvalidArgumentError(fmt::format(
          "{}: not valid JSON: an object key is NaN, Infinity or -Infinity, not a string", source));
    }
    return document;
  } catch (const nlohmann::json::parse_error& e) {
    throw InvalidArgumentError(fmt::format("{}: not valid JSON: {}", source, e.what()));
  }
}

std::string dump_json_document(const nlohmann::json& document, int indent) {
  if (!has_non_finite_number(document)) return document.dump(indent);
  std::string out;
  write_json(document, indent, 0, out);
  return out;
}

}  // namespace cuzarr
