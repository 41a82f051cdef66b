// RulesRowStates: distinct rows built once from their keys, each advanced by its own state
// over the input tail, the tail released in bulk (O(1) amortised), and their checkpoint.
// RulesComboRows: a combo's distinct rows as such a set.
#include "src/rules_combo_rows.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "src/state_codec.hpp"
#include "wfod/indicators.hpp"

namespace wfod::detail {
namespace {

using rules::Kind;

}  // namespace

RulesRowKey rules_row_key(const rules::Indicator& ind, double period, double width) {
  const Kind k = ind.kind == Kind::bb_mid ? Kind::sma : ind.kind;
  const bool band = k == Kind::bb_upper || k == Kind::bb_lower;
  const bool channel = k == Kind::hh || k == Kind::ll;
  return {static_cast<int>(k), static_cast<int>(period), band ? width : 0.0,
          channel && ind.high_low};
}

RulesRowStates::RulesRowStates(std::span<const RulesRowKey> keys, std::span<const int> vols) {
  size_t longest = 1;
  rows_.reserve(keys.size() + vols.size());
  for (const auto& [kind_int, n, k, high_low] : keys) {
    longest = std::max(longest, static_cast<size_t>(n));
    switch (static_cast<Kind>(kind_int)) {
      case Kind::sma:
      case Kind::bb_mid:
        rows_.push_back({SmaState(n), Input::close});
        break;
      case Kind::ema:
        rows_.push_back({EmaState(n), Input::close});
        break;
      case Kind::wma:
        rows_.push_back({WmaState(n), Input::close});
        break;
      case Kind::hma:
        rows_.push_back({HmaState(n, n / 2, isqrt(n)), Input::close});
        break;
      case Kind::std:  // raw STD (SPEC §5a: "counts as 0" is the bands' and the filter's only)
        rows_.push_back({StdState(n), Input::close});
        break;
      case Kind::rsi:
        rows_.push_back({RsiState(n), Input::close});
        break;
      case Kind::hh:
        rows_.push_back({ExtremeState(n, true), high_low ? Input::high : Input::close});
        break;
      case Kind::ll:
        rows_.push_back({ExtremeState(n, false), high_low ? Input::low : Input::close});
        break;
      case Kind::bb_upper:
      case Kind::bb_lower:
        rows_.push_back({BandState{SmaState(n), VolState(n, kDeadBand), k,
                                   static_cast<Kind>(kind_int) == Kind::bb_upper},
                         Input::close});
        break;
    }
  }
  for (int n : vols) {
    longest = std::max(longest, static_cast<size_t>(n));
    rows_.push_back({VolState(n, kDeadBand), Input::close});
  }
  values_.assign(rows_.size(), 0.0);
  lookback_ = longest + 1;
  // The tail's largest size (trim()), once: its footprint does not creep with uptime.
  for (std::vector<double>* x : {&close_, &high_, &low_}) x->reserve(2 * lookback_ + 256);
}

SeriesTail RulesRowStates::tail(Input in) const {
  const std::vector<double>& x = in == Input::close ? close_ : in == Input::high ? high_ : low_;
  return {x.data(), base_, end_};
}

void RulesRowStates::next(const Bar& bar) {
  close_.push_back(bar.close);
  high_.push_back(bar.high);
  low_.push_back(bar.low);
  ++end_;
  for (size_t r = 0; r < rows_.size(); ++r) {
    const SeriesTail x = tail(rows_[r].input);
    values_[r] = std::visit(
        [&x](auto& s) {
          if constexpr (std::is_same_v<std::decay_t<decltype(s)>, BandState>) {
            const double m = s.mid.next(x), offset = s.k * s.sd.next(x);  // rounded once
            return s.upper ? m + offset : m - offset;
          } else {
            return s.next(x);
          }
        },
        rows_[r].state);
  }
  trim();
}

// Keeps the last lookback() input bars, erasing older ones once they outnumber them.
void RulesRowStates::trim() {
  if (close_.size() < 2 * lookback_ + 256) return;
  const size_t drop = close_.size() - lookback_;
  for (std::vector<double>* x : {&close_, &high_, &low_})
    x->erase(x->begin(), x->begin() + static_cast<ptrdiff_t>(drop));
  base_ += drop;
}

size_t RulesRowStates::footprint_bytes() const {
  size_t bytes = (close_.capacity() + high_.capacity() + low_.capacity() + values_.capacity()) *
                 sizeof(double);
  for (const Row& r : rows_) {
    bytes += sizeof(Row);
    if (const auto* h = std::get_if<HmaState>(&r.state)) bytes += h->heap_bytes();
    if (const auto* e = std::get_if<ExtremeState>(&r.state)) bytes += e->heap_bytes();
  }
  return bytes;
}

size_t RulesRowStates::most_bytes(std::span<const RulesRowKey> keys, std::span<const int> vols) {
  size_t longest = 1, bytes = 0;
  for (const auto& [kind, n, k, high_low] : keys) {
    const auto period = static_cast<size_t>(n);
    longest = std::max(longest, period);
    if (static_cast<Kind>(kind) == Kind::hma)  // its inner tail, trimmed at 2 keep + 64
      bytes += 2 * (2 * (static_cast<size_t>(isqrt(n)) + 1) + 64) * sizeof(double);
    if (static_cast<Kind>(kind) == Kind::hh || static_cast<Kind>(kind) == Kind::ll)
      bytes += (period + 1) * sizeof(size_t);  // the Donchian window's bars
  }
  for (int n : vols) longest = std::max(longest, static_cast<size_t>(n));
  const size_t rows = keys.size() + vols.size();
  return bytes + rows * (sizeof(Row) + sizeof(double)) +
         3 * (2 * (longest + 1) + 256) * sizeof(double);
}

RulesRowStates RulesRowStates::subset(std::span<const size_t> which) const {
  RulesRowStates out;
  for (size_t r : which) {
    out.rows_.push_back(rows_.at(r));
    out.values_.push_back(values_[r]);
  }
  // This set's look-back (at least the subset's own): the states read no further back.
  out.lookback_ = lookback_;
  out.close_ = close_;
  out.high_ = high_;
  out.low_ = low_;
  out.base_ = base_;
  out.end_ = end_;
  return out;
}

void RulesRowStates::save(BlobWriter& w) const {
  const size_t kept = std::min(end_, lookback_);
  w.put(static_cast<uint64_t>(end_));
  w.put(static_cast<uint64_t>(kept));
  const size_t from = close_.size() - kept;
  for (const std::vector<double>* x : {&close_, &high_, &low_})
    w.put_array(std::span<const double>(x->data() + from, kept));
  for (const Row& row : rows_) {
    std::visit(
        [&w](const auto& s) {
          if constexpr (std::is_same_v<std::decay_t<decltype(s)>, BandState>) {
            StateCodec::save(w, s.mid);
            StateCodec::save(w, s.sd);
          } else {
            StateCodec::save(w, s);
          }
        },
        row.state);
  }
  w.put_array(std::span<const double>(values_));
}

void RulesRowStates::load(BlobReader& r) {
  const uint64_t end = r.get<uint64_t>("rows' bar count");
  if (end > (uint64_t{1} << 40)) r.fail("rows' bar count " + std::to_string(end) + " is absurd");
  const uint64_t kept = r.get<uint64_t>("rows' input tail length");
  if (kept != std::min<uint64_t>(end, lookback_))
    r.fail("the rows' input tail holds " + std::to_string(kept) + " bars, expected " +
           std::to_string(std::min<uint64_t>(end, lookback_)));
  end_ = static_cast<size_t>(end);
  base_ = end_ - static_cast<size_t>(kept);
  close_ = r.get_array<double>(static_cast<size_t>(kept), "rows' input closes");
  high_ = r.get_array<double>(static_cast<size_t>(kept), "rows' input highs");
  low_ = r.get_array<double>(static_cast<size_t>(kept), "rows' input lows");
  for (std::vector<double>* x : {&close_, &high_, &low_}) x->reserve(2 * lookback_ + 256);
  for (Row& row : rows_) {
    std::visit(
        [&r, this](auto& s) {
          if constexpr (std::is_same_v<std::decay_t<decltype(s)>, BandState>) {
            StateCodec::load(r, s.mid, end_);
            StateCodec::load(r, s.sd, end_);
          } else {
            StateCodec::load(r, s, end_);
          }
        },
        row.state);
  }
  values_ = r.get_array<double>(rows_.size(), "rows' values");
}

void RulesComboRows::keys_of(const Combo& c, std::vector<RulesRowKey>& keys,
                             std::vector<int>& vols) {
  if (!c.program) throw std::invalid_argument("a rules combo without its program");
  const rules::Program& program = *c.program;
  // Periods and widths in range before any state is sized by them (rules::RuleError else).
  rules::check_arguments(program, c.rule_values);
  keys.clear();
  vols.clear();
  for (const rules::Indicator& ind : program.indicators) {
    if (!ind.used) continue;
    const double width = ind.width ? rules::arg_value(*ind.width, c.rule_values) : 0.0;
    const RulesRowKey key = rules_row_key(ind, rules::arg_value(ind.period, c.rule_values), width);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  if (c.has_vol) vols = {c.vol_short, c.vol_long};
}

RulesComboRows::RulesComboRows(const Combo& c) {
  std::vector<RulesRowKey> keys;
  std::vector<int> vols;
  keys_of(c, keys, vols);
  states_ = RulesRowStates(keys, vols);
  map(c);
}

RulesComboRows::RulesComboRows(const Combo& c, RulesRowStates states) : states_(std::move(states)) {
  map(c);
}

void RulesComboRows::map(const Combo& c) {
  std::vector<RulesRowKey> keys;
  std::vector<int> vols;
  keys_of(c, keys, vols);
  if (states_.size() != keys.size() + vols.size())
    throw std::invalid_argument("RulesComboRows: the rows given are not the combo's");
  const rules::Program& program = *c.program;
  indicator_row_.assign(program.indicators.size(), kUnused);
  for (size_t i = 0; i < program.indicators.size(); ++i) {
    const rules::Indicator& ind = program.indicators[i];
    if (!ind.used) continue;
    const double width = ind.width ? rules::arg_value(*ind.width, c.rule_values) : 0.0;
    const RulesRowKey key = rules_row_key(ind, rules::arg_value(ind.period, c.rule_values), width);
    indicator_row_[i] =
        static_cast<size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
  }
  used_rows_ = keys.size();
  vol_row_ = keys.size();
}

bool RulesComboRows::all_used_defined() const {
  for (size_t r = 0; r < used_rows_; ++r)
    if (std::isnan(states_.value(r))) return false;
  return true;
}

size_t RulesComboRows::footprint_bytes() const {
  return states_.footprint_bytes() + indicator_row_.capacity() * sizeof(size_t);
}

}  // namespace wfod::detail
