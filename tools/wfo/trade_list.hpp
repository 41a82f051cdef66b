// Every trade of a position series over a window (SPEC v1.2 §6): the maximal runs of
// segments with one non-zero held position, each with its entry and exit, bars held,
// return (the sum of its segments), cost, Σ|v| and outcome (win, loss, flat by §6's dead
// band). For `wfo trades` and the report's trades.csv; the counts equal the metrics'
// `trades` and `wins`, and the returns sum to the window's Σ s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {

struct Trade {
  int side = 0;                       // +1 long, -1 short
  size_t entry_bar = 0;               // bar of the entry fill (close: t-1; next_open: t)
  int64_t entry_ts = 0;               // that bar's timestamp (bars are stamped at their close)
  double entry_price = 0;             // fill price; a trade open when the window starts:
                                      // the close before the window's first segment
  bool open_at_start = false;         // held when the window opened (no entry in it)
  size_t exit_bar = 0, last_bar = 0;  // exit fill's bar; the last bar with a segment of it
  int64_t exit_ts = 0;
  double exit_price = 0;     // exit fill; an open trade: the window's last close
  bool open_at_end = false;  // still held when the window closed
  size_t bars_held = 0;      // body segments (bars whose held position is the side)
  double ret = 0;            // Σ of its in-window segment values
  double cost = 0;           // the costs within those (entry and exit)
  double abs_sum = 0;        // Σ|v| of those segments
  int outcome = 0;           // +1 win, -1 loss, 0 flat (SPEC v1.2 §6)
};

// Builds trades from segments fed in time order (one window; a walk's folds one after
// another, so a trade runs on across a fold boundary where the position does not change).
class TradeBuilder {
 public:
  TradeBuilder(const HistoryView& h, Fill fill, double cost) : h_(h), fill_(fill), cost_(cost) {}
  // The segments of bar t (segments.hpp's bar_segments), bars in order.
  void add(size_t t, const BarSegments& seg);
  // Closes an open trade at the window's end; returns every trade.
  std::vector<Trade> finish();

 private:
  void segment(size_t t, bool exit, int8_t pos, double value, bool changed);
  void close();
  const HistoryView& h_;
  Fill fill_;
  double cost_;
  bool open_ = false;
  Trade cur_;
  size_t last_t_ = 0;
  bool last_exit_ = false;
  std::vector<Trade> trades_;
};

// The trades of one combo over bars [first, last] (a sweep's window).
std::vector<Trade> window_trades(Backend&, const HistoryView&, const StrategySpec&, const Combo&,
                                 size_t first, size_t last);

// The trades of a walk's stitched OOS series (SPEC §8: each fold's winner, the previous
// winner's position on a fold's first exit segment; a flat fold holds 0).
std::vector<Trade> walk_trades(Backend&, const HistoryView&, const StrategySpec&,
                               const WalkResult&);

// trades.csv: a header and one row per trade.
std::string trades_csv(const HistoryView&, std::span<const Trade>);

}  // namespace wfod::cli
