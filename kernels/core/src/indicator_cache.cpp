// Builds the shared indicator rows of a sweep; rows are independent, so threads split them.
#include "indicator_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>

#include "src/indicator_state.hpp"
#include "src/worker_pool.hpp"
#include "thread_count.hpp"
#include "wfod/indicators.hpp"
#include "wfod/support.hpp"

namespace wfod::detail {
namespace {

size_t first_defined_of(const std::vector<double>& v) {
  for (size_t t = 0; t < v.size(); ++t)
    if (!std::isnan(v[t])) return t;
  return v.size();
}

// SPEC §4: STD(n)_t <= delta * SMA(n)_t counts as 0. The same state a stream advances.
std::vector<double> vol_row(std::span<const double> close, int n) {
  detail::VolState state(n, kDeadBand);
  std::vector<double> out(close.size());
  for (size_t t = 0; t < close.size(); ++t) out[t] = state.next(close.first(t + 1));
  return out;
}

}  // namespace

IndicatorCache::IndicatorCache(const HistoryView& history, const Grid& grid, int threads) {
  switch (grid.family) {
    case Family::ma_cross:
      for (MaType type : grid.ma) {
        for (int p : grid.fast) mas_[{type, p}];
        for (int p : grid.slow) mas_[{type, p}];
      }
      break;
    case Family::channel_breakout:
      for (Source src : grid.source)
        for (int p : grid.n) {
          uppers_[{src, p}];
          lowers_[{src, p}];
        }
      break;
    case Family::bollinger:
      for (int p : grid.n) {
        mas_[{MaType::sma, p}];
        vols_[p];
      }
      break;
    case Family::rsi_reversion:
      for (int p : grid.n) rsis_[p];
      break;
    case Family::rules:  // the lanes' rows; cpu_ref reads its own (ref_indicators.hpp)
      throw Unsupported("the lanes' indicator rows do not cover rules strategies (SPEC §5a)");
  }
  for (int p : grid.vol_short) vols_[p];
  for (int p : grid.vol_long) vols_[p];
  build(history, threads);
}

IndicatorCache::IndicatorCache(const HistoryView& history, const Combo& c) {
  add_rows(c);
  build(history, 1);
}

IndicatorCache::IndicatorCache(const HistoryView& history, std::span<const Combo> combos,
                               int threads) {
  for (const Combo& c : combos) add_rows(c);
  build(history, threads);
}

void IndicatorCache::add_rows(const Combo& c) {
  switch (c.family) {
    case Family::ma_cross:
      mas_[{c.ma, c.fast}];
      mas_[{c.ma, c.slow}];
      break;
    case Family::channel_breakout:
      uppers_[{c.source, c.n}];
      lowers_[{c.source, c.n}];
      break;
    case Family::bollinger:
      mas_[{MaType::sma, c.n}];
      vols_[c.n];
      break;
    case Family::rsi_reversion:
      rsis_[c.n];
      break;
    case Family::rules:
      throw Unsupported("the lanes' indicator rows do not cover rules strategies (SPEC §5a)");
  }
  if (c.has_vol) {
    vols_[c.vol_short];
    vols_[c.vol_long];
  }
}

void IndicatorCache::build(const HistoryView& h, int threads) {
  // Rows back to back in map order; each job computes its row and copies it into its slot
  // at once, so at most one row per thread exists outside the matrix.
  const size_t bars = h.size();
  std::vector<std::function<void()>> jobs;
  auto add_job = [&](IndicatorRow& row, auto compute) {
    row.offset = jobs.size() * bars;
    jobs.push_back([this, &row, compute] {
      const std::vector<double> values = compute();
      row.first_defined = first_defined_of(values);
      std::copy(values.begin(), values.end(), matrix_.begin() + static_cast<ptrdiff_t>(row.offset));
    });
  };
  for (auto& [key, row] : mas_)
    add_job(row, [&h, key = key] { return moving_average(key.first, h.close, key.second); });
  for (auto& [key, row] : uppers_)
    add_job(row, [&h, key = key] {
      return rolling_max_prev(key.first == Source::close ? h.close : h.high, key.second);
    });
  for (auto& [key, row] : lowers_)
    add_job(row, [&h, key = key] {
      return rolling_min_prev(key.first == Source::close ? h.close : h.low, key.second);
    });
  for (auto& [period, row] : vols_)
    add_job(row, [&h, period = period] { return vol_row(h.close, period); });
  for (auto& [period, row] : rsis_)
    add_job(row, [&h, period = period] { return wfod::rsi(h.close, period); });
  matrix_.resize(bars * jobs.size());

  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) jobs[i]();
  };
  const int n = std::min<int>(resolve_threads(threads), static_cast<int>(jobs.size()));
  wfod::detail::run_workers(n, [&](int) { worker(); });
}

}  // namespace wfod::detail
