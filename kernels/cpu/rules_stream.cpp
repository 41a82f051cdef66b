// RulesStream: a rules strategy's stream on the cpu backend, the bars from the anchor kept
// (with their volumes, which a rule may read) and every advance a sweep of the window; its
// checkpoint layout (host byte order, recorded):
//   "WFODRULE", u32 version, u32 byte-order mark, string backend ("cpu"),
//   u64 spec fingerprint, string spec text (what the fingerprint hashes: the compiled
//   program, the axes, stops, filter, fill, costs, window and warm-up, doubles by their bits),
//   u64 bars, then the columns ts, open, high, low, close, volume (bars values each),
//   u64 checksum of all the bytes before it (blob_checksum).
#include "rules_stream.hpp"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "rules_lanes.hpp"
#include "src/blob_io.hpp"
#include "src/stream_blob.hpp"
#include "wfod/combo_returns.hpp"

namespace wfod::cpu {
namespace {

constexpr detail::StreamBlobFormat kFormat{"WFODRULE", 1, "cpu",
                                           "program, grid, fill, costs or window"};
constexpr uint64_t kMaxBars = uint64_t{1} << 40;

void bits(std::string& out, double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64 ",", b);
  out += buf;
}
void number(std::string& out, uint64_t v) { out += std::to_string(v) + ","; }
void axis(std::string& out, const char* name, const std::vector<double>& v) {
  out += name;
  out += "=";
  for (double x : v) bits(out, x);
  out += ";";
}
void axis(std::string& out, const char* name, const std::vector<int>& v) {
  out += name;
  out += "=";
  for (int x : v) number(out, static_cast<uint64_t>(static_cast<int64_t>(x)));
  out += ";";
}
void condition(std::string& out, const rules::Condition& c) {
  out += "[";
  for (const rules::Node& n : c.nodes) {
    number(out, static_cast<uint64_t>(n.op));
    number(out, n.exact ? 1 : 0);
    number(out, n.index);
    number(out, n.lhs_begin);
    number(out, n.rhs_begin);
    bits(out, n.value);
  }
  out += "]";
}
void argument(std::string& out, const rules::Arg& a) {
  number(out, a.is_param ? 1 : 0);
  number(out, a.param);
  bits(out, a.value);
}

// Everything that decides the stream's results, as text: two specs with the same text give
// the same stream on the same bars.
std::string spec_text(const StreamSpec& spec) {
  const Grid& g = spec.strategy.grid;
  const rules::Program& p = *g.program;
  std::string out = "rules;params=";
  for (const std::string& name : p.params) out += name + ",";
  out += ";indicators=";
  for (const rules::Indicator& ind : p.indicators) {
    out += ind.name + ":";
    number(out, static_cast<uint64_t>(ind.kind));
    argument(out, ind.period);
    if (ind.width) argument(out, *ind.width);
    number(out, ind.high_low ? 1 : 0);
    number(out, ind.used ? 1 : 0);
  }
  out += ";conditions=";
  for (const rules::Condition& c : p.conditions) condition(out, c);
  condition(out, p.valid);
  out += ";axes=";
  for (const std::vector<double>& a : g.rule_axes) axis(out, "", a);
  axis(out, "stop_loss", g.stop_loss);
  axis(out, "take_profit", g.take_profit);
  axis(out, "trailing_stop", g.trailing_stop);
  axis(out, "vol_short", g.vol_short);
  axis(out, "vol_long", g.vol_long);
  axis(out, "vol_threshold", g.vol_threshold);
  out += "fill=";
  number(out, static_cast<uint64_t>(spec.strategy.fill));
  out += "costs=";
  bits(out, spec.strategy.costs.commission_bps);
  bits(out, spec.strategy.costs.slippage_bps);
  out += "bars_per_year=";
  bits(out, spec.strategy.bars_per_year);
  out += "window=";
  number(out, spec.window);
  out += "warmup=";
  number(out, spec.warmup);
  return out;
}

class RulesStream final : public Stream {
 public:
  RulesStream(Backend& backend, const StreamSpec& spec) : backend_(backend), spec_(spec) {}

  // The history's bars; its volumes where it has them (a program reading volume needs them).
  void take(const HistoryView& h) {
    if (spec_.strategy.grid.program->uses_volume && !h.close.empty() && h.volume.size() != h.size())
      throw std::invalid_argument(
          "a rules stream of a program that reads volume needs the history's volumes");
    bars_.reserve(h.size());
    for (size_t t = 0; t < h.size(); ++t)
      bars_.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t],
                          h.volume.empty() ? 0.0 : h.volume[t], 0});
  }

  SweepResult advance(std::span<const Bar> new_bars) override {
    int64_t last = bars_.size() ? bars_.ts_ns.back() : INT64_MIN;
    for (size_t i = 0; i < new_bars.size(); ++i) {
      if (new_bars[i].ts_ns <= last)
        throw std::invalid_argument("stream bar " + std::to_string(i) + " has ts " +
                                    std::to_string(new_bars[i].ts_ns) +
                                    " not after the previous bar's " + std::to_string(last));
      last = new_bars[i].ts_ns;
    }
    for (const Bar& b : new_bars) bars_.push_back(b);
    return rules_sweep(backend_, request());
  }

  StreamStats stats() const override {
    StreamStats s;
    s.bars = bars_.size();
    s.footprint_bytes = bars_.ts_ns.capacity() * 6 * 8;
    s.open_seconds = open_seconds_;
    s.incremental = false;
    return s;
  }

  std::vector<int8_t> positions(const Combo& combo, size_t first, size_t end) const override {
    check_range(first, end, 0);
    const std::vector<int8_t> p =
        rules_positions(view().prefix(end), spec_.strategy, checked(combo));
    return {p.begin() + static_cast<ptrdiff_t>(first), p.end()};
  }
  std::vector<double> returns(const Combo& combo, size_t first, size_t end) const override {
    check_range(first, end, 1);
    return combo_returns(backend_, view(), spec_.strategy, checked(combo), first, end);
  }
  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) const override {
    return rules_evaluate(request(), ids);
  }
  std::vector<Summary> block_summaries(std::span<const size_t> cuts) const override {
    return rules_block_summaries(request(), cuts);
  }

  std::vector<uint8_t> checkpoint() const override {
    detail::BlobWriter w;
    const std::string text = spec_text(spec_);
    w.reserve(text.size() + bars_.size() * 48 + 128);
    detail::put_stream_blob_header(w, kFormat, text);
    w.put(static_cast<uint64_t>(bars_.size()));
    w.put_array(std::span<const int64_t>(bars_.ts_ns));
    for (const std::vector<double>* c :
         {&bars_.open, &bars_.high, &bars_.low, &bars_.close, &bars_.volume})
      w.put_array(std::span<const double>(*c));
    w.put(detail::blob_checksum(w.bytes()));
    return std::move(w.bytes());
  }

  void load(std::span<const uint8_t> blob) {
    detail::BlobReader r(blob);
    detail::check_stream_blob_header(r, blob, kFormat, spec_text(spec_));
    const uint64_t n = r.get<uint64_t>("bar count");
    if (n > kMaxBars) r.fail("bar count " + std::to_string(n) + " is absurd");
    const size_t bars = static_cast<size_t>(n);
    bars_.ts_ns = r.get_array<int64_t>(bars, "bar times");
    bars_.open = r.get_array<double>(bars, "opens");
    bars_.high = r.get_array<double>(bars, "highs");
    bars_.low = r.get_array<double>(bars, "lows");
    bars_.close = r.get_array<double>(bars, "closes");
    bars_.volume = r.get_array<double>(bars, "volumes");
    for (size_t t = 1; t < bars; ++t)
      if (bars_.ts_ns[t] <= bars_.ts_ns[t - 1]) r.fail("bar times do not increase");
    if (r.left() != 8)
      r.fail(std::to_string(r.left() - 8) + " bytes left over after the last section");
  }

  double open_seconds_ = 0;

 private:
  HistoryView view() const { return HistoryView::of(bars_); }

  SweepRequest request() const {
    SweepRequest req;
    req.history = view();
    req.strategy = spec_.strategy;
    req.window = WindowSpec{bars_.size(), spec_.window, spec_.warmup};
    req.rank = spec_.rank;
    req.precision = spec_.precision;
    req.threads = spec_.threads;
    return req;
  }

  void check_range(size_t first, size_t end, size_t lowest) const {
    if (first < lowest || first > end || end > bars_.size())
      throw std::invalid_argument("bar range [" + std::to_string(first) + ", " +
                                  std::to_string(end) + ") is outside the stream's " +
                                  std::to_string(bars_.size()) + " bars");
  }

  // The stream grid's combo of c's id, when c is that point of the grid and valid.
  Combo checked(const Combo& c) const {
    const Grid& g = spec_.strategy.grid;
    if (c.id >= g.size()) throw std::invalid_argument("combo id outside the stream's grid");
    const Combo d = g.decode(c.id);
    if (d.rule_values != c.rule_values || d.stop_loss != c.stop_loss ||
        d.take_profit != c.take_profit || d.trailing_stop != c.trailing_stop ||
        d.has_vol != c.has_vol || d.vol_short != c.vol_short || d.vol_long != c.vol_long ||
        d.vol_threshold != c.vol_threshold)
      throw std::invalid_argument("combo " + std::to_string(c.id) +
                                  " is not that point of the stream's grid");
    if (!d.valid()) throw std::invalid_argument("combo " + std::to_string(c.id) + " is invalid");
    return d;
  }

  Backend& backend_;
  StreamSpec spec_;
  Series bars_;
};

}  // namespace

std::unique_ptr<Stream> make_rules_stream(Backend& backend, const StreamSpec& spec,
                                          const HistoryView& history) {
  const auto start = std::chrono::steady_clock::now();
  auto s = std::make_unique<RulesStream>(backend, spec);
  s->take(history);
  s->open_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

std::unique_ptr<Stream> restore_rules_stream(Backend& backend, const StreamSpec& spec,
                                             std::span<const uint8_t> blob) {
  const auto start = std::chrono::steady_clock::now();
  auto s = std::make_unique<RulesStream>(backend, spec);
  s->load(blob);
  s->open_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

StreamMemory rules_stream_memory(const StreamSpec& spec) {
  // Its bars grow with the history; at open, one window and its warm-up of them.
  StreamMemory m;
  m.host_bytes = static_cast<uint64_t>(spec.window + spec.warmup + 1) * 48;
  return m;
}

}  // namespace wfod::cpu
