#include "element_text.hpp"

#include <fmt/format.h>

#include <array>

namespace cuzarr::cli {
namespace {

// Days since 1970-01-01 -> proleptic Gregorian year, month, day (the civil-from-days algorithm
// of H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
void civil_from_days(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string date_text(int64_t days) {
  int64_t year;
  unsigned month, day;
  civil_from_days(days, year, month, day);
  return fmt::format("{:04}-{:02}-{:02}", year, month, day);
}

}  // namespace

std::string format_datetime(int64_t count, const DataType& dtype) {
  if (count == kNotATime) return "NaT";
  const __int128 value = static_cast<__int128>(count) * dtype.scale_factor();
  switch (dtype.time_unit()) {
    case TimeUnit::Y:
      return fmt::format("{:04}", static_cast<int64_t>(1970 + value));
    case TimeUnit::M: {
      const auto months = static_cast<int64_t>(floor_div(value, 1));
      const int64_t year = 1970 + static_cast<int64_t>(floor_div(months, 12));
      const int64_t month = months - (year - 1970) * 12 + 1;
      return fmt::format("{:04}-{:02}", year, month);
    }
    case TimeUnit::W:
      return date_text(static_cast<int64_t>(value * 7));
    case TimeUnit::D:
      return date_text(static_cast<int64_t>(value));
    default:
      break;
  }
  // Units below a day: split into days, seconds of the day and the fraction.
  struct Sub {
    TimeUnit unit;
    int64_t per_second;  ///< 0 for units of a minute or more
    int64_t per_day;
    int fraction_digits;
  };
  static constexpr std::array<Sub, 9> kSubs{{
      {TimeUnit::h, 0, 24, 0},
      {TimeUnit::m, 0, 1440, 0},
      {TimeUnit::s, 1, 86400, 0},
      {TimeUnit::ms, 1000, 86400000LL, 3},
      {TimeUnit::us, 1000000, 86400000000LL, 6},
      {TimeUnit::ns, 1000000000LL, 86400000000000LL, 9},
      {TimeUnit::ps, 1000000000000LL, 0, 12},
      {TimeUnit::fs, 1000000000000000LL, 0, 15},
      {TimeUnit::as, 1000000000000000000LL, 0, 18},
  }};
  for (const auto& sub : kSubs) {
    if (sub.unit != dtype.time_unit()) continue;
    const __int128 per_day =
        sub.per_day != 0 ? sub.per_day : static_cast<__int128>(sub.per_second) * 86400;
    const auto days = static_cast<int64_t>(floor_div(value, per_day));
    const __int128 in_day = value - static_cast<__int128>(days) * per_day;
    std::string text = date_text(days);
    if (sub.unit == TimeUnit::h) return text + fmt::format("T{:02}", static_cast<int>(in_day));
    if (sub.unit == TimeUnit::m) {
      return text + fmt::format("T{:02}:{:02}", static_cast<int>(in_day / 60),
                                static_cast<int>(in_day % 60));
    }
    const auto seconds = static_cast<int64_t>(in_day / sub.per_second);
    const auto fraction = static_cast<int64_t>(in_day % sub.per_second);
    text += fmt::format("T{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
    if (sub.fraction_digits > 0) text += fmt::format(".{:0{}}", fraction, sub.fraction_digits);
    return text;
  }
  return std::to_string(count);
}

std::string python_str_literal(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7F) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;  // printable ASCII and UTF-8 sequences as they are
    }
  }
  out += quote;
  return out;
}

std::string python_bytes_literal(std::string_view bytes) {
  const bool has_single = bytes.find('\'') != std::string_view::npos;
  const bool has_double = bytes.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out = "b";
  out += quote;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u >= 0x7F) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

}  // namespace cuzarr::cli
