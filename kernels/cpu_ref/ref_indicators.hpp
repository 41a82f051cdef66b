// cpu_ref indicators (SPEC §4), each value computed directly from its definition, and the
// per-sweep cache that computes each distinct (kind, period, source) once for all combos.
#pragma once

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

enum class IndicatorKind { sma, ema, wma, hma, std, channel_high, channel_low };

// Values over every bar of one history. std::map keeps references stable across inserts,
// so a combo may hold several series while the cache grows.
class IndicatorCache {
 public:
  explicit IndicatorCache(HistoryView history) : history_(history) {}

  // source only matters for channel_high / channel_low.
  const std::vector<double>& get(IndicatorKind kind, int period, Source source = Source::close);
  const std::vector<double>& moving_average(MaType ma, int period);
  const HistoryView& history() const { return history_; }

 private:
  std::vector<double> compute(IndicatorKind kind, int period, Source source) const;

  HistoryView history_;
  std::map<std::tuple<IndicatorKind, int, Source>, std::vector<double>> values_;
};

}  // namespace wfod::ref
