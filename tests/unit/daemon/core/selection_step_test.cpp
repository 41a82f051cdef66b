// The daemon's selection step and the robust-selection pipeline on real data: hysteresis
// reasons against a current combo, the plateau winner against plateau_select() on cpu_ref
// evaluate() scores, and the publication JSON's additive "selection" object.
#include "wfod/daemon/core/selection_step.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/series.hpp"
#include "wfod/daemon/publish/publication.hpp"

namespace wfod::daemon {
namespace {

struct Fixture {
  Series s = test::load_csv(std::filesystem::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv");
  SweepRequest req;
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  SweepResult result;
  Fixture() {
    req.history = HistoryView::of(s);
    req.strategy.grid.fast = {5, 10, 15, 20, 25, 30};
    req.strategy.grid.slow = {20, 40, 60, 80, 100, 120};
    req.strategy.costs.commission_bps = 1;
    req.window = {req.history.size(), 1000, 360};
    req.threads = 2;
    result = cpu->sweep(req);
  }
};

TEST(SelectionStep, HysteresisReasons) {
  Fixture f;
  selection::SelectionSpec spec;
  spec.pbo_blocks = 8;
  const uint64_t raw = f.result.top.front().combo.id;
  const uint64_t second = f.result.top.at(1).combo.id;

  SelectionOutcome o = selection_step(*f.cpu, f.req, f.result, std::nullopt, spec);
  EXPECT_EQ(o.reason, "first");
  EXPECT_TRUE(o.changed);
  ASSERT_TRUE(o.publish);
  EXPECT_EQ(o.publish->combo.id, raw);
  ASSERT_TRUE(o.dsr);
  EXPECT_GE(*o.dsr, 0.0);
  EXPECT_LE(*o.dsr, 1.0);
  ASSERT_TRUE(o.report.pbo);
  EXPECT_EQ(o.report.pbo->splits, 70u);

  EXPECT_EQ(selection_step(*f.cpu, f.req, f.result, raw, spec).reason, "same");
  EXPECT_EQ(selection_step(*f.cpu, f.req, f.result, second, spec).reason, "beats_margin");
  spec.hysteresis_abs = 10;  // no Sharpe beats the second best by 10
  o = selection_step(*f.cpu, f.req, f.result, second, spec);
  EXPECT_EQ(o.reason, "held");
  EXPECT_FALSE(o.changed);
  ASSERT_TRUE(o.publish);
  EXPECT_EQ(o.publish->combo.id, second);
  EXPECT_DOUBLE_EQ(*o.current_objective, f.result.top.at(1).objective);
  // The held combo is what the payload publishes, and the selection object rides along.
  PublicationInput in;
  in.grid = &f.req.strategy.grid;
  in.result = &f.result;
  in.published = &*o.publish;
  in.selection = o.json;
  const Json j = publication_json(in);
  EXPECT_EQ(j["id"], second);
  EXPECT_EQ(j["selection"]["reason"], "held");
  EXPECT_EQ(j["selection"]["raw_id"], raw);

  // fast = 30, slow = 20 is invalid; an id past the grid is gone.
  EXPECT_EQ(selection_step(*f.cpu, f.req, f.result, 5, spec).reason, "current_invalid");
  EXPECT_EQ(selection_step(*f.cpu, f.req, f.result, 999, spec).reason, "current_not_in_grid");
  spec.min_dsr = 1.0;  // nothing is certain: the winner may not replace anything
  o = selection_step(*f.cpu, f.req, f.result, std::nullopt, spec);
  EXPECT_EQ(o.reason, "dsr_below_min");
  EXPECT_FALSE(o.publish);
}

TEST(SelectionStep, PlateauWinnerMatchesReferenceScores) {
  Fixture f;
  selection::SelectionSpec spec;
  spec.pbo_blocks = 0;
  spec.plateau = true;
  spec.plateau_stat = selection::parse_plateau_stat("q25");
  const SelectionOutcome o = selection_step(*f.cpu, f.req, f.result, std::nullopt, spec);
  // Reference: every valid combo through cpu_ref evaluate().
  auto ref = make_backend("cpu_ref");
  const Grid& g = f.req.strategy.grid;
  std::vector<double> obj(g.size(), NAN);
  std::vector<selection::ComboState> st(g.size(), selection::ComboState::invalid);
  for (uint64_t id = 0; id < g.size(); ++id) {
    if (!g.decode(id).valid()) continue;
    const uint64_t ids[1] = {id};
    const Metrics m = ref->evaluate(f.req, ids).front();
    obj[id] = m.sharpe;
    st[id] = passes_constraints(m, f.req.rank) ? selection::ComboState::ranked
                                               : selection::ComboState::unranked;
  }
  std::vector<size_t> sizes;
  for (const auto& a : g.axes()) sizes.push_back(a.size);
  std::vector<double> want_scores;
  const auto want = selection::plateau_select(sizes, selection::plateau_radii(g, spec), obj, st,
                                              spec.plateau_stat, &want_scores);
  ASSERT_TRUE(want);
  ASSERT_TRUE(o.report.plateau);
  EXPECT_EQ(o.report.plateau->id, want->id);
  EXPECT_NEAR(o.report.plateau->score, want->score, 1e-9);
  EXPECT_EQ(o.json["plateau"]["id"], want->id);
  EXPECT_TRUE(o.json["pbo"].is_null());
  // Hysteresis in plateau mode compares plateau scores: the raw arg-max as current combo
  // is scored by its neighbourhood, not its own objective.
  const uint64_t raw = f.result.top.front().combo.id;
  const SelectionOutcome h = selection_step(*f.cpu, f.req, f.result, raw, spec);
  ASSERT_TRUE(h.report.current);
  EXPECT_NEAR(h.report.current->objective, want_scores[raw], 1e-9);
  EXPECT_EQ(h.json["compares"], "plateau_score");
  if (raw != want->id) {
    EXPECT_EQ(h.reason, want->score > want_scores[raw] ? "beats_margin" : "held");
  }
}

}  // namespace
}  // namespace wfod::daemon
