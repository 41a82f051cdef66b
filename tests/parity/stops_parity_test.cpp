// SPEC §5b's stops on the cpu backend against the cpu_ref oracle (SPEC §9), on the shared real
// data: every stop kind, both sides, both fills, the vol filter, each of the four families,
// long windows cut into time chunks (whose stop state is found by scanning back), a long's
// take-profit above 1 and a short's of 1 or more; on a synthetic spike, equity through zero
// (the sequential fallback). Per case, every entry point: the sweep's
// top-K, evaluate() of every valid combo, block_summaries() and positions(). Each case runs
// once per SIMD kernel variant (its own ctest entry, like the parity table), and combos whose
// stops are all 0 give the very bits of the same grid without stop axes.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cpu/lane_groups.hpp"
#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stops_cases.hpp"
#include "wfod/backend.hpp"

namespace wfod::cpu {
const char* lane_kernel_variant();  // kernels/cpu/lane_kernel.cpp
}  // namespace wfod::cpu

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

using test::kBothSides;
using test::request_of;
using test::spec_of;
using test::StopsCase;
using test::with_stops;
using test::without_stops;

// "cpu@avx2" -> the cpu backend with the avx2 kernel (WFOD_CPU_KERNEL, read once per process:
// each entry runs in its own ctest process), or why this process cannot run that variant.
constexpr const char* kVariants[] = {"generic", "avx2", "avx512"};

std::unique_ptr<Backend> cpu_variant(const std::string& variant, std::string* skip) {
  ::setenv("WFOD_CPU_KERNEL", variant.c_str(), 1);
  const std::string in_use = cpu::lane_kernel_variant();
  if (in_use != variant) {
    *skip = "cpu kernel variant '" + variant + "' not run: this process uses '" + in_use +
            "' (the CPU may lack it, a sanitizer build carries generic only, or an earlier test "
            "fixed the variant)";
    return nullptr;
  }
  return make_backend("cpu");
}

class StopsParity : public ::testing::TestWithParam<std::tuple<StopsCase, std::string>> {};

TEST_P(StopsParity, CpuMatchesCpuRef) {
  const auto& [c, variant] = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!c.synthetic && !std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: real-data stops parity NOT run";
  std::string skip;
  const std::unique_ptr<Backend> cpu = cpu_variant(variant, &skip);
  if (!cpu) GTEST_SKIP() << skip;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Series s = c.synthetic ? c.synthetic() : test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const SweepRequest req = request_of(c, h);
  const Grid& grid = c.spec.grid;
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) +
               " bars, W=" + std::to_string(req.window.bars) + ", " + std::to_string(grid.size()) +
               " combos, cpu@" + variant);
  if (c.chunked) {  // the sweep really cuts its window into time chunks
    ASSERT_GT(cpu::time_chunks(cpu::group_valid_combos(grid).size(), c.threads, req.window.bars),
              1u);
  }

  // The sweep's top-K: the same ids in the same order, metrics within SPEC §9.
  const SweepResult want = ref->sweep(req), got = cpu->sweep(req);
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics, kRel, kAbs))
        << "rank " << i;
    EXPECT_TRUE(test::near("objective", got.top[i].objective, want.top[i].objective, kRel, kAbs));
  }

  // evaluate() of every valid combo.
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  const std::vector<Metrics> mg = cpu->evaluate(req, ids), mw = ref->evaluate(req, ids);
  ASSERT_EQ(mg.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    EXPECT_TRUE(test::metrics_near(mg[i], mw[i], kRel, kAbs)) << "evaluate id " << ids[i];
  if (c.through_zero) {
    EXPECT_TRUE(std::any_of(mw.begin(), mw.end(), [](const Metrics& m) {
      return m.max_drawdown > 1 && m.cagr == -1;
    })) << "no combo's equity went through zero";
  }

  // block_summaries(): three cuts, counts identical, sums within SPEC §9. A block whose equity
  // reaches zero (`nonpositive`) has no specified peak, trough or drawdown (the Summary's
  // drawdown combine needs positive equity; robust selection excludes such blocks).
  const size_t first = req.window.first(), w = req.window.bars;
  const std::vector<size_t> cuts{first + w / 4, first + w / 2, first + 3 * w / 4};
  const std::vector<Summary> bg = cpu->block_summaries(req, cuts),
                             bw = ref->block_summaries(req, cuts);
  ASSERT_EQ(bg.size(), bw.size());
  for (uint64_t id : ids) {
    for (size_t b = 0; b <= cuts.size(); ++b) {
      SCOPED_TRACE("block summary of id " + std::to_string(id) + ", block " + std::to_string(b));
      const Summary &x = bg[id * (cuts.size() + 1) + b], &y = bw[id * (cuts.size() + 1) + b];
      test::expect_same_summary_counts(x, y);
      const auto xr = test::summary_reals(x), yr = test::summary_reals(y);
      for (size_t f = 0; f < xr.size(); ++f) {
        const bool drawdown_field = f >= 4 && f <= 6;  // peak, trough, drawdown
        if (y.nonpositive && drawdown_field) continue;
        EXPECT_TRUE(test::near("field " + std::to_string(f), xr[f], yr[f], kRel, kAbs));
      }
    }
  }

  // positions() bit for bit, from the anchor, for every valid combo; the case must make the
  // stops act: some combo's positions differ from its family's r_t, and some stop lands a
  // combo flat while the family still holds (a stop-out, not an exit).
  size_t changed = 0, stopped_out_bars = 0;
  for (uint64_t id : ids) {
    const Combo combo = grid.decode(id);
    const std::vector<int8_t> pg = cpu->positions(h, c.spec, combo),
                              pw = ref->positions(h, c.spec, combo);
    ASSERT_EQ(pg, pw) << "positions of id " << id;
    if (!combo.stops_on()) continue;
    const std::vector<int8_t> r = ref->positions(h, c.spec, without_stops(combo));
    changed += r != pw;
    for (size_t t = 0; t < r.size(); ++t) stopped_out_bars += pw[t] == 0 && r[t] != 0;
  }
  EXPECT_GT(changed, 0u) << "no stop changed any position: the case tests nothing";
  EXPECT_GT(stopped_out_bars, 0u);
  std::printf(
      "[ stops    ] cpu@%s vs cpu_ref: %s: %zu valid combos, %zu with positions changed by "
      "stops, %zu stopped-out bars, best id %llu (cpu_ref %.3fs, cpu %.3fs)\n",
      variant.c_str(), c.name.c_str(), ids.size(), changed, stopped_out_bars,
      want.top.empty() ? 0ull : static_cast<unsigned long long>(want.top[0].combo.id), want.seconds,
      got.seconds);
}

std::vector<std::string> variants() { return {std::begin(kVariants), std::end(kVariants)}; }

std::string case_name(const ::testing::TestParamInfo<StopsParity::ParamType>& tp) {
  return std::get<0>(tp.param).name + "__cpu_" + std::get<1>(tp.param);
}

INSTANTIATE_TEST_SUITE_P(Cases, StopsParity,
                         ::testing::Combine(::testing::ValuesIn(test::stops_cases()),
                                            ::testing::ValuesIn(variants())),
                         case_name);

// SPEC §5b (spec-notes item 68) on the cpu backend: a grid whose stop axes hold only 0 runs
// the kernel without the stop state, so its sweep is the same grid's without stop axes to the
// bit; in a grid with stops, evaluate() of its all-zero combos gives the plain grid's bits.
TEST(StopsParity, AllZeroStopsAreBitIdenticalToNoStops) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid plain;
  plain.family = Family::ma_cross;
  plain.fast = {5, 10, 20};
  plain.slow = {30, 60};
  plain.ma = {MaType::sma, MaType::hma};
  plain.side = kBothSides;
  SweepRequest req;
  req.history = h;
  req.strategy = spec_of(plain, Fill::next_open, 2);
  req.window = {h.size(), 1500, default_warmup(plain)};
  req.rank.top = 24;
  const std::unique_ptr<Backend> cpu = make_backend("cpu");
  const SweepResult want = cpu->sweep(req);
  SweepRequest zero = req;
  zero.strategy.grid.stop_loss = {0};
  test::expect_same_sweep_bits(cpu->sweep(zero), want);

  // stop_loss {0, 0.02}: ids below plain.size() are the all-zero combos, the plain grid's ids.
  SweepRequest mixed = req;
  mixed.strategy.grid.stop_loss = {0, 0.02};
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < plain.size(); ++id)
    if (plain.decode(id).valid()) ids.push_back(id);
  const std::vector<Metrics> a = cpu->evaluate(req, ids), b = cpu->evaluate(mixed, ids);
  for (size_t i = 0; i < ids.size(); ++i) {
    for (const test::RealField& f : test::kRealFields)
      EXPECT_TRUE(test::same_bits(a[i].*f.member, b[i].*f.member)) << "id " << ids[i] << f.name;
    for (const test::IntField& f : test::kIntFields)
      EXPECT_EQ(a[i].*f.member, b[i].*f.member) << "id " << ids[i] << f.name;
  }
}

}  // namespace
}  // namespace wfod
