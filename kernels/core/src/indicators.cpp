// Indicator series of SPEC §4 for the fast backends. Sliding sums are Neumaier-compensated
// and re-anchored from scratch every kReanchorBars bars (STD also when the window mean
// drifts far from its shift: sliding.hpp, shared with the device), so values stay within
// 1e-13 of the exactly rounded ones.
#include "wfod/indicators.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "compensated.hpp"
#include "indicator_state.hpp"

namespace wfod {
static_assert(kReanchorBars == detail::kSlidingReanchorBars, "one re-anchoring schedule");
namespace {

void require_period(int n) {
  if (n < 1) throw std::invalid_argument("indicator period must be >= 1, got " + std::to_string(n));
}

// The whole series of one incremental indicator state (indicator_state.hpp): the batch
// values are by construction the ones a stream computes bar by bar.
template <typename State>
std::vector<double> run_state(std::span<const double> x, State state) {
  std::vector<double> out(x.size());
  for (size_t t = 0; t < x.size(); ++t) out[t] = state.next(x.first(t + 1));
  return out;
}
}  // namespace

std::vector<double> sma(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::SmaState(n));
}

std::vector<double> ema(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::EmaState(n));
}

std::vector<double> wma(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::WmaState(n));
}

std::vector<double> hma(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::HmaState(n, n / 2, detail::isqrt(n)));
}

std::vector<double> stdev(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::StdState(n));
}

std::vector<double> rsi(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::RsiState(n));
}

std::vector<double> rolling_max_prev(std::span<const double> x, int n) {
  require_period(n);
  return run_state(x, detail::ExtremeState(n, true));
}
std::vector<double> rolling_min_prev(std::span<const double> y, int n) {
  require_period(n);
  return run_state(y, detail::ExtremeState(n, false));
}

Bands bollinger_bands(std::span<const double> x, int n, double k) {
  require_period(n);
  Bands b;
  b.middle = sma(x, n);
  // STD with the zero rule: the vol filter's row (the same state, so the same values).
  const std::vector<double> sd = run_state(x, detail::VolState(n, kDeadBand));
  b.upper.resize(x.size());
  b.lower.resize(x.size());
  for (size_t t = 0; t < x.size(); ++t) {
    const double offset = k * sd[t];  // rounded once; -ffp-contract=off keeps it unfused
    b.upper[t] = b.middle[t] + offset;
    b.lower[t] = b.middle[t] - offset;
  }
  return b;
}

std::vector<double> moving_average(MaType type, std::span<const double> x, int n) {
  switch (type) {
    case MaType::sma:
      return sma(x, n);
    case MaType::ema:
      return ema(x, n);
    case MaType::wma:
      return wma(x, n);
    case MaType::hma:
      return hma(x, n);
  }
  throw std::invalid_argument("unknown moving average type");
}

namespace {
constexpr std::pair<std::string_view, IndicatorKind> kKinds[] = {
    {"sma", IndicatorKind::sma}, {"ema", IndicatorKind::ema}, {"wma", IndicatorKind::wma},
    {"hma", IndicatorKind::hma}, {"std", IndicatorKind::std}, {"hh", IndicatorKind::hh},
    {"ll", IndicatorKind::ll},   {"rsi", IndicatorKind::rsi}};
}  // namespace

std::string_view to_string(IndicatorKind k) {
  for (const auto& [name, v] : kKinds)
    if (v == k) return name;
  return "?";
}

IndicatorKind parse_indicator(std::string_view s) {
  for (const auto& [name, v] : kKinds)
    if (name == s) return v;
  throw std::invalid_argument("unknown indicator '" + std::string(s) +
                              "' (expected sma|ema|wma|hma|std|hh|ll|rsi)");
}

std::vector<double> compute_indicator(IndicatorKind kind, int period, const HistoryView& h,
                                      Source source) {
  switch (kind) {
    case IndicatorKind::sma:
      return sma(h.close, period);
    case IndicatorKind::ema:
      return ema(h.close, period);
    case IndicatorKind::wma:
      return wma(h.close, period);
    case IndicatorKind::hma:
      return hma(h.close, period);
    case IndicatorKind::std:
      return stdev(h.close, period);
    case IndicatorKind::hh:
      return rolling_max_prev(source == Source::close ? h.close : h.high, period);
    case IndicatorKind::ll:
      return rolling_min_prev(source == Source::close ? h.close : h.low, period);
    case IndicatorKind::rsi:
      return rsi(h.close, period);
  }
  throw std::invalid_argument("unknown indicator");
}

}  // namespace wfod
