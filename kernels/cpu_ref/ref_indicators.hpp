// cpu_ref indicators (SPEC §4), each value computed directly from its definition, and the
// per-sweep cache that computes each distinct (kind, period, source) once for all combos.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::ref {

// Undefined values (lookback not full) are NaN in every series below.
std::vector<double> sma(std::span<const double> x, int n);
std::vector<double> ema(std::span<const double> x, int n);
std::vector<double> wma(std::span<const double> x, int n);
std::vector<double> hma(std::span<const double> x, int n);
std::vector<double> population_std(std::span<const double> x, int n);
// Donchian channel of the previous n bars: max / min of x[t-n .. t-1].
std::vector<double> highest_before(std::span<const double> x, int n);
std::vector<double> lowest_before(std::span<const double> x, int n);
// Wilder's RSI (SPEC §4): defined from bar n (the first with n changes); 50 where G + L = 0.
std::vector<double> rsi(std::span<const double> x, int n);
// Bollinger bands (SPEC §4) from SMA(n) and STD(n) rows: M ± k·STD, k·STD rounded once and
// then added; where STD counts as 0 (STD <= delta * SMA) both bands are M.
double band_offset(double sma, double std_dev, double k);

enum class IndicatorKind { sma, ema, wma, hma, std, channel_high, channel_low, rsi };

// Values over every bar of one history. std::map keeps references stable across inserts,
// so a combo may hold several series while the cache grows. Between combos, trim() drops
// the least recently used series beyond `capacity_bytes`: memory stays bounded on any grid,
// and a dropped series is recomputed, to the same values, when asked for again.
class IndicatorCache {
 public:
  explicit IndicatorCache(HistoryView history, size_t capacity_bytes = SIZE_MAX)
      : history_(history), capacity_bytes_(capacity_bytes) {}

  // source only matters for channel_high / channel_low.
  const std::vector<double>& get(IndicatorKind kind, int period, Source source = Source::close);
  const std::vector<double>& moving_average(MaType ma, int period);
  const HistoryView& history() const { return history_; }
  // Drops least recently used series until the rest fit the capacity. Invalidates the
  // references get() returned: call it between combos.
  void trim();

 private:
  struct Entry {
    std::vector<double> values;
    uint64_t last_use = 0;
  };
  std::vector<double> compute(IndicatorKind kind, int period, Source source) const;

  HistoryView history_;
  size_t capacity_bytes_;
  size_t bytes_ = 0;
  uint64_t uses_ = 0;
  std::map<std::tuple<IndicatorKind, int, Source>, Entry> values_;
};

}  // namespace wfod::ref
