// Hysteresis (docs/spec-10-selection.md §10.1): decide() against a plain restatement of the
// rule on seeded random inputs, plus the named cases.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "wfod/selection/hysteresis.hpp"

namespace wfod::selection {
namespace {

// The rule as written in §10.1, branch by branch.
Decision plain(const std::optional<Candidate>& w, const std::optional<Incumbent>& c,
               const SelectionSpec& spec, bool dsr_ok) {
  if (!c) {
    if (!w) return {std::nullopt, false, Reason::no_winner, 0};
    if (!dsr_ok) return {std::nullopt, false, Reason::dsr_below_min, 0};
    return {w->id, true, Reason::first, 0};
  }
  Reason bad = Reason::first;
  if (!c->in_grid)
    bad = Reason::current_not_in_grid;
  else if (!c->valid)
    bad = Reason::current_invalid;
  else if (!c->passes || std::isnan(c->objective))
    bad = Reason::current_fails_constraint;
  if (!w) {
    if (bad == Reason::first) return {c->id, false, Reason::no_winner_held, 0};
    return {std::nullopt, true, Reason::no_winner, 0};
  }
  if (w->id == c->id) return {c->id, false, Reason::same, 0};
  if (bad != Reason::first) {
    if (!dsr_ok) return {std::nullopt, true, Reason::dsr_below_min, 0};
    return {w->id, true, bad, 0};
  }
  const double margin =
      std::max(spec.hysteresis_abs,
               std::isfinite(c->objective) ? spec.hysteresis_rel * std::fabs(c->objective) : 0.0);
  // margin 0: higher objective, or equal and lower id (SPEC §7); the current side's NaN
  // was handled above (it does not qualify).
  const bool beats =
      margin == 0 ? (w->objective > c->objective || (w->objective == c->objective && w->id < c->id))
                  : w->objective - c->objective > margin;
  if (!beats) return {c->id, false, Reason::held, margin};
  if (!dsr_ok) return {c->id, false, Reason::dsr_below_min, margin};
  return {w->id, true, Reason::beats_margin, margin};
}

TEST(Hysteresis, MatchesPlainRuleOnRandomInputs) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  std::uniform_int_distribution<int> coin(0, 9);
  for (int i = 0; i < 20000; ++i) {
    SCOPED_TRACE(i);
    SelectionSpec spec;
    spec.hysteresis_abs = coin(rng) < 5 ? 0 : std::fabs(u(rng)) / 4;
    spec.hysteresis_rel = coin(rng) < 5 ? 0 : std::fabs(u(rng)) / 4;
    std::optional<Candidate> w;
    std::optional<Incumbent> c;
    if (coin(rng) > 0) w = Candidate{static_cast<uint64_t>(coin(rng)), u(rng)};
    if (coin(rng) > 1) {
      Incumbent inc;
      inc.id = static_cast<uint64_t>(coin(rng));
      inc.in_grid = coin(rng) > 0;
      inc.valid = inc.in_grid && coin(rng) > 0;
      inc.passes = inc.valid && coin(rng) > 1;
      inc.objective = coin(rng) == 0 ? NAN : u(rng);
      if (w && coin(rng) < 2) inc.objective = w->objective;  // exact ties
      c = inc;
    }
    const bool dsr_ok = coin(rng) > 1;
    const Decision a = decide(w, c, spec, dsr_ok), b = plain(w, c, spec, dsr_ok);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.changed, b.changed);
    EXPECT_EQ(a.reason, b.reason) << to_string(a.reason) << " vs " << to_string(b.reason);
  }
}

TEST(Hysteresis, NamedCases) {
  SelectionSpec spec;
  spec.hysteresis_abs = 0.1;
  spec.hysteresis_rel = 0.2;
  const Incumbent cur{3, true, true, true, 1.0};  // margin max(0.1, 0.2) = 0.2
  EXPECT_EQ(decide(Candidate{5, 1.25}, cur, spec).reason, Reason::beats_margin);
  EXPECT_EQ(decide(Candidate{5, 1.2}, cur, spec).reason, Reason::held);  // not strictly more
  EXPECT_EQ(decide(Candidate{5, 1.1}, cur, spec).id, std::optional<uint64_t>(3));
  EXPECT_EQ(decide(Candidate{3, 1.0}, cur, spec).reason, Reason::same);
  EXPECT_EQ(decide(Candidate{5, 0.5}, std::nullopt, spec).reason, Reason::first);
  Incumbent failing = cur;
  failing.passes = false;
  const Decision d = decide(Candidate{5, 0.5}, failing, spec);
  EXPECT_EQ(d.reason, Reason::current_fails_constraint);
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(d.id, std::optional<uint64_t>(5));
  // Defaults (no margin): the SPEC §7 order, so an exact tie goes to the lower id.
  const SelectionSpec none;
  EXPECT_EQ(decide(Candidate{5, 1.0}, cur, none).reason, Reason::held);
  EXPECT_EQ(decide(Candidate{2, 1.0}, cur, none).reason, Reason::beats_margin);
  // ... by rank key (SPEC v1.2 §7): an ulp more is the same key, held; a key unit more beats.
  EXPECT_EQ(decide(Candidate{5, std::nextafter(1.0, 2.0)}, cur, none).reason, Reason::held);
  EXPECT_EQ(decide(Candidate{5, 1.0000001}, cur, none).reason, Reason::beats_margin);
  // With a margin, +inf against +inf is no improvement.
  Incumbent inf = cur;
  inf.objective = INFINITY;
  EXPECT_EQ(decide(Candidate{5, INFINITY}, inf, spec).reason, Reason::held);
}

}  // namespace
}  // namespace wfod::selection
