// The header line of a CSV history file: delimiter detection (',', ';' or tab, whichever
// the header uses), column names matched in any case with the aliases common exports use,
// and the errors and notes about them. Rows are parsed by csv_reader.cpp.
#include "csv_header.hpp"

#include <algorithm>
#include <optional>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds::csv {
namespace {

// What a header name means. Unrecognised columns are allowed and ignored (exchange exports
// carry trade counts, quote volumes and the like).
enum class Role {
  kTimestamp,
  kDate,
  kTime,
  kOpenTime,
  kOpen,
  kHigh,
  kLow,
  kClose,
  kVolume,
  kAdjClose,
  kOther
};

// "Adj Close", "adj_close", "ADJ-CLOSE" and MetaTrader's "<ADJCLOSE>" are one name: lower
// case, without ' ', '_', '-', '<', '>'.
std::string normalise(std::string_view name) {
  std::string key;
  for (const char c : name) {
    if (c == ' ' || c == '_' || c == '-' || c == '<' || c == '>') continue;
    key += c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
  }
  return key;
}

Role role_of(std::string_view name) {
  const std::string key = normalise(name);
  // A bar is stamped with its close time (SPEC §1), so a close_time column is the
  // timestamp; open_time is used only when nothing else is (see read_header).
  if (key == "timestamp" || key == "ts" || key == "datetime" || key == "closetime") {
    return Role::kTimestamp;
  }
  // Alone, either is the timestamp; together (Stooq intraday, MetaTrader 5) they are
  // joined: date and time of day.
  if (key == "date") return Role::kDate;
  if (key == "time") return Role::kTime;
  if (key == "opentime") return Role::kOpenTime;
  if (key == "open") return Role::kOpen;
  if (key == "high") return Role::kHigh;
  if (key == "low") return Role::kLow;
  if (key == "close") return Role::kClose;
  // MetaTrader 5 writes <TICKVOL>, <VOL> (exchange volume) and <SPREAD>: VOL is the volume.
  if (key == "volume" || key == "vol") return Role::kVolume;
  if (key == "adjclose" || key == "adjustedclose") return Role::kAdjClose;
  return Role::kOther;
}

constexpr std::array<Role, kColumnCount> kColumnRoles = {
    Role::kTimestamp, Role::kOpen, Role::kHigh, Role::kLow, Role::kClose, Role::kVolume};

constexpr std::string_view kAccepted =
    "accepted, in any case, ' ' or '_' between words, <angle brackets> allowed: timestamp "
    "(or date, datetime, time, close_time, open_time, ts; or date and time in two columns), "
    "open, high, low, close, volume (or vol); other columns are ignored; "
    "delimiter ',', ';' or tab";

// Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "'" + s + "'".
std::string quote(std::string_view s) {
  std::string out(1, '\'');
  out.append(s);
  out += '\'';
  return out;
}

std::string quoted_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + quote(n);
  return out;
}

bool looks_like_a_timestamp(std::string_view text) {
  int64_t ns = 0;
  return parse_timestamp(text, ns) || parse_epoch_timestamp(text, ns);
}

// Which column holds each bar field, from the names; `line_is_header`: the names came from
// the file's first line (so a first line of data can be named as such).
Header header_of(const std::vector<std::string_view>& names, char delimiter,
                 const std::string& location, bool line_is_header);

}  // namespace

// The header's delimiter: the one of ',', ';', tab it holds most often. A tie between two
// that both occur is refused: which one splits the rows would be a guess.
char detect_delimiter(std::string_view line, const std::string& location) {
  constexpr std::array<char, 3> kCandidates = {',', ';', '\t'};
  std::array<size_t, 3> counts{};
  for (size_t i = 0; i < kCandidates.size(); ++i) {
    counts[i] = static_cast<size_t>(std::count(line.begin(), line.end(), kCandidates[i]));
  }
  const size_t best =
      static_cast<size_t>(std::max_element(counts.begin(), counts.end()) - counts.begin());
  if (counts[best] == 0) return ',';
  for (size_t i = 0; i < kCandidates.size(); ++i) {
    if (i != best && counts[i] == counts[best]) {
      throw CsvError(location + "the header holds " + std::to_string(counts[best]) + " " +
                     delimiter_name(kCandidates[best]) + " and as many " +
                     delimiter_name(kCandidates[i]) +
                     ": cannot tell which one separates the columns");
    }
  }
  return kCandidates[best];
}

std::string delimiter_name(char delimiter) {
  if (delimiter == '\t') return "tab";
  // Appended char by char, as quote() is.
  std::string name(1, '\'');
  name += delimiter;
  name += '\'';
  return name;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void split_fields(std::string_view line, char delimiter, std::vector<std::string_view>& out) {
  out.clear();
  size_t start = 0;
  for (;;) {
    const size_t at = line.find(delimiter, start);
    if (at == std::string_view::npos) {
      out.push_back(trim(line.substr(start)));
      return;
    }
    out.push_back(trim(line.substr(start, at - start)));
    start = at + 1;
  }
}

Header read_header(std::string_view line, const std::string& location) {
  const char delimiter = detect_delimiter(line, location);
  std::vector<std::string_view> names;
  split_fields(line, delimiter, names);
  return header_of(names, delimiter, location, true);
}

Header header_from_names(const std::vector<std::string>& given, char delimiter,
                         const std::string& location) {
  std::vector<std::string_view> names;
  for (const std::string& n : given) {
    if (n.empty())
      throw CsvError(location + "an empty column name; write '_' for a column not used");
    names.push_back(n);
  }
  return header_of(names, delimiter, location, false);
}

namespace {

Header header_of(const std::vector<std::string_view>& names, char delimiter,
                 const std::string& location, bool line_is_header) {
  Header header;
  header.delimiter = delimiter;
  header.field_count = names.size();

  // Field indexes by role, in header order.
  std::array<std::vector<size_t>, static_cast<size_t>(Role::kOther) + 1> by_role;
  for (size_t i = 0; i < names.size(); ++i)
    by_role[static_cast<size_t>(role_of(names[i]))].push_back(i);
  const auto fields_of = [&](Role r) -> const std::vector<size_t>& {
    return by_role[static_cast<size_t>(r)];
  };
  const auto names_of = [&](const std::vector<size_t>& indexes) {
    std::vector<std::string_view> out;
    for (const size_t i : indexes) out.push_back(names[i]);
    return out;
  };

  std::vector<std::string_view> missing;
  for (size_t c = 0; c < kColumnCount; ++c) {
    std::vector<size_t> found = fields_of(kColumnRoles[c]);
    // Exchange klines carry both times; a bar is stamped at its close (SPEC §1), so
    // open_time stands in only for a file that has no other time column.
    bool open_time = false;
    if (c == kTimestamp) {
      const auto& dates = fields_of(Role::kDate);
      const auto& times = fields_of(Role::kTime);
      if (!found.empty()) {
        // A timestamp column beside a date or time column: which one is meant is a guess.
        for (size_t i : dates) found.push_back(i);
        for (size_t i : times) found.push_back(i);
      } else if (dates.size() == 1 && times.size() == 1) {
        found = dates;
        header.time_column = times.front();
      } else {
        found = dates;
        for (size_t i : times) found.push_back(i);
      }
      std::sort(found.begin(), found.end());
      if (found.empty() && !fields_of(Role::kOpenTime).empty()) {
        found = fields_of(Role::kOpenTime);
        open_time = true;
      }
    }
    if (found.size() > 1) {
      throw CsvError(location + "duplicate column '" + std::string(kColumnNames[c]) +
                     "': " + quoted_list(names_of(found)) + " all name it; keep one" +
                     (c == kTimestamp ? " (a date and a time of day may be two columns, "
                                        "named date and time)"
                                      : ""));
    }
    if (found.empty()) {
      missing.push_back(kColumnNames[c]);
      continue;
    }
    header.columns[c] = found.front();
    if (open_time) {
      header.notes.push_back("column " + quote(names[found.front()]) +
                             " is each bar's open time; bars are stamped with it, though a "
                             "bar's timestamp is its close time (a close_time column would "
                             "be used instead)");
    }
  }

  if (!missing.empty()) {
    if (line_is_header && !names.empty() && looks_like_a_timestamp(names.front())) {
      throw CsvError(location + "the first line is data, not a header (its first field " +
                     quote(names.front()) + " is a time): the file needs a header line " +
                     "naming its columns (" + std::string(kAccepted) + ")");
    }
    throw CsvError(location + (missing.size() == 1 ? "missing column " : "missing columns ") +
                   quoted_list(missing) + " (found " + std::to_string(names.size()) + " " +
                   delimiter_name(header.delimiter) + "-separated: " + quoted_list(names) + "; " +
                   std::string(kAccepted) + ")");
  }
  if (const auto& adjusted = fields_of(Role::kAdjClose); !adjusted.empty()) {
    header.notes.push_back("column " + quote(names[adjusted.front()]) +
                           " is not used: prices are the file's open, high, low and close, "
                           "not adjusted for splits or dividends");
  }
  return header;
}

}  // namespace

}  // namespace wfod::feeds::csv
