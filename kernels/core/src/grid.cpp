// Parameter grids: enum names, axis text parsing (decimal-exact ranges), mixed-radix combo
// ids with the first axis varying fastest (SPEC §5), the rules family's axes (SPEC §5a).
#include "wfod/grid.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>

#include "wfod/detail/grid_axes.hpp"

namespace wfod {
namespace {

template <typename E, size_t N>
E parse_enum(std::string_view text, const char* what,
             const std::pair<std::string_view, E> (&table)[N]) {
  for (const auto& [name, value] : table)
    if (name == text) return value;
  std::string message = "unknown ";
  message.append(what).append(" '").append(text).append("' (expected ");
  for (size_t i = 0; i < N; ++i) message.append(i ? "|" : "").append(table[i].first);
  message.append(")");
  throw std::invalid_argument(message);
}

constexpr std::pair<std::string_view, Family> kFamilies[] = {
    {"ma_cross", Family::ma_cross},
    {"channel_breakout", Family::channel_breakout},
    {"bollinger", Family::bollinger},
    {"rsi_reversion", Family::rsi_reversion},
    {"rules", Family::rules}};
constexpr std::pair<std::string_view, Style> kStyles[] = {{"reversion", Style::reversion},
                                                          {"breakout", Style::breakout}};
constexpr std::pair<std::string_view, MaType> kMas[] = {
    {"sma", MaType::sma}, {"ema", MaType::ema}, {"wma", MaType::wma}, {"hma", MaType::hma}};
constexpr std::pair<std::string_view, Side> kSides[] = {{"long_short", Side::long_short},
                                                        {"long_only", Side::long_only}};
constexpr std::pair<std::string_view, Entry> kEntries[] = {{"state", Entry::state},
                                                           {"cross", Entry::cross}};
constexpr std::pair<std::string_view, Source> kSources[] = {{"close", Source::close},
                                                            {"high_low", Source::high_low}};
constexpr std::pair<std::string_view, Fill> kFills[] = {{"close", Fill::close},
                                                        {"next_open", Fill::next_open}};

template <typename E, size_t N>
std::string_view name_of(E value, const std::pair<std::string_view, E> (&table)[N]) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return "?";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    parts.push_back(trim(s.substr(start, pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

// Guards against grids that would exhaust memory long before they could run.
constexpr size_t kMaxAxisValues = 10'000'000;

long long parse_integer(std::string_view s, std::string_view whole) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
    throw std::invalid_argument("not an integer '" + std::string(s) + "' in '" +
                                std::string(whole) + "'");
  return v;
}

// A decimal number as mantissa * 10^-scale, exactly as written ("1.20" -> 120, scale 2).
struct Decimal {
  long long mantissa = 0;
  int scale = 0;
};

Decimal parse_decimal(std::string_view s, std::string_view whole) {
  auto fail = [&] {
    return std::invalid_argument("not a decimal number '" + std::string(s) + "' in '" +
                                 std::string(whole) + "'");
  };
  if (s.empty()) throw fail();
  bool negative = s.front() == '-';
  if (s.front() == '-' || s.front() == '+') s.remove_prefix(1);
  Decimal d;
  bool seen_dot = false, seen_digit = false;
  for (char c : s) {
    if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else if (c >= '0' && c <= '9') {
      if (d.mantissa > (1LL << 53)) throw fail();
      d.mantissa = d.mantissa * 10 + (c - '0');
      seen_digit = true;
      if (seen_dot) ++d.scale;
    } else {
      throw fail();
    }
  }
  if (!seen_digit || d.scale > 15) throw fail();
  if (negative) d.mantissa = -d.mantissa;
  return d;
}

// Checked: "0:90071992547409920:0.000000000000001" would overflow long long at scale 15.
long long rescale(const Decimal& d, int scale, std::string_view whole) {
  long long m = d.mantissa;
  for (int i = d.scale; i < scale; ++i) {
    if (__builtin_mul_overflow(m, 10, &m))
      throw std::invalid_argument("range '" + std::string(whole) + "' is out of range");
  }
  return m;
}

// Int axes hold ints; the range form is bounded like the list form, which also keeps the
// range arithmetic below far from long long overflow.
int to_int(long long v, std::string_view part) {
  if (v < -2147483647LL || v > 2147483647LL)
    throw std::invalid_argument("integer out of range '" + std::string(part) + "'");
  return static_cast<int>(v);
}

// Exactly rounded double of mantissa * 10^-scale, via its decimal text.
double decimal_to_double(long long mantissa, int scale) {
  char text[48];
  const unsigned long long magnitude = mantissa < 0
                                           ? 0ULL - static_cast<unsigned long long>(mantissa)
                                           : static_cast<unsigned long long>(mantissa);
  // "<sign>digits e-scale" is exact decimal text; strtod rounds it correctly.
  std::snprintf(text, sizeof text, "%s%llue-%d", mantissa < 0 ? "-" : "", magnitude, scale);
  return std::strtod(text, nullptr);
}

double parse_real(std::string_view s, std::string_view whole) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
    throw std::invalid_argument("not a number '" + std::string(s) + "' in '" + std::string(whole) +
                                "'");
  return v;
}

// The first value of `values` (in sorted order) that is listed more than once.
template <typename T>
std::optional<T> first_repeat(const std::vector<T>& values) {
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const auto it = std::adjacent_find(sorted.begin(), sorted.end());
  if (it == sorted.end()) return std::nullopt;
  return *it;
}

std::string value_text(int v) { return std::to_string(v); }
std::string value_text(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
  return std::string(buf, ec == std::errc() ? end : buf);
}
template <typename E>
requires std::is_enum_v<E> std::string value_text(E v) { return std::string(to_string(v)); }

void check_range_shape(bool step_positive, bool ordered, std::string_view text) {
  if (!step_positive)
    throw std::invalid_argument("range '" + std::string(text) + "': step must be > 0");
  if (!ordered)
    throw std::invalid_argument("range '" + std::string(text) + "': stop is below start");
}

}  // namespace

std::string_view to_string(Family v) { return name_of(v, kFamilies); }
std::string_view to_string(MaType v) { return name_of(v, kMas); }
std::string_view to_string(Side v) { return name_of(v, kSides); }
std::string_view to_string(Entry v) { return name_of(v, kEntries); }
std::string_view to_string(Source v) { return name_of(v, kSources); }
std::string_view to_string(Fill v) { return name_of(v, kFills); }
std::string_view to_string(Style v) { return name_of(v, kStyles); }
Family parse_family(std::string_view s) { return parse_enum(s, "family", kFamilies); }
MaType parse_ma(std::string_view s) { return parse_enum(s, "ma", kMas); }
Side parse_side(std::string_view s) { return parse_enum(s, "side", kSides); }
Entry parse_entry(std::string_view s) { return parse_enum(s, "entry", kEntries); }
Source parse_source(std::string_view s) { return parse_enum(s, "source", kSources); }
Fill parse_fill(std::string_view s) { return parse_enum(s, "fill", kFills); }
Style parse_style(std::string_view s) { return parse_enum(s, "style", kStyles); }

std::vector<int> parse_int_axis(std::string_view text) {
  text = trim(text);
  if (text.empty()) throw std::invalid_argument("empty parameter axis");
  std::vector<int> values;
  if (text.find(':') != std::string_view::npos) {
    auto parts = split(text, ':');
    if (parts.size() != 3)
      throw std::invalid_argument("range '" + std::string(text) + "' must be start:stop:step");
    long long start = parse_integer(parts[0], text), stop = parse_integer(parts[1], text),
              step = parse_integer(parts[2], text);
    check_range_shape(step > 0, stop >= start, text);
    to_int(start, parts[0]);
    to_int(stop, parts[1]);
    const long long count = (stop - start) / step + 1;
    if (count > static_cast<long long>(kMaxAxisValues))
      throw std::invalid_argument("range '" + std::string(text) + "' has too many values");
    // By index: `v += step` past stop could overflow for a huge step.
    for (long long i = 0; i < count; ++i) values.push_back(static_cast<int>(start + i * step));
  } else {
    for (auto part : split(text, ',')) values.push_back(to_int(parse_integer(part, text), part));
  }
  return values;
}

std::vector<double> parse_real_axis(std::string_view text) {
  text = trim(text);
  if (text.empty()) throw std::invalid_argument("empty parameter axis");
  std::vector<double> values;
  if (text.find(':') != std::string_view::npos) {
    auto parts = split(text, ':');
    if (parts.size() != 3)
      throw std::invalid_argument("range '" + std::string(text) + "' must be start:stop:step");
    Decimal start = parse_decimal(parts[0], text), stop = parse_decimal(parts[1], text),
            step = parse_decimal(parts[2], text);
    int scale = std::max({start.scale, stop.scale, step.scale});
    long long a = rescale(start, scale, text), b = rescale(stop, scale, text),
              s = rescale(step, scale, text);
    check_range_shape(s > 0, b >= a, text);
    long long span = 0;
    if (__builtin_sub_overflow(b, a, &span))
      throw std::invalid_argument("range '" + std::string(text) + "' is out of range");
    const long long count = span / s + 1;
    if (count > static_cast<long long>(kMaxAxisValues))
      throw std::invalid_argument("range '" + std::string(text) + "' has too many values");
    // By index: a + i * s <= b, so nothing overflows, whatever the step.
    for (long long i = 0; i < count; ++i) values.push_back(decimal_to_double(a + i * s, scale));
  } else {
    for (auto part : split(text, ',')) values.push_back(parse_real(part, text));
  }
  return values;
}

namespace {
// Pairs (a, b), a from `lo` and b from `hi`, with a < b: O((|lo| + |hi|) log |hi|), since
// axes may hold 10^7 values each.
template <typename T>
uint64_t ordered_pairs(const std::vector<T>& lo, const std::vector<T>& hi) {
  std::vector<T> sorted = hi;
  std::sort(sorted.begin(), sorted.end());
  uint64_t n = 0;
  for (const T& a : lo)
    n += static_cast<uint64_t>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), a));
  return n;
}

size_t distinct_periods(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return static_cast<size_t>(std::unique(a.begin(), a.end()) - a.begin());
}

// A rules grid's first value on every axis (a combo the checks below start from).
std::vector<double> first_values(const Grid& g) {
  std::vector<double> v(g.rule_axes.size(), 0.0);
  for (size_t i = 0; i < v.size(); ++i)
    if (!g.rule_axes[i].empty()) v[i] = g.rule_axes[i].front();
  return v;
}

// The combinations of the axes a rules program's `valid` reads, and how many it accepts:
// the axes it does not read multiply both alike, so `valid` runs once per combination of
// its own axes, not once per combo of the grid.
std::pair<uint64_t, uint64_t> rules_valid_pairs(const Grid& g) {
  const rules::Program& program = *g.program;
  if (!program.valid.present()) return {1, 1};
  std::vector<uint32_t> read;
  for (const rules::Node& n : program.valid.nodes)
    if (n.op == rules::Op::param && std::find(read.begin(), read.end(), n.index) == read.end())
      read.push_back(n.index);
  uint64_t total = 1;
  for (uint32_t a : read) total *= g.rule_axes[a].size();
  std::vector<double> values = first_values(g);
  std::vector<size_t> digit(read.size(), 0);
  uint64_t accepted = 0;
  for (uint64_t i = 0; i < total; ++i) {
    if (i > 0) {  // the next combination, first read axis fastest
      for (size_t k = 0; k < read.size(); ++k) {
        const std::vector<double>& axis = g.rule_axes[read[k]];
        if (++digit[k] < axis.size()) {
          values[read[k]] = axis[digit[k]];
          break;
        }
        digit[k] = 0;
        values[read[k]] = axis.front();
      }
    }
    accepted += rules::combo_valid(program, values) ? 1 : 0;
  }
  return {total, accepted};
}

// The values a rules indicator argument takes over the grid: its literal, or its axis.
std::vector<double> argument_values(const Grid& g, const rules::Arg& a) {
  if (!a.is_param) return {a.value};
  return g.rule_axes.at(a.param);
}

// A period as the engine holds it; values no indicator can take (the grid's error) as 0.
int period_of(double v) {
  return v >= 1 && v <= INT_MAX && v == std::floor(v) ? static_cast<int>(v) : 0;
}

// Distinct indicator series a rules grid's used indicators read: (kind, period, high_low),
// the bands counting their SMA and STD (SPEC §4).
uint64_t rules_series(const Grid& g) {
  using rules::Kind;
  std::set<std::tuple<int, int, bool>> rows;
  for (const rules::Indicator& ind : g.program->indicators) {
    if (!ind.used) continue;
    for (double v : argument_values(g, ind.period)) {
      const int n = period_of(v);
      const bool band = ind.kind == Kind::bb_upper || ind.kind == Kind::bb_lower;
      const Kind kind = band || ind.kind == Kind::bb_mid ? Kind::sma : ind.kind;
      rows.insert({static_cast<int>(kind), n, ind.high_low});
      if (band) rows.insert({static_cast<int>(Kind::std), n, false});
    }
  }
  return rows.size();
}
}  // namespace

ComboCount count_combos(const Grid& g) {
  ComboCount c;
  c.total = g.size();
  if (c.total == 0) return c;
  // total = pairs x vol pairs x the other axes; validity is a property of the two pairs.
  // "pairs": the axes the family's rule reads; valid_pairs: their valid combinations.
  uint64_t pairs = 1, valid_pairs = 1;
  auto at_least_2 = [](const std::vector<int>& v) {
    return static_cast<uint64_t>(std::count_if(v.begin(), v.end(), [](int n) { return n >= 2; }));
  };
  switch (g.family) {
    case Family::ma_cross:
      pairs = uint64_t{g.fast.size()} * g.slow.size();
      valid_pairs = ordered_pairs(g.fast, g.slow);
      break;
    case Family::channel_breakout:
      break;
    case Family::bollinger:
      pairs = uint64_t{g.n.size()} * g.k.size();
      valid_pairs = at_least_2(g.n) * static_cast<uint64_t>(std::count_if(
                                          g.k.begin(), g.k.end(), [](double k) { return k > 0; }));
      break;
    case Family::rsi_reversion: {
      pairs = uint64_t{g.n.size()} * g.lo.size() * g.hi.size();
      valid_pairs = at_least_2(g.n) * ordered_pairs(g.lo, g.hi);
      break;
    }
    case Family::rules:  // a program and an axis per param (validate())
      if (g.program && g.rule_axes.size() == g.program->params.size())
        std::tie(pairs, valid_pairs) = rules_valid_pairs(g);
      break;
  }
  uint64_t vol_pairs = 1, valid_vol_pairs = 1;
  if (g.has_vol_filter()) {
    vol_pairs = uint64_t{g.vol_short.size()} * g.vol_long.size();
    valid_vol_pairs = ordered_pairs(g.vol_short, g.vol_long);
  }
  // Each stop's range is a property of its own value (SPEC §5b): the valid stop triples are
  // the product of each axis's in-range values (an absent axis is {0}, in range).
  uint64_t stops = 1, valid_stops = 1;
  auto stop_axis = [&](const std::vector<double>& v, bool (*in_range)(double)) {
    if (v.empty()) return;
    stops *= v.size();
    valid_stops *= static_cast<uint64_t>(std::count_if(v.begin(), v.end(), in_range));
  };
  stop_axis(g.stop_loss, stop_loss_in_range);
  stop_axis(g.take_profit, take_profit_in_range);
  stop_axis(g.trailing_stop, trailing_stop_in_range);
  const uint64_t rest = c.total / pairs / vol_pairs / stops;
  c.valid = valid_pairs * valid_vol_pairs * valid_stops * rest;
  c.family_rule = (pairs - valid_pairs) * vol_pairs * stops * rest;
  c.vol_short_not_below_long = pairs * (vol_pairs - valid_vol_pairs) * stops * rest;
  c.stop_out_of_range = pairs * vol_pairs * (stops - valid_stops) * rest;
  return c;
}

std::string_view family_rule_text(Family f) {
  switch (f) {
    case Family::ma_cross:
      return "fast >= slow";
    case Family::channel_breakout:
      return "";
    case Family::bollinger:
      return "n < 2 or k <= 0";
    case Family::rsi_reversion:
      return "n < 2 or lo >= hi";
    case Family::rules:
      return "rules.valid false";
  }
  return "";
}

uint64_t indicator_series(const Grid& g) {
  uint64_t rows = 0;
  switch (g.family) {
    case Family::ma_cross: {
      std::vector<MaType> ma = g.ma;
      std::sort(ma.begin(), ma.end());
      const auto types = static_cast<uint64_t>(std::unique(ma.begin(), ma.end()) - ma.begin());
      rows = types * distinct_periods(g.fast, g.slow);
      break;
    }
    case Family::channel_breakout: {
      std::vector<Source> src = g.source;
      std::sort(src.begin(), src.end());
      const auto sources = static_cast<uint64_t>(std::unique(src.begin(), src.end()) - src.begin());
      rows = 2 * sources * distinct_periods(g.n, {});
      break;
    }
    case Family::bollinger:  // SMA(n) and STD(n): the bands are formed per combo from k
      rows = 2 * distinct_periods(g.n, {});
      break;
    case Family::rsi_reversion:
      rows = distinct_periods(g.n, {});
      break;
    case Family::rules:
      rows = g.program ? rules_series(g) : 0;
      break;
  }
  return rows + distinct_periods(g.vol_short, g.vol_long);
}

bool Combo::family_valid() const {
  switch (family) {
    case Family::ma_cross:
      return fast >= 1 && slow >= 1 && fast < slow;
    case Family::channel_breakout:
      return n >= 1;
    case Family::bollinger:
      return n >= 2 && k > 0;
    case Family::rsi_reversion:
      return n >= 2 && lo < hi;
    case Family::rules:
      return program && rules::combo_valid(*program, rule_values);
  }
  return false;
}

bool stop_loss_in_range(double v) { return v >= 0 && v < 1; }
bool take_profit_in_range(double v) { return v >= 0; }
bool trailing_stop_in_range(double v) { return v >= 0 && v < 1; }

bool Combo::stops_valid() const {
  return stop_loss_in_range(stop_loss) && take_profit_in_range(take_profit) &&
         trailing_stop_in_range(trailing_stop);
}

bool Combo::valid() const {
  bool ok = family_valid() && stops_valid();
  if (has_vol) ok = ok && vol_short >= 1 && vol_long >= 1 && vol_short < vol_long;
  return ok;
}

std::string RepeatedValue::message() const {
  return "lists " + value +
         " more than once (a repeated value would be evaluated twice and "
         "count twice among the DSR's trials; list each value once)";
}

std::optional<RepeatedValue> Grid::repeated_value() const {
  std::optional<RepeatedValue> found;
  auto check = [&found](const auto& values, const char* axis) {
    if (found) return;
    if (auto v = first_repeat(values)) found = RepeatedValue{axis, value_text(*v)};
  };
  detail::for_each_family_axis(
      family, [&](const char* name, auto axis, auto) { check(this->*axis, name); });
  if (family == Family::rules) {
    for (size_t i = 0; program && i < rule_axes.size() && i < program->params.size(); ++i)
      check(rule_axes[i], program->params[i].c_str());
  }
  check(stop_loss, "stop_loss");
  check(take_profit, "take_profit");
  check(trailing_stop, "trailing_stop");
  check(vol_short, "vol_short");
  check(vol_long, "vol_long");
  check(vol_threshold, "vol_threshold");
  return found;
}

std::vector<AxisInfo> Grid::axes() const {
  std::vector<AxisInfo> a;
  detail::for_each_family_axis(family, [&](const char* name, auto axis, auto) {
    a.push_back({name, (this->*axis).size()});
  });
  if (family == Family::rules) {  // one axis per param, in the program's order (SPEC §5a)
    for (size_t i = 0; program && i < program->params.size(); ++i)
      a.push_back({program->params[i], i < rule_axes.size() ? rule_axes[i].size() : 0});
  }
  if (has_stops()) {  // an axis not given is {0}: size 1
    a.push_back({"stop_loss", std::max<size_t>(stop_loss.size(), 1)});
    a.push_back({"take_profit", std::max<size_t>(take_profit.size(), 1)});
    a.push_back({"trailing_stop", std::max<size_t>(trailing_stop.size(), 1)});
  }
  if (has_vol_filter()) {
    a.push_back({"vol_short", vol_short.size()});
    a.push_back({"vol_long", vol_long.size()});
    a.push_back({"vol_threshold", vol_threshold.size()});
  }
  return a;
}

uint64_t Grid::size() const {
  uint64_t total = 1;
  for (const auto& axis : axes()) {
    if (axis.size == 0) return 0;
    if (total > (uint64_t{1} << 62) / axis.size)
      throw std::invalid_argument("grid has more than 2^62 combos");
    total *= axis.size;
  }
  return total;
}

Combo Grid::decode(uint64_t id) const {
  Combo c;
  c.id = id;
  c.family = family;
  uint64_t rest = id;
  auto take = [&rest](size_t radix) {
    size_t digit = static_cast<size_t>(rest % radix);
    rest /= radix;
    return digit;
  };
  detail::for_each_family_axis(family, [&](const char*, auto axis, auto field) {
    const auto& values = this->*axis;
    c.*field = values[take(values.size())];
  });
  if (family == Family::rules) {
    c.program = program;
    c.rule_values.reserve(rule_axes.size());
    for (const std::vector<double>& axis : rule_axes)
      c.rule_values.push_back(axis[take(axis.size())]);
  }
  if (has_stops()) {
    c.has_stops = true;
    auto stop = [&take](const std::vector<double>& v) {
      return v.empty() ? 0.0 : v[take(v.size())];
    };
    c.stop_loss = stop(stop_loss);
    c.take_profit = stop(take_profit);
    c.trailing_stop = stop(trailing_stop);
  }
  if (has_vol_filter()) {
    c.has_vol = true;
    c.vol_short = vol_short[take(vol_short.size())];
    c.vol_long = vol_long[take(vol_long.size())];
    c.vol_threshold = vol_threshold[take(vol_threshold.size())];
  }
  return c;
}

int Grid::max_period() const {
  int m = 0;
  auto upd = [&m](const std::vector<int>& v) {
    for (int x : v) m = std::max(m, x);
  };
  if (family == Family::ma_cross) {
    upd(fast);
    upd(slow);
  } else if (family == Family::rules) {
    // The indicators the four conditions name (SPEC §5a: only those are ever computed).
    for (size_t i = 0; program && i < program->indicators.size(); ++i) {
      const rules::Indicator& ind = program->indicators[i];
      if (!ind.used || (ind.period.is_param && ind.period.param >= rule_axes.size())) continue;
      for (double v : argument_values(*this, ind.period)) m = std::max(m, period_of(v));
    }
  } else {
    upd(n);  // RSI(n) reads n + 1 closes; the warm-up's 3 x n covers them
  }
  upd(vol_short);
  upd(vol_long);
  return m;
}

namespace {
// validate()'s rules part (SPEC §5a): a program, an axis of finite numbers per param, and
// every value a period or width its indicators can take.
void validate_rules(const Grid& g) {
  if (!g.program) throw std::invalid_argument("rules grid has no compiled program");
  const std::vector<std::string>& params = g.program->params;
  if (g.rule_axes.size() != params.size())
    throw std::invalid_argument("rules grid has " + std::to_string(g.rule_axes.size()) +
                                " axes for " + std::to_string(params.size()) + " params");
  for (size_t i = 0; i < params.size(); ++i) {
    if (g.rule_axes[i].empty())
      throw std::invalid_argument("rules grid needs '" + params[i] + "' values");
    for (double v : g.rule_axes[i])
      if (!std::isfinite(v))
        throw std::invalid_argument("rules grid axis '" + params[i] + "' must be finite");
  }
  if (auto e = rules_argument_error(g))
    throw std::invalid_argument("grid axis '" + params[e->axis] + "': " + e->error.what());
}
}  // namespace

std::optional<RulesArgumentError> rules_argument_error(const Grid& g) {
  if (g.family != Family::rules || !g.program) return std::nullopt;
  const size_t axes = std::min(g.rule_axes.size(), g.program->params.size());
  for (size_t a = 0; a < axes; ++a) {
    for (double v : g.rule_axes[a]) {
      try {
        rules::check_parameter_value(*g.program, static_cast<uint32_t>(a), v);
      } catch (const rules::RuleError& e) {
        return RulesArgumentError{a, e};
      }
    }
  }
  return std::nullopt;
}

void Grid::validate() const {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
  };
  auto periods_ok = [](const std::vector<int>& v) {
    return std::all_of(v.begin(), v.end(), [](int p) { return p >= 1; });
  };
  const std::string name(to_string(family));
  auto needs = [&](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(name + " grid needs '" + what + "' values");
  };
  auto not_here = [&](bool absent, const std::string& what) {
    if (!absent)
      throw std::invalid_argument("'" + what + "' is not a parameter of " + name + " (SPEC §5)");
  };
  auto finite = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
  };
  const bool ma_family = family == Family::ma_cross;
  const bool rules_family = family == Family::rules;
  not_here(rules_family || (!program && rule_axes.empty()), "rules");
  const char* builtin_axis = !fast.empty() ? "fast" : !slow.empty() ? "slow" : "n";
  not_here(!rules_family || (fast.empty() && slow.empty() && n.empty()), builtin_axis);
  not_here(!ma_family || n.empty(), "n");
  not_here(ma_family || rules_family || (fast.empty() && slow.empty()),
           fast.empty() ? "slow" : "fast");
  not_here(family == Family::bollinger || k.empty(), "k");
  not_here(family == Family::rsi_reversion || (lo.empty() && hi.empty()), lo.empty() ? "hi" : "lo");
  switch (family) {
    case Family::ma_cross:
      needs(!fast.empty(), "fast");
      needs(!slow.empty(), "slow");
      needs(!ma.empty(), "ma");
      needs(!entry.empty(), "entry");
      need(periods_ok(fast) && periods_ok(slow), "periods 'fast' and 'slow' must be >= 1");
      break;
    case Family::channel_breakout:
      needs(!n.empty(), "n");
      needs(!source.empty(), "source");
      need(periods_ok(n), "period 'n' must be >= 1");
      break;
    case Family::bollinger:
      needs(!n.empty(), "n");
      needs(!k.empty(), "k");
      needs(!style.empty(), "style");
      need(periods_ok(n), "period 'n' must be >= 1");
      need(finite(k), "band width 'k' must be finite");
      break;
    case Family::rsi_reversion:
      needs(!n.empty(), "n");
      needs(!lo.empty(), "lo");
      needs(!hi.empty(), "hi");
      need(periods_ok(n), "period 'n' must be >= 1");
      for (const auto* levels : {&lo, &hi})
        for (double v : *levels)
          need(std::isfinite(v) && v > 0 && v < 100,
               "RSI levels 'lo' and 'hi' must lie strictly between 0 and 100 (SPEC §5)");
      break;
    case Family::rules:
      validate_rules(*this);
      break;
  }
  need(!side.empty(), "grid needs 'side' values");
  if (has_vol_filter()) {
    need(!vol_short.empty() && !vol_long.empty() && !vol_threshold.empty(),
         "vol_filter needs all of 'vol_short', 'vol_long' and 'vol_threshold'");
    need(periods_ok(vol_short) && periods_ok(vol_long), "vol periods must be >= 1");
    for (double th : vol_threshold) need(std::isfinite(th), "vol_threshold must be finite");
  }
  // Out-of-range stops are invalid combos (SPEC §5b), skipped; a non-finite one means nothing.
  need(finite(stop_loss) && finite(take_profit) && finite(trailing_stop),
       "stops 'stop_loss', 'take_profit' and 'trailing_stop' must be finite");
  if (auto r = repeated_value())
    throw std::invalid_argument("grid axis '" + r->axis + "' " + r->message());
  (void)size();  // throws when the grid is absurdly large
}

}  // namespace wfod
