// Test series: seeded synthetic bars (random walks with distinct opens, constant prices, a
// crash/spike) and the real CSV files of WFOD_SHARED_DATA_DIR.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::test {

inline constexpr int64_t kMinuteNs = 60'000'000'000;

// Hand-made bars, one a minute, with the given closes; opens equal the closes unless given,
// high and low bracket both (the rules and stops tests' series).
inline Series bars(const std::vector<double>& closes, std::vector<double> opens = {}) {
  if (opens.empty()) opens = closes;
  Series s;
  for (size_t t = 0; t < closes.size(); ++t) {
    Bar b;
    b.ts_ns = static_cast<int64_t>(t + 1) * kMinuteNs;
    b.open = opens[t];
    b.close = closes[t];
    b.high = std::max(b.open, b.close);
    b.low = std::min(b.open, b.close);
    b.volume = 1;
    s.push_back(b);
  }
  return s;
}

// Random walk of closes with log-returns N(drift, vol); each open gaps from the previous close
// by N(0, gap_vol) so that next_open fills differ from close fills; high/low bracket both.
inline Series random_walk(size_t n, uint64_t seed, double start = 100, double vol = 0.01,
                          double gap_vol = 0.003, double drift = 0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(drift, vol), gap(0, gap_vol), wick(0, vol / 2);
  Series s;
  s.reserve(n);
  double prev = start;
  for (size_t t = 0; t < n; ++t) {
    Bar b;
    b.ts_ns = static_cast<int64_t>(t + 1) * kMinuteNs;
    b.open = t == 0 ? start : prev * std::exp(gap(rng));
    b.close = b.open * std::exp(step(rng));
    b.high = std::max(b.open, b.close) * (1 + std::fabs(wick(rng)));
    b.low = std::min(b.open, b.close) * (1 - std::min(0.5, std::fabs(wick(rng))));
    b.volume = 1;
    s.push_back(b);
    prev = b.close;
  }
  return s;
}

inline Series constant_series(size_t n, double price) {
  Series s;
  s.reserve(n);
  for (size_t t = 0; t < n; ++t) {
    Bar b;
    b.ts_ns = static_cast<int64_t>(t + 1) * kMinuteNs;
    b.open = b.high = b.low = b.close = price;
    s.push_back(b);
  }
  return s;
}

// Closes on or next to the level families' levels (the edge of the cuda sweep's float32
// screen): blocks of 6 bars at one price P, then P * (1 + e) and P * (1 - e) for e from a
// list of ulp-sized, dead-band-sized (1e-10 relative, just above and below) and ordinary
// moves; P walks between blocks and everything is scaled by `scale`. Within a block SMA(n <= 6)
// is P and STD(n) counts as 0 (U = L = M = close); on a moved bar with n = 2 and k = 1 the
// close lies on a band (x - M = e*P/2 = STD), RSI(1) is exactly 0, 50 or 100 and RSI(2)
// 100/3 or 200/3 (to the last bits).
inline Series near_level_series(size_t n, uint64_t seed, double scale) {
  static constexpr double kMoves[] = {0x1p-52,       3 * 0x1p-52,   -0x1p-52, 1e-10,  -1e-10,
                                      1.0000001e-10, 0.9999999e-10, 2e-10,    -3e-10, 1e-9,
                                      1e-7,          1e-6,          -1e-6,    1e-3,   0.02};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(0, 0.01);
  Series s;
  s.reserve(n);
  double price = 100 * scale, prev = price;
  size_t move = 0;
  auto push = [&](double close) {
    Bar b;
    b.ts_ns = static_cast<int64_t>(s.size() + 1) * kMinuteNs;
    b.open = prev;
    b.close = close;
    b.high = std::max(b.open, b.close);
    b.low = std::min(b.open, b.close);
    b.volume = 1;
    s.push_back(b);
    prev = close;
  };
  while (s.size() < n) {
    for (int i = 0; i < 6 && s.size() < n; ++i) push(price);
    const double e = kMoves[move++ % std::size(kMoves)];
    if (s.size() < n) push(price * (1 + e));
    if (s.size() < n) push(price * (1 - e));
    price *= std::exp(step(rng));
  }
  return s;
}

// A random walk in which, at each bar of `spikes`, the price opens and closes `factor` times
// higher than the previous close: a short held through it loses more than 100% in one bar.
inline Series spike_series(size_t n, uint64_t seed, std::vector<size_t> spikes, double factor) {
  Series s = random_walk(n, seed, 50, 0.01, 0.002);
  for (size_t at : spikes) {
    if (at == 0 || at >= n) continue;
    const double m = s.close[at - 1] * factor / s.close[at];
    // Scale the rest of the series so the walk continues from the new level.
    for (size_t t = at; t < n; ++t) {
      s.open[t] *= m;
      s.high[t] *= m;
      s.low[t] *= m;
      s.close[t] *= m;
    }
    s.open[at] = s.close[at - 1] * (1 + (factor - 1) / 2);  // half the move as an overnight gap
    s.high[at] = std::max({s.high[at], s.open[at], s.close[at]});
    s.low[at] = std::min({s.low[at], s.open[at], s.close[at]});
  }
  return s;
}

// Exact ties whose positions differ (docs/spec-notes.md item 13): for ma_cross state combos
// with slow 4 and fast 1..3 (sma and wma), close fill and no cost, several combos hold
// different positions only on bars whose close does not move (zero return), so their
// per-bar returns are identical while their positions change at different bars: their
// trades split the same returns at different places. Rising runs (every combo long) alternate
// with an episode: 7 flat closes at Y, then 0.94 Y, 1.04 Y, then 3 closes at Y, where the
// combos flip at different flat bars (found by brute force over the SPEC §5 rule with
// rationals; the parity case checks that the oracle sees the ties).
inline Series tie_series(size_t episodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> rise(20, 150);  // per bar, in 1e-4 of the close
  Series s;
  double close = 100;
  auto push = [&](double c) {
    Bar b;
    b.ts_ns = static_cast<int64_t>(s.size() + 1) * kMinuteNs;
    b.open = s.size() == 0 ? c : close;
    b.close = c;
    b.high = std::max(b.open, b.close);
    b.low = std::min(b.open, b.close);
    b.volume = 1;
    s.push_back(b);
    close = c;
  };
  auto rising = [&](int bars) {
    for (int i = 0; i < bars; ++i) push(close * (1 + rise(rng) * 1e-4));
  };
  push(close);
  rising(40);
  for (size_t e = 0; e < episodes; ++e) {
    const double y = close;
    for (int i = 0; i < 7; ++i) push(y);
    push(y * 0.94);
    push(y * 1.04);
    for (int i = 0; i < 3; ++i) push(y);
    rising(30);
  }
  return s;
}

inline std::string shared_data_dir() { return WFOD_SHARED_DATA_DIR; }

// Every *.csv of the shared data folder, sorted by name; empty if the folder is missing.
inline std::vector<std::filesystem::path> shared_csv_files() {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  const std::filesystem::path dir(shared_data_dir());
  if (!std::filesystem::is_directory(dir, ec)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".csv") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline Series load_csv(const std::filesystem::path& path) {
  return feeds::read_csv(path.string()).series;
}

// gtest parameter names: [A-Za-z0-9_] only.
inline std::string sanitize_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

}  // namespace wfod::test
