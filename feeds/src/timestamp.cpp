// Timestamp text <-> int64 ns since the Unix epoch, UTC (SPEC §1): the ISO-8601 subset
// that CSV history files and JSON feeds use. Civil-date arithmetic is proleptic Gregorian,
// done in integers so that every valid text has exactly one value and round-trips.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kSecondsPerDay = 86'400;

// Days from 1970-01-01 to y-m-d. Counting years from March makes the leap day the last day
// of a "year", so the day of the year is a fixed function of the month; 400-year eras
// (146097 days each) keep the arithmetic on non-negative numbers for negative years too.
constexpr int64_t days_from_civil(int64_t y, int m, int d) {
  const int64_t year = m <= 2 ? y - 1 : y;  // the year that began in the last March
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;                          // [0, 399]
  const int64_t month_from_march = m > 2 ? m - 3 : m + 9;                // [0, 11]
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + d - 1;  // [0, 365]
  const int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;  // [0, 146096]
  return era * 146'097 + day_of_era - 719'468;  // 719468 = days from 0000-03-01 to 1970-01-01
}

struct CivilDate {
  int64_t year;
  int month, day;
};

// The inverse of days_from_civil.
constexpr CivilDate civil_from_days(int64_t days) {
  const int64_t z = days + 719'468;
  const int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
  const int64_t day_of_era = z - era * 146'097;  // [0, 146096]
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36'524 - day_of_era / 146'096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_from_march = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  const int month =
      static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  const int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

static_assert(days_from_civil(1970, 1, 1) == 0);
static_assert(days_from_civil(2000, 3, 1) == 11'017);
static_assert(days_from_civil(1969, 12, 31) == -1);
static_assert(civil_from_days(11'016).month == 2 && civil_from_days(11'016).day == 29);

constexpr bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

constexpr int days_in_month(int64_t y, int m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Exactly `count` ASCII digits at text[pos...]; false if any is missing or not a digit.
bool read_digits(std::string_view text, size_t pos, size_t count, int& value) {
  if (pos + count > text.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  value = v;
  return true;
}

}  // namespace

bool parse_timestamp(std::string_view text, int64_t& ts_ns) {
  // YYYY-MM-DD
  int year = 0, month = 0, day = 0;
  if (!read_digits(text, 0, 4, year) || text.size() < 10 || text[4] != '-' ||
      !read_digits(text, 5, 2, month) || text[7] != '-' || !read_digits(text, 8, 2, day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return false;

  int hour = 0, minute = 0, second = 0;
  int64_t fraction_ns = 0;
  int64_t offset_seconds = 0;  // local time minus UTC
  size_t pos = 10;
  if (pos < text.size()) {
    // THH:MM:SS (or a space for the T)
    if ((text[pos] != 'T' && text[pos] != ' ') || !read_digits(text, pos + 1, 2, hour) ||
        pos + 3 >= text.size() || text[pos + 3] != ':' || !read_digits(text, pos + 4, 2, minute) ||
        pos + 6 >= text.size() || text[pos + 6] != ':' || !read_digits(text, pos + 7, 2, second)) {
      return false;
    }
    // No leap seconds: bars are stamped on a POSIX clock.
    if (hour > 23 || minute > 59 || second > 59) return false;
    pos += 9;
    // .fraction, 1-9 digits
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      size_t digits = 0;
      int64_t scale = kNsPerSecond;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (++digits > 9) return false;
        scale /= 10;
        fraction_ns += (text[pos] - '0') * scale;
        ++pos;
      }
      if (digits == 0) return false;
    }
    // Z | +HH:MM | -HH:MM | nothing (UTC)
    if (pos < text.size()) {
      if (text[pos] == 'Z') {
        ++pos;
      } else if (text[pos] == '+' || text[pos] == '-') {
        int off_h = 0, off_m = 0;
        if (!read_digits(text, pos + 1, 2, off_h) || pos + 3 >= text.size() ||
            text[pos + 3] != ':' || !read_digits(text, pos + 4, 2, off_m) || off_h > 23 ||
            off_m > 59) {
          return false;
        }
        offset_seconds = (off_h * 3600 + off_m * 60) * (text[pos] == '-' ? -1 : 1);
        pos += 6;
      } else {
        return false;
      }
    }
    if (pos != text.size()) return false;
  }

  const int64_t seconds = days_from_civil(year, month, day) * kSecondsPerDay + hour * 3600 +
                          minute * 60 + second - offset_seconds;
  // int64 ns spans 1677-09-21 .. 2262-04-11; anything outside does not fit. Before 1970 the
  // fraction is borrowed from the next whole second, so that the earliest representable
  // instant does not overflow on its way to the result.
  int64_t whole = seconds;
  int64_t fraction = fraction_ns;
  if (whole < 0 && fraction > 0) {
    whole += 1;
    fraction -= kNsPerSecond;
  }
  int64_t ns = 0;
  if (__builtin_mul_overflow(whole, kNsPerSecond, &ns) ||
      __builtin_add_overflow(ns, fraction, &ns)) {
    return false;
  }
  ts_ns = ns;
  return true;
}

bool parse_epoch_timestamp(std::string_view text, int64_t& ts_ns) {
  // Whole digits only; 20 digits would not fit uint64 either way.
  if (text.empty() || text.size() > 19) return false;
  uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  // The unit from the magnitude: each unit's range is 1e8.. of it, three decades wide.
  int64_t scale = 0;
  if (v < 100'000'000ULL) return false;  // before 1973 in seconds, or a YYYYMMDD date
  if (v < 100'000'000'000ULL) {
    scale = kNsPerSecond;
  } else if (v < 100'000'000'000'000ULL) {
    scale = 1'000'000;
  } else if (v < 100'000'000'000'000'000ULL) {
    scale = 1'000;
  } else {
    scale = 1;
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) return false;
  int64_t ns = 0;
  if (__builtin_mul_overflow(static_cast<int64_t>(v), scale, &ns)) return false;
  ts_ns = ns;
  return true;
}

std::string format_timestamp(int64_t ts_ns) {
  // Floor division, so times before 1970 get a non-negative fraction.
  int64_t seconds = ts_ns / kNsPerSecond;
  int64_t fraction_ns = ts_ns % kNsPerSecond;
  if (fraction_ns < 0) {
    fraction_ns += kNsPerSecond;
    --seconds;
  }
  int64_t days = seconds / kSecondsPerDay;
  int64_t second_of_day = seconds % kSecondsPerDay;
  if (second_of_day < 0) {
    second_of_day += kSecondsPerDay;
    --days;
  }
  const CivilDate date = civil_from_days(days);
  char buf[48];
  int len = std::snprintf(
      buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d", static_cast<long long>(date.year),
      date.month, date.day, static_cast<int>(second_of_day / 3600),
      static_cast<int>(second_of_day / 60 % 60), static_cast<int>(second_of_day % 60));
  if (fraction_ns != 0) {
    len += std::snprintf(buf + len, sizeof buf - static_cast<size_t>(len), ".%09lld",
                         static_cast<long long>(fraction_ns));
  }
  return std::string(buf, static_cast<size_t>(len)) + "Z";
}

}  // namespace wfod::feeds
