#include "cuzarr/codec/codec_placement.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"

namespace cuzarr {
namespace {

constexpr std::string_view kNumcodecsPrefix = "numcodecs.";
constexpr std::string_view kDefaultName = "default";

std::string_view trimmed(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view without_numcodecs_prefix(std::string_view name) {
  if (name.starts_with(kNumcodecsPrefix)) name.remove_prefix(kNumcodecsPrefix.size());
  return name;
}

std::optional<Placement> placement_from_name(std::string_view text) {
  if (text == "auto") return Placement::automatic;
  if (text == "cpu") return Placement::cpu;
  if (text == "gpu") return Placement::gpu;
  return std::nullopt;
}

std::vector<std::string_view> split_entries(std::string_view text) {
  std::vector<std::string_view> entries;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    entries.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return entries;
}

// Whether a registered codec is called `key` (with or without the "numcodecs." prefix).
bool is_known_codec(std::string_view key) {
  const auto& registry = CodecRegistry::instance();
  return registry.contains(std::string(key)) ||
         registry.contains(fmt::format("{}{}", kNumcodecsPrefix, key));
}

// Adds one "name=placement" entry (or a bare placement: the fallback) to `into`. Throws
// InvalidArgumentError naming the entry.
void add_entry(std::string_view raw, CodecPlacement& into, bool& fallback_given) {
  const std::string_view entry = trimmed(raw);
  const size_t equals = entry.find('=');
  const auto fail = [&](std::string_view why) {
    throw InvalidArgumentError(fmt::format("codec placement entry \"{}\": {}", entry, why));
  };
  const std::string_view name = equals == std::string_view::npos
                                    ? kDefaultName
                                    : without_numcodecs_prefix(trimmed(entry.substr(0, equals)));
  const std::string_view value =
      equals == std::string_view::npos ? entry : trimmed(entry.substr(equals + 1));
  if (entry.empty()) fail("empty (entries are name=auto|gpu|cpu, separated by commas)");
  if (name.empty()) fail("no codec name before \"=\"");
  const auto placement = placement_from_name(value);
  if (!placement) fail(fmt::format("the placement \"{}\" is not auto, gpu or cpu", value));
  if (name == kDefaultName) {
    if (fallback_given) fail("the default placement is given twice");
    fallback_given = true;
    into.fallback = *placement;
    return;
  }
  if (!is_known_codec(name)) fail(fmt::format("no registered codec is named \"{}\"", name));
  if (!into.codecs.emplace(std::string(name), *placement).second)
    fail(fmt::format("codec \"{}\" is given twice", name));
}

}  // namespace

std::string_view placement_name(Placement placement) {
  switch (placement) {
    case Placement::automatic:
      return "auto";
    case Placement::cpu:
      return "cpu";
    case Placement::gpu:
      return "gpu";
  }
  return "auto";
}

CodecPlacement CodecPlacement::parse(std::string_view text) {
  CodecPlacement result;
  if (trimmed(text).empty()) return result;
  bool fallback_given = false;
  for (const std::string_view entry : split_entries(text)) add_entry(entry, result, fallback_given);
  return result;
}

Placement CodecPlacement::of(std::string_view codec_name) const {
  const auto it = codecs.find(std::string(without_numcodecs_prefix(codec_name)));
  return it == codecs.end() ? fallback : it->second;
}

std::string CodecPlacement::to_string() const {
  std::string text;
  for (const auto& [name, placement] : codecs)
    text += fmt::format("{}{}={}", text.empty() ? "" : ",", name, placement_name(placement));
  if (text.empty()) return std::string(placement_name(fallback));
  if (fallback != Placement::automatic)
    text += fmt::format(",{}={}", kDefaultName, placement_name(fallback));
  return text;
}

void CodecPlacement::validate() const {
  for (const auto& [name, placement] : codecs) {
    const std::string entry = fmt::format("{}={}", name, placement_name(placement));
    if (name.empty())
      throw InvalidArgumentError(
          fmt::format("codec placement entry \"{}\": the codec name is empty", entry));
    if (without_numcodecs_prefix(name) != name)
      throw InvalidArgumentError(fmt::format(
          "codec placement entry \"{}\": name the codec without the \"numcodecs.\" prefix", entry));
    if (!is_known_codec(name))
      throw InvalidArgumentError(fmt::format(
          "codec placement entry \"{}\": no registered codec is named \"{}\"", entry, name));
  }
}

CodecPlacement parse_codec_placement_or_warn(std::string_view text, std::string_view source) {
  CodecPlacement result;
  if (trimmed(text).empty()) return result;
  bool fallback_given = false;
  for (const std::string_view entry : split_entries(text)) {
    try {
      add_entry(entry, result, fallback_given);
    } catch (const InvalidArgumentError& e) {
      log_message(fmt::format("{}=\"{}\": {}; the entry is ignored", source, text, e.what()));
    }
  }
  return result;
}

const CodecPlacement& codec_placement_from_environment() {
  static const CodecPlacement placement = [] {
    const char* value = std::getenv("CUZARR_GPU_DECODE");
    return parse_codec_placement_or_warn(value ? value : "", "CUZARR_GPU_DECODE");
  }();
  return placement;
}

}  // namespace cuzarr
