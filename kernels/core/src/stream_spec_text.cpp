// The text and fingerprint a stream checkpoint names its spec by (stream_spec_text.hpp):
// shared by the cpu and cuda streams' checkpoints, so both refuse a blob of another spec alike.
#include "src/stream_spec_text.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "wfod/detail/grid_axes.hpp"

namespace wfod::detail {
namespace {

// Doubles by their bits: the text is exact and compares as a string.
void append_bits(std::string& out, double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, b);
  out += buf;
}

template <typename T, typename F>
void append_list(std::string& out, const char* name, const std::vector<T>& v, F each) {
  out += name;
  out += '=';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    each(v[i]);
  }
  out += ';';
}

}  // namespace

uint64_t spec_fingerprint(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// What a stream's state depends on: the grid, fill, costs, window and chunk. Not the rank
// spec, warmup, bars_per_year, precision or threads: a stream restored under other values
// of those computes with them from its next advance on, as a reopened stream would.
std::string stream_spec_text(const StreamSpec& spec, size_t chunk) {
  const Grid& g = spec.strategy.grid;
  std::string t = "family=" + std::string(to_string(g.family)) + ";";
  // The SPEC v1.1 families' axes only for them, and SPEC §5b's stop axes only for a grid that
  // gives them: older checkpoints keep their text.
  const bool v1_1_family = g.family == Family::bollinger || g.family == Family::rsi_reversion;
  for_each_grid_axis([&](const char* name, auto axis, AxisGroup group) {
    if (group == AxisGroup::family_v1_1 && !v1_1_family) return;
    if (group == AxisGroup::stops && !g.has_stops()) return;
    append_list(t, name, g.*axis, [&t](auto v) {
      if constexpr (std::is_same_v<decltype(v), int>) {
        t += std::to_string(v);
      } else if constexpr (std::is_same_v<decltype(v), double>) {
        append_bits(t, v);
      } else {
        t += to_string(v);  // an enum, by name
      }
    });
  });
  t += "fill=" + std::string(to_string(spec.strategy.fill)) + ";cost=";
  append_bits(t, spec.strategy.costs.per_unit());
  t += ";window=" + std::to_string(spec.window) + ";chunk=" + std::to_string(chunk);
  return t;
}

}  // namespace wfod::detail
