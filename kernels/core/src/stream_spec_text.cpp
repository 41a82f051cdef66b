// The text and fingerprint a stream checkpoint names its spec by (stream_spec_text.hpp):
// shared by the cpu and cuda streams' checkpoints, so both refuse a blob of another spec alike.
#include "src/stream_spec_text.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

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
  auto ints = [&t](int v) { t += std::to_string(v); };
  auto reals = [&t](double v) { append_bits(t, v); };
  auto named = [&t](auto v) { t += to_string(v); };
  append_list(t, "fast", g.fast, ints);
  append_list(t, "slow", g.slow, ints);
  append_list(t, "ma", g.ma, named);
  append_list(t, "side", g.side, named);
  append_list(t, "entry", g.entry, named);
  append_list(t, "n", g.n, ints);
  append_list(t, "source", g.source, named);
  // The SPEC v1.1 families' axes, only for them: older checkpoints keep their text.
  if (g.family == Family::bollinger || g.family == Family::rsi_reversion) {
    append_list(t, "k", g.k, reals);
    append_list(t, "style", g.style, named);
    append_list(t, "lo", g.lo, reals);
    append_list(t, "hi", g.hi, reals);
  }
  // SPEC §5b's stop axes, only for a grid that gives them.
  if (g.has_stops()) {
    append_list(t, "stop_loss", g.stop_loss, reals);
    append_list(t, "take_profit", g.take_profit, reals);
    append_list(t, "trailing_stop", g.trailing_stop, reals);
  }
  append_list(t, "vol_short", g.vol_short, ints);
  append_list(t, "vol_long", g.vol_long, ints);
  append_list(t, "vol_threshold", g.vol_threshold, reals);
  t += "fill=" + std::string(to_string(spec.strategy.fill)) + ";cost=";
  append_bits(t, spec.strategy.costs.per_unit());
  t += ";window=" + std::to_string(spec.window) + ";chunk=" + std::to_string(chunk);
  return t;
}

}  // namespace wfod::detail
