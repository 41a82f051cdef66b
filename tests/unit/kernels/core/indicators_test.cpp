// Indicators (SPEC §4) against brute-force definitions in long double: every defined value
// within 1e-13 relative, NaN exactly where undefined, and causality (a prefix's values are the
// full series' values, bit for bit) on seeded random and real series.
#include "wfod/indicators.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <ostream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "support/series.hpp"

namespace wfod {
namespace {

using LD = long double;
using RefFn = std::function<std::vector<LD>(std::span<const double>, int)>;
const LD kNaN = std::numeric_limits<LD>::quiet_NaN();

constexpr int kPeriods[] = {1, 2, 3, 7, 50, 257, 1000};

// --- Brute-force definitions, long double, O(n) per bar -------------------------------------

std::vector<LD> ref_sma(std::span<const double> x, int n) {
  std::vector<LD> out(x.size(), kNaN);
  for (size_t t = static_cast<size_t>(n) - 1; t < x.size(); ++t) {
    LD s = 0;
    for (int k = 0; k < n; ++k) s += x[t - k];
    out[t] = s / n;
  }
  return out;
}

template <class T>
std::vector<LD> ref_wma_of(std::span<const T> x, size_t first_defined_input, int n) {
  // WMA over x where x[t] is defined for t >= first_defined_input.
  std::vector<LD> out(x.size(), kNaN);
  const LD denom = static_cast<LD>(n) * (n + 1) / 2;
  for (size_t t = first_defined_input + static_cast<size_t>(n) - 1; t < x.size(); ++t) {
    LD s = 0;
    for (int k = 1; k <= n; ++k)
      s += static_cast<LD>(k) * static_cast<LD>(x[t - static_cast<size_t>(n - k)]);
    out[t] = s / denom;
  }
  return out;
}

std::vector<LD> ref_wma(std::span<const double> x, int n) { return ref_wma_of<double>(x, 0, n); }

// EMA's recursion in quad precision: in long double, e + alpha (c - e) itself loses ~1e-11
// relative after a 1e8 one-bar jump (c - e cancels), which would make the oracle the error.
__extension__ typedef __float128 Quad;

std::vector<LD> ref_ema(std::span<const double> x, int n) {
  std::vector<LD> out(x.size(), kNaN);
  if (x.size() < static_cast<size_t>(n)) return out;
  const Quad alpha = Quad(2) / Quad(n + 1);
  Quad seed = 0;
  for (int k = 0; k < n; ++k) seed += static_cast<Quad>(x[static_cast<size_t>(k)]);
  Quad e = seed / Quad(n);
  out[static_cast<size_t>(n) - 1] = static_cast<LD>(e);
  for (size_t t = static_cast<size_t>(n); t < x.size(); ++t) {
    e = e + alpha * (static_cast<Quad>(x[t]) - e);
    out[t] = static_cast<LD>(e);
  }
  return out;
}

// Wilder's RSI with both averages in quad precision (literal form G + (g - G) / n), from
// changes d_i = c_i - c_{i-1} rounded in double as SPEC's inputs are.
std::vector<LD> ref_rsi(std::span<const double> x, int n) {
  std::vector<LD> out(x.size(), kNaN);
  const size_t un = static_cast<size_t>(n);
  if (x.size() <= un) return out;
  auto gain = [&x](size_t i) {
    const double d = x[i] - x[i - 1];
    return d > 0 ? Quad(d) : Quad(0);
  };
  auto loss = [&x](size_t i) {
    const double d = x[i] - x[i - 1];
    return d < 0 ? Quad(-d) : Quad(0);
  };
  Quad g = 0, l = 0;
  for (size_t i = 1; i <= un; ++i) {
    g += gain(i);
    l += loss(i);
  }
  g /= Quad(n);
  l /= Quad(n);
  auto value = [](Quad up, Quad down) {
    return up + down == 0 ? LD(50) : static_cast<LD>(Quad(100) * up / (up + down));
  };
  out[un] = value(g, l);
  for (size_t t = un + 1; t < x.size(); ++t) {
    g = g + (gain(t) - g) / Quad(n);
    l = l + (loss(t) - l) / Quad(n);
    out[t] = value(g, l);
  }
  return out;
}

int isqrt(int n) {
  int m = 0;
  while ((m + 1) * (m + 1) <= n) ++m;
  return m;
}

std::vector<LD> ref_hma(std::span<const double> x, int n) {
  if (n < 2) return std::vector<LD>(x.size(), kNaN);  // WMA(floor(1/2)) = WMA(0): undefined
  const std::vector<LD> half = ref_wma(x, n / 2), full = ref_wma(x, n);
  std::vector<LD> raw(x.size(), kNaN);
  for (size_t t = static_cast<size_t>(n) - 1; t < x.size(); ++t) raw[t] = 2 * half[t] - full[t];
  return ref_wma_of<LD>(raw, static_cast<size_t>(n) - 1, isqrt(n));
}

std::vector<LD> ref_std(std::span<const double> x, int n) {
  std::vector<LD> out(x.size(), kNaN);
  for (size_t t = static_cast<size_t>(n) - 1; t < x.size(); ++t) {
    LD s = 0;
    for (int k = 0; k < n; ++k) s += x[t - k];
    const LD mean = s / n;
    LD ss = 0;
    for (int k = 0; k < n; ++k) ss += (x[t - k] - mean) * (x[t - k] - mean);
    out[t] = std::sqrt(ss / n);
  }
  return out;
}

std::vector<LD> ref_max_prev(std::span<const double> x, int n) {
  std::vector<LD> out(x.size(), kNaN);
  for (size_t t = static_cast<size_t>(n); t < x.size(); ++t) {
    double m = x[t - 1];
    for (int k = 1; k <= n; ++k) m = std::max(m, x[t - static_cast<size_t>(k)]);
    out[t] = m;
  }
  return out;
}

std::vector<LD> ref_min_prev(std::span<const double> x, int n) {
  std::vector<LD> out(x.size(), kNaN);
  for (size_t t = static_cast<size_t>(n); t < x.size(); ++t) {
    double m = x[t - 1];
    for (int k = 1; k <= n; ++k) m = std::min(m, x[t - static_cast<size_t>(k)]);
    out[t] = m;
  }
  return out;
}

// First bar at which SPEC §4 defines the indicator (SIZE_MAX: never).
size_t first_defined(IndicatorKind kind, int n) {
  const size_t un = static_cast<size_t>(n);
  switch (kind) {
    case IndicatorKind::sma:
    case IndicatorKind::ema:
    case IndicatorKind::wma:
    case IndicatorKind::std:
      return un - 1;
    case IndicatorKind::hma:
      return n < 2 ? SIZE_MAX : un - 1 + static_cast<size_t>(isqrt(n)) - 1;
    case IndicatorKind::hh:
    case IndicatorKind::ll:
    case IndicatorKind::rsi:
      return un;
  }
  return SIZE_MAX;
}

struct Indicator {
  IndicatorKind kind;
  const char* name;
  std::vector<double> (*fn)(std::span<const double>, int);
  std::vector<LD> (*ref)(std::span<const double>, int);
};

const Indicator kIndicators[] = {
    {IndicatorKind::sma, "sma", &sma, &ref_sma},
    {IndicatorKind::ema, "ema", &ema, &ref_ema},
    {IndicatorKind::wma, "wma", &wma, &ref_wma},
    {IndicatorKind::hma, "hma", &hma, &ref_hma},
    {IndicatorKind::std, "stdev", &stdev, &ref_std},
    {IndicatorKind::hh, "rolling_max_prev", &rolling_max_prev, &ref_max_prev},
    {IndicatorKind::ll, "rolling_min_prev", &rolling_min_prev, &ref_min_prev},
    {IndicatorKind::rsi, "rsi", &rsi, &ref_rsi},
};

// Mean |x| over the window ending at t (the scale of a near-zero standard deviation).
LD window_mean_abs(std::span<const double> x, size_t t, int n) {
  LD s = 0;
  for (int k = 0; k < n; ++k) s += std::fabs(x[t - static_cast<size_t>(k)]);
  return s / n;
}

// Checks one indicator output against its reference; reports the first few failures.
::testing::AssertionResult matches_reference(const Indicator& ind, std::span<const double> x, int n,
                                             const std::vector<double>& got,
                                             const std::vector<LD>& want) {
  if (got.size() != x.size())
    return ::testing::AssertionFailure()
           << ind.name << "(" << n << "): size " << got.size() << ", want " << x.size();
  const size_t first = first_defined(ind.kind, n);
  const bool exact = ind.kind == IndicatorKind::hh || ind.kind == IndicatorKind::ll;
  size_t bad = 0;
  double worst = 0;
  std::ostringstream os;
  os.precision(20);
  for (size_t t = 0; t < x.size(); ++t) {
    const bool defined = t >= first;
    if (!defined) {
      if (!std::isnan(got[t])) {
        if (bad++ < 5)
          os << "\n  t=" << t << ": got " << got[t] << ", want NaN (undefined before t=" << first
             << ")";
      }
      continue;
    }
    if (std::isnan(got[t]) || std::isinf(got[t])) {
      if (bad++ < 5) os << "\n  t=" << t << ": got " << got[t] << ", want " << want[t];
      continue;
    }
    const LD err = std::fabs(static_cast<LD>(got[t]) - want[t]);
    LD tol = exact ? 0 : 1e-13L * std::fabs(want[t]);
    if (ind.kind == IndicatorKind::std) tol = std::max(tol, 1e-13L * window_mean_abs(x, t, n));
    const double rel =
        want[t] != 0 ? static_cast<double>(err / std::fabs(want[t])) : static_cast<double>(err);
    if (err > tol) {
      worst = std::max(worst, rel);
      if (bad++ < 5)
        os << "\n  t=" << t << ": got " << got[t] << ", want " << want[t] << " (rel " << rel << ")";
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << ind.name << "(" << n << "): " << bad << " of " << x.size()
         << " bars wrong, worst failing rel error " << worst << os.str();
}

// --- Series under test ---------------------------------------------------------------------

struct SeriesCase {
  std::string name;
  std::function<std::vector<double>()> close;
};

std::vector<double> closes_of(const Series& s, size_t max_bars) {
  std::vector<double> c = s.close;
  if (c.size() > max_bars) c.resize(max_bars);
  return c;
}

std::vector<SeriesCase> series_cases() {
  std::vector<SeriesCase> cs;
  // Price levels far apart: the tolerance is relative, so 1e-3 and 1e5 must both hold.
  cs.push_back({"random_1em3", [] { return test::random_walk(3000, 11, 1e-3, 0.01).close; }});
  cs.push_back({"random_1", [] { return test::random_walk(3000, 12, 1.0, 0.02).close; }});
  cs.push_back({"random_1e5", [] { return test::random_walk(3000, 13, 1e5, 0.001).close; }});
  // Long: re-anchoring every kReanchorBars bars is crossed ~80 times.
  cs.push_back({"random_long_20000", [] { return test::random_walk(20000, 14, 100, 0.01).close; }});
  // Flat stretches and a level shift: zero variance windows and large sums next to small ones.
  cs.push_back({"random_flat_stretches", [] {
                  std::vector<double> c = test::random_walk(6000, 15, 5e4, 0.002).close;
                  for (size_t t = 1000; t < 1600; ++t) c[t] = c[999];
                  for (size_t t = 3000; t < 6000; ++t) c[t] *= 1e-4;
                  for (size_t t = 4000; t < 4300; ++t) c[t] = c[3999];
                  return c;
                }});
  // A level change by 1e8 in one bar, down then up: sliding sums must not keep the old
  // level's rounding (SPEC §4: within 1e-13 of the exactly rounded value, on any input).
  cs.push_back({"level_jump_down_1e8", [] {
                  std::vector<double> c = test::random_walk(4000, 16, 1e5, 0.01).close;
                  for (size_t t = 2000; t < 4000; ++t) c[t] *= 1e-8;
                  return c;
                }});
  cs.push_back({"level_jump_up_1e8", [] {
                  std::vector<double> c = test::random_walk(4000, 17, 1e-3, 0.01).close;
                  for (size_t t = 1500; t < 4000; ++t) c[t] *= 1e8;
                  for (size_t t = 3100; t < 4000; ++t) c[t] *= 1e-8;
                  return c;
                }});
  const std::string dir = test::shared_data_dir() + "/";
  for (auto [file, max_bars] :
       std::vector<std::pair<std::string, size_t>>{{"goog_d1_2004-2013.csv", SIZE_MAX},
                                                   {"nvda_d1_1999-2014.csv", SIZE_MAX},
                                                   {"eurusd_h1_2017-2018.csv", SIZE_MAX},
                                                   {"unittestbtc_m1_2017-11.csv", SIZE_MAX},
                                                   {"estx50fut_m1_2006-01-02.csv", 12000},
                                                   {"btcperp_ftx_m1_2022-01.csv", 20000}}) {
    cs.push_back(
        {"real_" + test::sanitize_name(file.substr(0, file.size() - 4)),
         [path = dir + file, max_bars] { return closes_of(test::load_csv(path), max_bars); }});
  }
  return cs;
}

void PrintTo(const SeriesCase& c, std::ostream* os) { *os << c.name; }

class IndicatorVsReference : public ::testing::TestWithParam<SeriesCase> {};

TEST_P(IndicatorVsReference, EveryPeriodEveryIndicator) {
  const SeriesCase& c = GetParam();
  std::vector<double> x;
  try {
    x = c.close();
  } catch (const std::exception& e) {
    if (c.name.rfind("real_", 0) == 0 && !std::filesystem::exists(test::shared_data_dir()))
      GTEST_SKIP() << "shared data folder missing: " << test::shared_data_dir();
    FAIL() << "cannot load " << c.name << ": " << e.what();
  }
  ASSERT_GT(x.size(), 1000u);
  for (int n : kPeriods) {
    for (const Indicator& ind : kIndicators) {
      SCOPED_TRACE(std::string(ind.name) + "(" + std::to_string(n) + ") on " + c.name);
      EXPECT_TRUE(matches_reference(ind, x, n, ind.fn(x, n), ind.ref(x, n)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Series, IndicatorVsReference, ::testing::ValuesIn(series_cases()),
                         [](const auto& tp) { return tp.param.name; });

// --- Edges -----------------------------------------------------------------------------------

TEST(Indicators, ShortAndEmptyInputs) {
  const std::vector<double> x = test::random_walk(10, 3).close;
  for (const Indicator& ind : kIndicators) {
    SCOPED_TRACE(ind.name);
    EXPECT_TRUE(ind.fn(std::span<const double>(), 5).empty());
    // Fewer bars than the lookback: all NaN.
    for (double v : ind.fn(std::span(x).first(3), 7)) EXPECT_TRUE(std::isnan(v));
    for (int n : {1, 2, 3, 7, 9, 10, 11, 20}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      EXPECT_TRUE(matches_reference(ind, x, n, ind.fn(x, n), ind.ref(x, n)));
    }
  }
}

TEST(Indicators, PeriodOneIdentities) {
  const std::vector<double> x = test::random_walk(600, 5, 3.3).close;
  const auto s = sma(x, 1), e = ema(x, 1), w = wma(x, 1), sd = stdev(x, 1),
             hh = rolling_max_prev(x, 1), ll = rolling_min_prev(x, 1), h = hma(x, 1);
  for (size_t t = 0; t < x.size(); ++t) {
    SCOPED_TRACE("t=" + std::to_string(t));
    EXPECT_EQ(s[t], x[t]);
    EXPECT_EQ(w[t], x[t]);
    EXPECT_EQ(e[t], x[t]);  // alpha = 1: e_t = e_{t-1} + (c_t - e_{t-1}), seeded with c_0
    EXPECT_EQ(sd[t], 0.0);
    EXPECT_TRUE(std::isnan(h[t]));  // HMA(1) is undefined everywhere
    if (t == 0) {
      EXPECT_TRUE(std::isnan(hh[t]));
      EXPECT_TRUE(std::isnan(ll[t]));
    } else {
      EXPECT_EQ(hh[t], x[t - 1]);
      EXPECT_EQ(ll[t], x[t - 1]);
    }
  }
}

TEST(Indicators, ConstantSeriesIsExact) {
  // Every average of a constant is the constant (within 1e-13), and the deviation is within
  // 1e-13 * mean of its true 0 (so STD <= delta * SMA counts it as 0 in every implementation).
  for (double price : {1e-3, 0.1, 1.0, 3577.5, 1e5}) {
    SCOPED_TRACE("price=" + std::to_string(price));
    const std::vector<double> x(2000, price);
    for (int n : kPeriods) {
      SCOPED_TRACE("n=" + std::to_string(n));
      for (const Indicator& ind : kIndicators) {
        SCOPED_TRACE(ind.name);
        const auto v = ind.fn(x, n);
        const size_t first = first_defined(ind.kind, n);
        for (size_t t = first; t < x.size() && first != SIZE_MAX; ++t) {
          if (ind.kind == IndicatorKind::std) {
            ASSERT_LE(std::fabs(v[t]), 1e-13 * price) << "t=" << t;
          } else if (ind.kind == IndicatorKind::rsi) {
            ASSERT_EQ(v[t], 50.0) << "t=" << t;  // no change at all: G + L = 0
          } else {
            ASSERT_NEAR(v[t], price, 1e-13 * price) << "t=" << t;
          }
        }
      }
    }
  }
}

TEST(Indicators, DispatchMatchesDirectCalls) {
  const Series s = test::random_walk(1500, 21, 40, 0.01);
  const HistoryView h = HistoryView::of(s);
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  for (int n : {2, 13, 300}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    EXPECT_TRUE(same(moving_average(MaType::sma, s.close, n), sma(s.close, n)));
    EXPECT_TRUE(same(moving_average(MaType::ema, s.close, n), ema(s.close, n)));
    EXPECT_TRUE(same(moving_average(MaType::wma, s.close, n), wma(s.close, n)));
    EXPECT_TRUE(same(moving_average(MaType::hma, s.close, n), hma(s.close, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::sma, n, h), sma(s.close, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::std, n, h), stdev(s.close, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::rsi, n, h), rsi(s.close, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::hh, n, h), rolling_max_prev(s.close, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::ll, n, h), rolling_min_prev(s.close, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::hh, n, h, Source::high_low),
                     rolling_max_prev(s.high, n)));
    EXPECT_TRUE(same(compute_indicator(IndicatorKind::ll, n, h, Source::high_low),
                     rolling_min_prev(s.low, n)));
  }
  for (IndicatorKind k :
       {IndicatorKind::sma, IndicatorKind::ema, IndicatorKind::wma, IndicatorKind::hma,
        IndicatorKind::std, IndicatorKind::hh, IndicatorKind::ll, IndicatorKind::rsi}) {
    EXPECT_EQ(parse_indicator(to_string(k)), k);
  }
  EXPECT_THROW(parse_indicator("macd"), std::invalid_argument);
}

bool bitwise_equal(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

TEST(Indicators, BollingerBandsAreSmaPlusMinusKStdWithTheZeroRule) {
  // SPEC §4: M = SMA(n), U/L = M +- k*STD(n) with k*STD rounded once; U = L = M where STD
  // counts as 0. SMA and STD are held to 1e-13 above; this pins the composition bit for bit.
  std::vector<double> x = test::random_walk(3000, 23, 80, 0.01).close;
  for (size_t t = 1000; t < 1400; ++t) x[t] = x[999];  // STD exactly or nearly 0
  for (int n : {1, 2, 20, 257}) {
    for (double k : {0.5, 2.0, 2.95}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k));
      const Bands b = bollinger_bands(x, n, k);
      const auto m = sma(x, n), sd = stdev(x, n);
      ASSERT_EQ(b.middle.size(), x.size());
      size_t zero = 0;
      for (size_t t = 0; t < x.size(); ++t) {
        ASSERT_TRUE(bitwise_equal(b.middle[t], m[t])) << "t=" << t;
        if (std::isnan(m[t])) {
          ASSERT_TRUE(std::isnan(b.upper[t]) && std::isnan(b.lower[t])) << "t=" << t;
          continue;
        }
        const bool counts_as_zero = sd[t] <= kDeadBand * m[t];
        zero += counts_as_zero;
        const double offset = counts_as_zero ? 0.0 : k * sd[t];
        ASSERT_EQ(b.upper[t], m[t] + offset) << "t=" << t;
        ASSERT_EQ(b.lower[t], m[t] - offset) << "t=" << t;
      }
      EXPECT_GT(zero, n == 1 ? x.size() - 1 : 100u) << "the flat stretch has no zero-STD bars";
    }
  }
}

TEST(Indicators, DeadBandComparison) {
  // x > y iff x - y > 1e-10 * max(|x|, |y|).
  EXPECT_TRUE(db_greater(1.0 + 2e-10, 1.0));
  EXPECT_FALSE(db_greater(1.0 + 0.5e-10, 1.0));
  EXPECT_FALSE(db_greater(1.0, 1.0));
  EXPECT_FALSE(db_greater(1.0, 1.0 + 2e-10));
  EXPECT_TRUE(db_greater(-1.0, -1.0 - 2e-10));
  EXPECT_TRUE(db_greater(1e-300, 0.0));
  EXPECT_FALSE(db_greater(0.0, 0.0));
}

// --- Causality ---------------------------------------------------------------------------------

TEST(Indicators, PrefixValuesEqualFullSeriesValues) {
  std::vector<std::pair<std::string, std::vector<double>>> series;
  series.emplace_back("random", test::random_walk(2600, 31, 250, 0.015).close);
  const std::string goog = test::shared_data_dir() + "/goog_d1_2004-2013.csv";
  if (std::filesystem::exists(goog)) series.emplace_back("goog", test::load_csv(goog).close);
  for (const auto& [name, x] : series) {
    const uint64_t seed = 4242;
    SCOPED_TRACE(name + " seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    for (int n : kPeriods) {
      const size_t un = static_cast<size_t>(n);
      std::vector<size_t> lengths = {1,   2,   un - 1, un,  un + 1, un + 7, 255,  256,         257,
                                     258, 511, 512,    513, 1000,   1001,   1025, x.size() - 1};
      for (int k = 0; k < 6; ++k) lengths.push_back(1 + rng() % x.size());
      for (const Indicator& ind : kIndicators) {
        const std::vector<double> full = ind.fn(x, n);
        for (size_t len : lengths) {
          if (len == 0 || len > x.size()) continue;
          const std::vector<double> part = ind.fn(std::span(x).first(len), n);
          ASSERT_EQ(part.size(), len);
          for (size_t t = 0; t < len; ++t) {
            ASSERT_TRUE(bitwise_equal(part[t], full[t]))
                << ind.name << "(" << n << ") on the first " << len << " bars: t=" << t << " gives "
                << part[t] << ", the full series " << full[t];
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace wfod
