// The run time report of `wfo sweep` / `wfo walk` (tools/wfo/run_timing): select() measures
// itself and the host pipeline's parts; the text line and the "timing" JSON object give the
// whole run and its parts, summed over a walk's folds, with the parts null where a backend
// does not measure them.
#include "tools/wfo/run_timing.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/series.hpp"

namespace wfod::cli {
namespace {

selection::SelectionTiming timing_of(double total, double robust, bool parts) {
  selection::SelectionTiming t;
  t.total_seconds = total;
  t.robust_seconds = robust;
  if (parts) t.parts = selection::RobustTiming{0.25, 0.5, 1.0, 0.125};
  return t;
}

TEST(RunTiming, SweepTextAndJsonGiveTheWholeRunAndItsParts) {
  RunTiming t;
  t.total = 8.5;
  t.load = 0.25;
  t.plan = 0.0625;
  t.sweep = 0.125;
  t.selection.emplace().add(timing_of(8.0, 1.875, true));
  EXPECT_EQ(timing_text(t),
            "time: 8.500 s total = load 0.250 + plan 0.062 + sweep 0.125 + selection 8.000 "
            "(blocks 0.250, scores 0.500, CSCV 1.000, plateau 0.125, other 6.125)\n");
  const Json j = timing_json(t);
  EXPECT_EQ(j["total_seconds"], 8.5);
  EXPECT_EQ(j["load_seconds"], 0.25);
  EXPECT_EQ(j["plan_seconds"], 0.0625);
  EXPECT_EQ(j["sweep_seconds"], 0.125);
  EXPECT_FALSE(j.contains("walk_seconds"));
  EXPECT_EQ(j["selection_seconds"], 8.0);
  EXPECT_EQ(j["selection"]["calls"], 1);
  EXPECT_EQ(j["selection"]["robust_seconds"], 1.875);
  EXPECT_EQ(j["selection"]["blocks_seconds"], 0.25);
  EXPECT_EQ(j["selection"]["scores_seconds"], 0.5);
  EXPECT_EQ(j["selection"]["cscv_seconds"], 1.0);
  EXPECT_EQ(j["selection"]["plateau_seconds"], 0.125);
  EXPECT_EQ(j["selection"]["other_seconds"], 6.125);
}

TEST(RunTiming, WalkSumsItsFoldsAndDropsPartsOneFoldLacks) {
  RunTiming t;
  t.walk = true;
  t.total = 4;
  t.load = 0.5;
  t.sweep = 3.5;
  SelectionTimes& s = t.selection.emplace();
  s.add(timing_of(1.0, 0.875, true));
  s.add(timing_of(1.0, 0.875, true));
  EXPECT_EQ(timing_text(t),
            "time: 4.000 s total = load 0.500 + plan 0.000 + walk 3.500 (of which selection "
            "2.000 over 2 folds: blocks 0.500, scores 1.000, CSCV 2.000, plateau 0.250, other "
            "0.250)\n");
  EXPECT_EQ(timing_json(t)["walk_seconds"], 3.5);
  EXPECT_EQ(timing_json(t)["selection"]["cscv_seconds"], 2.0);
  s.add(timing_of(1.0, 0.75, false));  // a fold whose backend did not measure its parts
  EXPECT_EQ(timing_text(t),
            "time: 4.000 s total = load 0.500 + plan 0.000 + walk 3.500 (of which selection "
            "3.000 over 3 folds: robust scores 2.500, other 0.500)\n");
  const Json j = timing_json(t);
  EXPECT_TRUE(j["selection"]["cscv_seconds"].is_null());
  EXPECT_EQ(j["selection"]["robust_seconds"], 2.5);
  EXPECT_EQ(j["selection"]["calls"], 3);
}

TEST(RunTiming, NoSelection) {
  RunTiming t;
  t.total = 1;
  t.sweep = 0.5;
  EXPECT_EQ(timing_text(t),
            "time: 1.000 s total = load 0.000 + plan 0.000 + sweep 0.500 (no selection)\n");
  EXPECT_TRUE(timing_json(t)["selection_seconds"].is_null());
  EXPECT_TRUE(timing_json(t)["selection"].is_null());
  EXPECT_FALSE(timing_json(t).contains("estimate"));  // no plan made
  t.estimate = 2.5;
  t.estimate_selection = 0;
  t.selection_path = "none";
  const Json j = timing_json(t);
  EXPECT_EQ(j["estimate"]["seconds"], 2.5);  // the plan line's model, beside the measured total
  EXPECT_EQ(j["estimate"]["selection_seconds"], 0.0);
  EXPECT_EQ(j["estimate"]["selection_path"], "none");
}

// Before PBO runs on the plain CSCV walk for a large grid, the command says so (stderr).
TEST(RunTiming, NoteBeforeThePlainCscvWalk) {
  selection::SelectionSpec spec;  // S = 16, pbo_max_combos 20,000
  EXPECT_EQ(plain_cscv_note(spec, Objective::sharpe, 20000, 10000), "");
  EXPECT_EQ(plain_cscv_note(spec, Objective::total_return, 20000, 10000), "");
  const std::string note = plain_cscv_note(spec, Objective::calmar, 20000, 10000);
  EXPECT_NE(note.find("objective calmar runs the plain CSCV walk"), std::string::npos) << note;
  EXPECT_NE(note.find("20000 combos x 12870 splits"), std::string::npos) << note;
  EXPECT_NE(plain_cscv_note(spec, Objective::profit_factor, 5000, 10000), "");
  EXPECT_EQ(plain_cscv_note(spec, Objective::cagr, 500, 10000), "");    // seconds at most
  EXPECT_EQ(plain_cscv_note(spec, Objective::cagr, 20001, 10000), "");  // PBO skipped
  EXPECT_EQ(plain_cscv_note(spec, Objective::cagr, 20000, 10), "");     // window < S
  spec.pbo_blocks = 0;
  EXPECT_EQ(plain_cscv_note(spec, Objective::cagr, 20000, 10000), "");  // PBO off
}

// select() times itself: the whole call, the robust_scores part and (host pipeline) its parts,
// which lie inside it.
TEST(RunTiming, SelectMeasuresItselfAndTheHostPipelineParts) {
  const Series s =
      test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  SweepRequest req;
  req.history = HistoryView::of(s);
  req.strategy.grid.fast = {5, 10, 15, 20};
  req.strategy.grid.slow = {20, 40, 60, 80};
  req.window = {req.history.size(), 1000, 360};
  req.threads = 1;
  auto cpu = make_backend("cpu");
  const SweepResult result = cpu->sweep(req);
  selection::SelectionSpec spec;
  spec.plateau = true;
  const selection::SelectionReport rep = selection::select(*cpu, req, result, std::nullopt, spec);
  const selection::SelectionTiming& t = rep.timing;
  ASSERT_TRUE(t.parts);
  EXPECT_GT(t.parts->blocks_seconds, 0);
  EXPECT_GT(t.parts->cscv_seconds, 0);
  EXPECT_GE(t.robust_seconds, t.parts->blocks_seconds + t.parts->scores_seconds +
                                  t.parts->cscv_seconds + t.parts->plateau_seconds);
  EXPECT_GE(t.total_seconds, t.robust_seconds);
  EXPECT_LT(t.total_seconds, 60);
}

}  // namespace
}  // namespace wfod::cli
