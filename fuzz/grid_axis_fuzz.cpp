// Fuzzes the parameter-axis text parsers (parse_int_axis, parse_real_axis: "12",
// "5,10,20", "start:stop:step", exact decimal ranges; SPEC §5), behind every
// [strategy.grid] string in the config and the `wfo` grid flags. Beyond "no crash, no
// leak, no UB" (long long overflow included) it asserts:
// - only std::invalid_argument escapes; an axis has 1..10^7 values;
// - an int range is exactly start, start + step, ... <= stop, every value the long long
//   the text means (nothing truncated to int), a list is its items in order;
// - a real range is finite and strictly increasing, starting at the correctly rounded
//   double of `start` (strtod), and ending within one step of `stop`.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "wfod/grid.hpp"

namespace {

constexpr size_t kMaxAxisValues = 10'000'000;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t at = s.find(sep, start);
    parts.push_back(trim(s.substr(start, at == std::string_view::npos ? at : at - start)));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

long long to_ll(std::string_view s) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  WFOD_FUZZ_CHECK(ec == std::errc() && ptr == s.data() + s.size(),
                  "an accepted int axis item is a whole integer");
  return v;
}

void check_int_axis(std::string_view text, const std::vector<int>& values) {
  WFOD_FUZZ_CHECK(!values.empty() && values.size() <= kMaxAxisValues, "1..10^7 values");
  text = trim(text);
  if (text.find(':') != std::string_view::npos) {
    const std::vector<std::string_view> parts = split(text, ':');
    WFOD_FUZZ_CHECK(parts.size() == 3, "a range is start:stop:step");
    const long long start = to_ll(parts[0]), stop = to_ll(parts[1]), step = to_ll(parts[2]);
    WFOD_FUZZ_CHECK(step > 0, "a range's step is > 0");
    for (size_t i = 0; i < values.size(); ++i) {
      // In __int128: the oracle must not overflow where the parser might.
      const __int128 want = static_cast<__int128>(start) + static_cast<__int128>(i) * step;
      WFOD_FUZZ_CHECK(values[i] == want, "range value i is start + i * step, untruncated");
    }
    WFOD_FUZZ_CHECK(values.back() <= stop && static_cast<__int128>(values.back()) + step > stop,
                    "a range runs up to stop and no further");
    return;
  }
  const std::vector<std::string_view> parts = split(text, ',');
  WFOD_FUZZ_CHECK(parts.size() == values.size(), "a list has one value per item");
  for (size_t i = 0; i < parts.size(); ++i) {
    WFOD_FUZZ_CHECK(values[i] == to_ll(parts[i]), "list values are the items, untruncated");
  }
}

void check_real_axis(std::string_view text, const std::vector<double>& values) {
  WFOD_FUZZ_CHECK(!values.empty() && values.size() <= kMaxAxisValues, "1..10^7 values");
  for (const double v : values) WFOD_FUZZ_CHECK(std::isfinite(v), "values are finite");
  text = trim(text);
  if (text.find(':') == std::string_view::npos) return;
  const std::vector<std::string_view> parts = split(text, ':');
  WFOD_FUZZ_CHECK(parts.size() == 3, "a range is start:stop:step");
  for (size_t i = 1; i < values.size(); ++i) {
    WFOD_FUZZ_CHECK(values[i] > values[i - 1], "a real range strictly increases");
  }
  const std::string start(parts[0]), stop(parts[1]), step(parts[2]);
  WFOD_FUZZ_CHECK(values.front() == std::strtod(start.c_str(), nullptr),
                  "a real range starts at the correctly rounded start");
  const double last = values.back(), end = std::strtod(stop.c_str(), nullptr);
  const double stride = std::strtod(step.c_str(), nullptr);
  // Loose on purpose (doubles of exact decimals): within a step, never beyond a step.
  WFOD_FUZZ_CHECK(last <= end + 1e-9 * std::fabs(end) && last + stride * (1 + 1e-9) >= end,
                  "a real range ends within one step of stop");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_int_axis(text, wfod::parse_int_axis(text));
  } catch (const std::invalid_argument&) {
  }
  try {
    check_real_axis(text, wfod::parse_real_axis(text));
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
