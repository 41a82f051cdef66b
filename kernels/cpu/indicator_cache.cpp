// Builds the shared indicator rows of a sweep; rows are independent, so threads split them.
#include "indicator_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <thread>

#include "src/indicator_state.hpp"
#include "thread_count.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cpu {
namespace {

size_t first_defined_of(const std::vector<double>& v) {
  for (size_t t = 0; t < v.size(); ++t)
    if (!std::isnan(v[t])) return t;
  return v.size();
}

IndicatorRow make_row(std::vector<double> values) {
  IndicatorRow row;
  row.first_defined = first_defined_of(values);
  row.values = std::move(values);
  return row;
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
  if (grid.family == Family::ma_cross) {
    for (MaType type : grid.ma) {
      for (int p : grid.fast) mas_[{type, p}];
      for (int p : grid.slow) mas_[{type, p}];
    }
  } else {
    for (Source src : grid.source)
      for (int p : grid.n) {
        uppers_[{src, p}];
        lowers_[{src, p}];
      }
  }
  for (int p : grid.vol_short) vols_[p];
  for (int p : grid.vol_long) vols_[p];
  build(history, threads);
}

IndicatorCache::IndicatorCache(const HistoryView& history, const Combo& c) {
  if (c.family == Family::ma_cross) {
    mas_[{c.ma, c.fast}];
    mas_[{c.ma, c.slow}];
  } else {
    uppers_[{c.source, c.n}];
    lowers_[{c.source, c.n}];
  }
  if (c.has_vol) {
    vols_[c.vol_short];
    vols_[c.vol_long];
  }
  build(history, 1);
}

void IndicatorCache::build(const HistoryView& h, int threads) {
  std::vector<std::function<void()>> jobs;
  for (auto& [key, row] : mas_)
    jobs.push_back(
        [&h, key = key, &row] { row = make_row(moving_average(key.first, h.close, key.second)); });
  for (auto& [key, row] : uppers_)
    jobs.push_back([&h, key = key, &row] {
      row = make_row(rolling_max_prev(key.first == Source::close ? h.close : h.high, key.second));
    });
  for (auto& [key, row] : lowers_)
    jobs.push_back([&h, key = key, &row] {
      row = make_row(rolling_min_prev(key.first == Source::close ? h.close : h.low, key.second));
    });
  for (auto& [period, row] : vols_)
    jobs.push_back([&h, period = period, &row] { row = make_row(vol_row(h.close, period)); });

  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) jobs[i]();
  };
  const int n = std::min<int>(resolve_threads(threads), static_cast<int>(jobs.size()));
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  // Pack the rows into one matrix; the per-row vectors are released.
  const size_t bars = h.size();
  matrix_.resize(bars * jobs.size());
  size_t next_offset = 0;
  auto pack = [&](IndicatorRow& row) {
    row.offset = next_offset;
    std::copy(row.values.begin(), row.values.end(),
              matrix_.begin() + static_cast<ptrdiff_t>(next_offset));
    next_offset += bars;
    row.values = {};
  };
  for (auto& [key, row] : mas_) pack(row);
  for (auto& [key, row] : uppers_) pack(row);
  for (auto& [key, row] : lowers_) pack(row);
  for (auto& [key, row] : vols_) pack(row);
}

}  // namespace wfod::cpu
