// RulesRows: the distinct indicator rows of a rules grid or combo list, computed in parallel
// once per (kind, period, width, source), each by the engine's own SPEC §4 indicators.
#include "src/rules_rows.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "src/indicator_state.hpp"
#include "src/worker_pool.hpp"
#include "wfod/indicators.hpp"

namespace wfod::detail {
namespace {

using rules::Kind;

// An argument's values over a grid: its one literal, or its parameter's axis.
std::vector<double> arg_values(const Grid& grid, const rules::Arg& a) {
  if (a.is_param) return grid.rule_axes.at(a.param);
  return {a.value};
}

// STD(n) with SPEC §4's zero rule: the lanes' vol row (indicator_cache.cpp), same state.
std::vector<double> vol_row(std::span<const double> close, int n) {
  detail::VolState state(n, kDeadBand);
  std::vector<double> out(close.size());
  for (size_t t = 0; t < close.size(); ++t) out[t] = state.next(close.first(t + 1));
  return out;
}

std::vector<double> compute(const HistoryView& h, int kind, int n, double width, bool high_low) {
  switch (static_cast<Kind>(kind)) {
    case Kind::sma:
    case Kind::bb_mid:
      return sma(h.close, n);
    case Kind::ema:
      return ema(h.close, n);
    case Kind::wma:
      return wma(h.close, n);
    case Kind::hma:
      return hma(h.close, n);
    case Kind::std:  // raw STD (SPEC §5a: "counts as 0" is the bands' and the filter's only)
      return stdev(h.close, n);
    case Kind::rsi:
      return rsi(h.close, n);
    case Kind::hh:
      return rolling_max_prev(high_low ? h.high : h.close, n);
    case Kind::ll:
      return rolling_min_prev(high_low ? h.low : h.close, n);
    case Kind::bb_upper:
      return bollinger_bands(h.close, n, width).upper;
    case Kind::bb_lower:
      return bollinger_bands(h.close, n, width).lower;
  }
  return {};
}

void finish_row(RulesRow& row) {
  const std::vector<double>& v = row.values;
  size_t t = 0;
  while (t < v.size() && std::isnan(v[t])) ++t;
  row.first_defined = t;
  row.gaps = false;
  for (; t < v.size(); ++t)
    if (std::isnan(v[t])) row.gaps = true;
}

}  // namespace

void RulesRows::add_indicator(const rules::Indicator& ind, double period, double width) {
  const Key key = detail::rules_row_key(ind, period, width);
  if (keys_.emplace(key, key_list_.size()).second) key_list_.push_back(key);
}

RulesRows::RulesRows(const HistoryView& h, const Grid& grid, int threads) {
  add_grid(grid);
  build(h, threads);
}

RulesRows::RulesRows(const Grid& grid) {
  add_grid(grid);
  index();
}

void RulesRows::add_grid(const Grid& grid) {
  for (const rules::Indicator& ind : grid.program->indicators) {
    if (!ind.used) continue;
    const std::vector<double> widths =
        ind.width ? arg_values(grid, *ind.width) : std::vector<double>{0.0};
    for (double p : arg_values(grid, ind.period))
      for (double w : widths) add_indicator(ind, p, w);
  }
  for (int p : grid.vol_short) vols_[p];
  for (int p : grid.vol_long) vols_[p];
}

RulesRows::RulesRows(const HistoryView& h, std::span<const Combo> combos, int threads) {
  for (const Combo& c : combos) {
    for (const rules::Indicator& ind : c.program->indicators) {
      if (!ind.used) continue;
      add_indicator(ind, rules::arg_value(ind.period, c.rule_values),
                    ind.width ? rules::arg_value(*ind.width, c.rule_values) : 0.0);
    }
    if (c.has_vol) {
      vols_[c.vol_short];
      vols_[c.vol_long];
    }
  }
  build(h, threads);
}

void RulesRows::index() {
  for (auto& [period, index] : vols_) {
    index = key_list_.size() + vol_list_.size();
    vol_list_.push_back(period);
  }
  rows_.resize(key_list_.size() + vol_list_.size());
  for (auto& row : rows_) row = std::make_unique<RulesRow>();
}

void RulesRows::refresh(size_t i) { finish_row(*rows_[i]); }

void RulesRows::build(const HistoryView& h, int threads) {
  index();
  std::atomic<size_t> next{0};
  run_workers(threads, [&](int) {
    for (size_t i; (i = next.fetch_add(1)) < rows_.size();) {
      if (i < key_list_.size()) {
        const auto& [kind, n, width, high_low] = key_list_[i];
        rows_[i]->values = compute(h, kind, n, width, high_low);
      } else {
        rows_[i]->values = vol_row(h.close, vol_list_[i - key_list_.size()]);
      }
      finish_row(*rows_[i]);
    }
  });
}

size_t RulesRows::indicator_index(const rules::Indicator& ind,
                                  const std::vector<double>& values) const {
  const double width = ind.width ? rules::arg_value(*ind.width, values) : 0.0;
  return keys_.at(detail::rules_row_key(ind, rules::arg_value(ind.period, values), width));
}

const RulesRow& RulesRows::indicator(const rules::Indicator& ind,
                                     const std::vector<double>& values) const {
  return *rows_[indicator_index(ind, values)];
}

RulesRows::ComboRows RulesRows::combo_rows(const Combo& c) const {
  ComboRows out;
  out.row_of.reserve(c.program->indicators.size());
  for (const rules::Indicator& ind : c.program->indicators) {
    size_t index = 0;
    if (ind.used) {
      index = indicator_index(ind, c.rule_values);
      out.start = std::max(out.start, rows_[index]->first_defined);
    }
    out.row_of.push_back(static_cast<int32_t>(index));
  }
  if (c.has_vol) {
    const size_t vs = vol_index(c.vol_short), vl = vol_index(c.vol_long);
    out.start = std::max({out.start, rows_[vs]->first_defined, rows_[vl]->first_defined});
    out.vol_short = static_cast<int32_t>(vs);
    out.vol_long = static_cast<int32_t>(vl);
  }
  return out;
}

}  // namespace wfod::detail
