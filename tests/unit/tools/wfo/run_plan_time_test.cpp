// The plan's time model (tools/wfo/run_plan.cpp, issue 42 §3): properties that hold whatever
// the calibrated coefficients are (their accuracy is bench/plan_estimate_bench's, not a test's):
// linear in combos and folds, lower with more cpu threads, the plain CSCV walk dearer than the
// screened one, cuda cheaper than cpu per combo-bar. Nothing here is timed.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "tools/wfo/run_plan.hpp"

namespace wfod::cli {
namespace {

std::vector<int> range(int from, int count) {
  std::vector<int> v(static_cast<size_t>(count));
  std::iota(v.begin(), v.end(), from);
  return v;
}

// ma_cross, `fast` x 100 slow periods, all valid: 100 * fast combos over 45,000 bars.
PlanInputs ma_inputs(int fast, const std::string& backend = "cpu", int threads = 1) {
  PlanInputs in;
  in.grid.fast = range(2, fast);
  in.grid.slow = range(200, 100);
  in.history_bars = 45'000;
  in.window_bars = 44'000;
  in.warmup_bars = 900;
  in.backend = backend;
  in.threads = threads;
  in.budget.bytes = 64.0 * (1ull << 30);
  in.budget.name = "--memory-budget";
  return in;
}

double seconds(const PlanInputs& in) { return plan_run(in).seconds; }

// The time of `in`'s combos doubled by a two-valued axis that adds no indicator series
// (ma_cross's entry, or side), less that of `in`: the combo-bars' part alone.
double combo_part(PlanInputs in) {
  const double one = seconds(in);
  if (in.grid.family == Family::ma_cross) {
    in.grid.entry = {Entry::state, Entry::cross};
  } else {
    in.grid.side = {Side::long_short, Side::long_only};
  }
  return seconds(in) - one;
}

TEST(PlanTimeModel, EveryBackendEstimates) {
  for (const char* b : {"cpu", "cpu_ref", "cuda"}) {
    const RunPlan p = plan_run(ma_inputs(10, b));
    EXPECT_GT(p.seconds, 0) << b;
    EXPECT_NE(plan_text(p, ma_inputs(10, b)).find("combo-bars, "), std::string::npos);
  }
  EXPECT_NE(plan_text(plan_run(ma_inputs(10, "cuda")), ma_inputs(10, "cuda")).find(" on cuda"),
            std::string::npos);
}

TEST(PlanTimeModel, LinearInCombosAndFolds) {
  for (const char* b : {"cpu", "cpu_ref", "cuda"}) {
    for (bool selection : {false, true}) {
      // 1x, 2x, 4x the combos over the same series (entry x side): equal steps per combo.
      PlanInputs x1 = ma_inputs(10, b), x2 = x1, x4 = x1;
      x1.selection = x2.selection = x4.selection = selection;
      x2.grid.entry = x4.grid.entry = {Entry::state, Entry::cross};
      x4.grid.side = {Side::long_short, Side::long_only};
      const double s1 = seconds(x1), s2 = seconds(x2), s4 = seconds(x4);
      EXPECT_GT(s2, s1) << b;
      EXPECT_NEAR(s4 - s2, 2 * (s2 - s1), 1e-9 * s4) << b << " selection " << selection;
      // Folds: each one the same work again.
      PlanInputs f2 = x1, f3 = x1;
      f2.windows = 2;
      f3.windows = 3;
      const double w2 = seconds(f2), w3 = seconds(f3);
      EXPECT_NEAR(w3 - w2, w2 - s1, 1e-9 * w3) << b;
      EXPECT_GT(w2, s1) << b;
    }
  }
}

TEST(PlanTimeModel, MoreCombosMoreTime) {
  for (const char* b : {"cpu", "cpu_ref", "cuda"}) {
    double last = 0;
    for (int fast : {10, 20, 40, 80}) {
      PlanInputs in = ma_inputs(fast, b);
      in.selection = true;
      const double s = seconds(in);
      EXPECT_GT(s, last) << b << " fast " << fast;
      last = s;
    }
  }
}

TEST(PlanTimeModel, MoreCpuThreadsLessTime) {
  double last = seconds(ma_inputs(20, "cpu", 1));
  for (int t : {2, 4, 16}) {
    const double s = seconds(ma_inputs(20, "cpu", t));
    EXPECT_LT(s, last) << t << " threads";
    last = s;
  }
  // cpu_ref runs on one thread whatever --threads.
  EXPECT_EQ(seconds(ma_inputs(20, "cpu_ref", 1)), seconds(ma_inputs(20, "cpu_ref", 16)));
}

TEST(PlanTimeModel, SelectionPaths) {
  PlanInputs in = ma_inputs(20);  // 2,000 valid combos: PBO applies
  EXPECT_EQ(plan_run(in).selection_path, SelectionPath::none);
  EXPECT_EQ(plan_run(in).selection_seconds, 0);
  in.selection = true;
  for (Objective o : {Objective::sharpe, Objective::sortino, Objective::total_return}) {
    in.objective = o;
    EXPECT_EQ(plan_run(in).selection_path, SelectionPath::screened_cscv);
  }
  for (Objective o : {Objective::cagr, Objective::calmar, Objective::profit_factor}) {
    in.objective = o;
    EXPECT_EQ(plan_run(in).selection_path, SelectionPath::plain_cscv);
  }
  in.selection_spec.pbo_blocks = 0;
  EXPECT_EQ(plan_run(in).selection_path, SelectionPath::scores);
  in.selection_spec = {};
  in.selection_spec.pbo_max_combos = 100;  // fewer than the valid combos: PBO skipped
  EXPECT_EQ(plan_run(in).selection_path, SelectionPath::scores);
}

TEST(PlanTimeModel, SelectionCostsAndThePlainWalkCostsMore) {
  for (const char* b : {"cpu", "cpu_ref", "cuda"}) {
    PlanInputs none = ma_inputs(20, b, 2);
    PlanInputs robust = none;
    robust.selection = true;
    PlanInputs plain = robust;
    plain.objective = Objective::calmar;
    const double s_none = seconds(none), s_robust = seconds(robust), s_plain = seconds(plain);
    EXPECT_GT(s_robust, s_none) << b;
    EXPECT_GT(s_plain, s_robust) << b;
    EXPECT_GT(plan_run(plain).selection_seconds, plan_run(robust).selection_seconds) << b;
    for (Objective o : {Objective::cagr, Objective::profit_factor}) {
      plain.objective = o;
      EXPECT_GE(seconds(plain), s_robust) << b;
    }
  }
  // On cpu the plain walk's share grows with the combos: at 20,000 combos it is most of the
  // run (the calmar sweep), and the plan line says which path it priced.
  PlanInputs big = ma_inputs(200, "cpu", 2);
  big.selection = true;
  big.objective = Objective::calmar;
  const RunPlan p = plan_run(big);
  EXPECT_GT(p.selection_seconds, 0.5 * p.seconds);
  EXPECT_NE(plan_text(p, big).find("PBO, plain CSCV walk"), std::string::npos) << plan_text(p, big);
}

TEST(PlanTimeModel, CudaCheaperThanCpuPerComboBar) {
  for (Family f :
       {Family::ma_cross, Family::channel_breakout, Family::bollinger, Family::rsi_reversion}) {
    PlanInputs cpu = ma_inputs(20, "cpu", 1);
    cpu.grid.family = f;
    if (f != Family::ma_cross) {
      cpu.grid.fast.clear();
      cpu.grid.slow.clear();
      cpu.grid.n = range(2, 50);
      if (f == Family::bollinger) cpu.grid.k = {1.0, 1.5, 2.0, 2.5};
      if (f == Family::rsi_reversion) {
        cpu.grid.lo = {20, 30};
        cpu.grid.hi = {70, 80};
      }
    }
    PlanInputs cuda = cpu;
    cuda.backend = "cuda";
    const double on_cuda = combo_part(cuda);
    EXPECT_GT(on_cuda, 0) << to_string(f);
    EXPECT_LT(on_cuda, combo_part(cpu)) << to_string(f);
    cpu.threads = 64;  // and than cpu on many threads
    EXPECT_LT(on_cuda, combo_part(cpu)) << to_string(f);
    PlanInputs ref = cpu;
    ref.backend = "cpu_ref";  // the oracle: slower than cpu per combo-bar
    cpu.threads = ref.threads = 1;
    EXPECT_GT(combo_part(ref), combo_part(cpu)) << to_string(f);
  }
}

}  // namespace
}  // namespace wfod::cli
