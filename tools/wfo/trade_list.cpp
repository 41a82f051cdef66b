// Trades from segments (SPEC v1.2 §6), for wfo trades and trades.csv: see trade_list.hpp.

#include "trade_list.hpp"

#include <cmath>
#include <cstdio>

#include "wfod/detail/summary_math.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/segments.hpp"

namespace wfod::cli {

void TradeBuilder::segment(size_t t, bool exit, int8_t pos, double value, bool changed) {
  if (open_ && pos != cur_.side) close();
  if (pos == 0) return;
  if (!open_) {
    open_ = true;
    cur_ = Trade{};
    cur_.side = pos;
    // Entered in the window: the body segment of a change (the fill at x_t). Otherwise the
    // trade was held when the window opened: it starts at the close its returns count from.
    cur_.open_at_start = !(changed && !exit);
    if (cur_.open_at_start) {
      cur_.entry_bar = t - 1;
      cur_.entry_price = h_.close[t - 1];
    } else {
      cur_.entry_bar = fill_ == Fill::close ? t - 1 : t;
      cur_.entry_price = fill_ == Fill::close ? h_.close[t - 1] : h_.open[t];
    }
    cur_.entry_ts = h_.ts_ns[cur_.entry_bar];
  }
  cur_.ret += value;
  cur_.abs_sum += std::fabs(value);
  if (changed) cur_.cost += cost_;  // |pos| = 1: one unit of change, entry or exit
  if (!exit) ++cur_.bars_held;
  last_t_ = t;
  last_exit_ = exit;
  cur_.last_bar = t;
}

void TradeBuilder::add(size_t t, const BarSegments& seg) {
  const bool changed = seg.exit_pos != seg.body_pos;
  segment(t, true, seg.exit_pos, seg.exit_value, changed);
  segment(t, false, seg.body_pos, seg.body_value, changed);
}

void TradeBuilder::close() {
  if (!open_) return;
  const size_t t = last_t_;
  if (last_exit_) {
    // Closed by the exit segment of bar t: filled at x_t.
    cur_.exit_bar = fill_ == Fill::close ? t - 1 : t;
    cur_.exit_price = fill_ == Fill::close ? h_.close[t - 1] : h_.open[t];
  } else {
    // The window ended with the trade held: valued at its last close.
    cur_.exit_bar = t;
    cur_.exit_price = h_.close[t];
    cur_.open_at_end = true;
  }
  cur_.exit_ts = h_.ts_ns[cur_.exit_bar];
  cur_.outcome = detail::trade_outcome(cur_.ret, cur_.abs_sum);
  trades_.push_back(cur_);
  open_ = false;
}

std::vector<Trade> TradeBuilder::finish() {
  close();
  return std::move(trades_);
}

std::vector<Trade> window_trades(Backend& backend, const HistoryView& h, const StrategySpec& spec,
                                 const Combo& combo, size_t first, size_t last) {
  const std::vector<int8_t> p = backend.positions(h.prefix(last + 1), spec, combo);
  TradeBuilder b(h, spec.fill, spec.costs.per_unit());
  for_each_segment(h, spec.fill, spec.costs.per_unit(), p, first, last + 1,
                   position_or_flat(p, first - 2),
                   [&](size_t t, const BarSegments& s) { b.add(t, s); });
  return b.finish();
}

std::vector<Trade> walk_trades(Backend& backend, const HistoryView& h, const StrategySpec& spec,
                               const WalkResult& r) {
  TradeBuilder b(h, spec.fill, spec.costs.per_unit());
  std::vector<int8_t> prev;  // the previous fold winner's positions (empty: flat)
  for (const Fold& f : r.folds) {
    std::vector<int8_t> p;
    if (f.winner) p = backend.positions(h.prefix(f.oos_last + 1), spec, f.winner->combo);
    const int8_t first_exit = position_or_flat(prev, f.oos_first - 2);
    for_each_segment(h, spec.fill, spec.costs.per_unit(), p, f.oos_first, f.oos_last + 1,
                     first_exit, [&](size_t t, const BarSegments& s) { b.add(t, s); });
    prev = std::move(p);
  }
  return b.finish();
}

std::string trades_csv(const HistoryView& h, std::span<const Trade> trades) {
  (void)h;
  std::string out =
      "trade,side,entry_time,entry_bar,entry_price,exit_time,exit_bar,exit_price,bars_held,"
      "return,cost,abs_sum,outcome,open_at_start,open_at_end\n";
  char buf[512];
  for (size_t i = 0; i < trades.size(); ++i) {
    const Trade& t = trades[i];
    std::snprintf(buf, sizeof buf,
                  "%zu,%s,%s,%zu,%.17g,%s,%zu,%.17g,%zu,%.17g,%.17g,%.17g,%s,%d,%d\n", i,
                  t.side > 0 ? "long" : "short", feeds::format_timestamp(t.entry_ts).c_str(),
                  t.entry_bar, t.entry_price, feeds::format_timestamp(t.exit_ts).c_str(),
                  t.exit_bar, t.exit_price, t.bars_held, t.ret, t.cost, t.abs_sum,
                  t.outcome > 0   ? "win"
                  : t.outcome < 0 ? "loss"
                                  : "flat",
                  t.open_at_start ? 1 : 0, t.open_at_end ? 1 : 0);
    out += buf;
  }
  return out;
}

}  // namespace wfod::cli
