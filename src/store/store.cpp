#include "cuzarr/store/store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// "a/b/" and "a/b" name the same directory; "" and "/" the root.
std::string_view strip_trailing_slash(std::string_view prefix) {
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  return prefix;
}

// The key for a message, with control characters (a NUL would cut the message short) as \xNN.
std::string printable(std::string_view key) {
  std::string out;
  for (char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::vector<std::optional<Buffer>> Store::get_many(std::span<const KeyRange> requests,
                                                   MemoryKind kind) const {
  std::vector<std::optional<Buffer>> results;
  results.reserve(requests.size());
  for (const auto& request : requests) results.push_back(get(request.key, request.range, kind));
  return results;
}

void Store::get_many_each(std::span<const KeyRange> requests, MemoryKind kind,
                          const ReadyValue& ready) const {
  auto results = get_many(requests, kind);
  for (size_t i = 0; i < results.size(); ++i) ready(i, std::move(results[i]));
}

void Store::set(std::string_view key, std::string_view text) {
  set(key, std::as_bytes(std::span(text.data(), text.size())));
}

void Store::set_parts(std::string_view key, std::span<const std::span<const std::byte>> parts) {
  if (parts.size() == 1) {
    set(key, parts[0]);
    return;
  }
  size_t size = 0;
  for (const auto& part : parts) size += part.size();
  Buffer joined = Buffer::allocate(size);
  std::byte* cursor = joined.data();
  for (const auto& part : parts) {
    if (!part.empty()) std::memcpy(cursor, part.data(), part.size());
    cursor += part.size();
  }
  set(key, joined.bytes());
}

void Store::erase_prefix(std::string_view prefix) {
  prefix = strip_trailing_slash(prefix);
  if (!prefix.empty()) validate_store_key(prefix);
  // Directory semantics: "a" removes "a/x" and "a/b/y", never "ab" (nor a value stored at "a").
  const std::string directory = prefix.empty() ? std::string() : std::string(prefix) + "/";
  for (const auto& key : list(directory)) erase(key);
}

DirectoryListing Store::list_dir(std::string_view prefix) const {
  prefix = strip_trailing_slash(prefix);
  if (!prefix.empty()) validate_store_key(prefix);
  const std::string directory = prefix.empty() ? std::string() : std::string(prefix) + "/";
  DirectoryListing listing;
  for (const auto& key : list(directory)) {
    std::string_view rest = std::string_view(key).substr(directory.size());
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      listing.keys.emplace_back(rest);
    } else {
      // Keys arrive sorted, so children of one sub-prefix are adjacent.
      std::string_view child = rest.substr(0, slash);
      if (listing.prefixes.empty() || listing.prefixes.back() != child)
        listing.prefixes.emplace_back(child);
    }
  }
  // Keys "a.b/x" < "a/y" but prefixes "a" < "a.b": the order of prefixes needs its own sort.
  std::sort(listing.prefixes.begin(), listing.prefixes.end());
  listing.prefixes.erase(std::unique(listing.prefixes.begin(), listing.prefixes.end()),
                         listing.prefixes.end());
  return listing;
}

void validate_store_key(std::string_view key) {
  auto fail = [&](std::string_view why) {
    throw InvalidArgumentError(fmt::format("invalid store key \"{}\": {}", printable(key), why));
  };
  if (key.empty()) fail("keys must not be empty");
  if (key.front() == '/') fail("keys are relative and must not start with '/'");
  if (key.find('\\') != std::string_view::npos)
    fail("keys are '/'-separated and must not contain '\\'");
  if (key.find('\0') != std::string_view::npos) fail("keys must not contain NUL bytes");
  size_t begin = 0;
  while (true) {
    const size_t end = key.find('/', begin);
    const std::string_view segment =
        key.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    if (segment.empty()) fail("keys must not have empty segments (\"//\" or a trailing '/')");
    if (segment == "." || segment == "..") fail("keys must not have \".\" or \"..\" segments");
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
}

}  // namespace cuzarr
