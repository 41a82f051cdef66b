// The stop walk a cuda thread runs (wfod/detail/stop_walk.hpp: walk_state_entering, walk_bars,
// walk_step over SPEC §5b's stop_step), run here on the host over cpu_ref's own targets r_t
// and held to cpu_ref's positions and metrics: the device calls this same source with its
// decision rules in place of r_t, so its stop logic is verified on a machine without a GPU.
// On the stops parity cases (support/stops_cases.hpp: every stop kind, both sides, both fills,
// the vol filter, each family): positions from the anchor bit for bit; the state entering
// bars all over the series (look-backs of 64, 128, ... bars, and from the anchor) equal to
// the one-pass run's, and the walk from it equal to cpu_ref's positions; the window's metrics
// and its block Summaries from those states within SPEC §9 of cpu_ref's.
#include "wfod/detail/stop_walk.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stops_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/indicators.hpp"
#include "wfod/segments.hpp"
#include "wfod/summary.hpp"

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

// One combo's walk over cpu_ref's r_t (next(t, r_{t-1}) = r_t: r is the family's own run).
struct RefWalk {
  const std::vector<int8_t>& r;
  const HistoryView& h;
  const double* entry_open;
  detail::StopLevels<double, bool> levels;
  bool stops;

  double next(long long t, double /*r_prev*/) const { return r[static_cast<size_t>(t)]; }

  detail::ComboState entering(long long f) const {
    auto nx = [this](long long t, double held) { return next(t, held); };
    auto at = [this](long long t) {
      return t < 0 ? 0.0 : static_cast<double>(r[static_cast<size_t>(t)]);
    };
    return detail::walk_state_entering(nx, at, stops, levels, h.close.data(), entry_open, f,
                                       db_greater);
  }
  // Walks [first, last) from s, visit(t, p_{t-2}, p_{t-1}).
  template <typename Visit>
  void walk(long long first, long long last, detail::ComboState& s, Visit visit) const {
    auto nx = [this](long long t, double held) { return next(t, held); };
    detail::walk_bars(nx, stops, levels, h.close.data(), entry_open, first, last, s, db_greater,
                      visit);
  }
};

class StopWalk : public ::testing::TestWithParam<test::StopsCase> {};

TEST_P(StopWalk, MatchesCpuRefOnTheHost) {
  const test::StopsCase& c = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!c.synthetic && !std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: the stop walk's real-data check NOT run";
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Series s = c.synthetic ? c.synthetic() : test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const SweepRequest req = test::request_of(c, h);
  const Grid& grid = c.spec.grid;
  const long long n = static_cast<long long>(h.size());
  const double* entry_open = c.spec.fill == Fill::next_open ? h.open.data() : nullptr;
  const double cost = c.spec.costs.per_unit();
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  const std::vector<Metrics> ref_metrics = ref->evaluate(req, ids);
  const size_t first = req.window.first(), w = req.window.bars;
  const std::vector<size_t> cuts{first + w / 4, first + w / 2, first + 3 * w / 4};
  const std::vector<Summary> ref_blocks = ref->block_summaries(req, cuts);
  const std::vector<size_t> edges{first, cuts[0], cuts[1], cuts[2], req.window.end};

  size_t stop_combos = 0;
  for (size_t k = 0; k < ids.size(); ++k) {
    const Combo combo = grid.decode(ids[k]);
    SCOPED_TRACE(c.name + ", id " + std::to_string(ids[k]));
    const std::vector<int8_t> r = ref->positions(h, c.spec, test::without_stops(combo));
    const std::vector<int8_t> want = ref->positions(h, c.spec, combo);
    const RefWalk rw{
        r, h, entry_open,
        detail::stop_levels_of(combo.stop_loss, combo.take_profit, combo.trailing_stop),
        combo.stops_on()};
    stop_combos += rw.stops;

    // From the anchor: every position bit for bit.
    std::vector<int8_t> got(h.size());
    detail::ComboState state;
    rw.walk(0, n, state, [&](long long t, double, double p1) {
      if (t >= 1) got[static_cast<size_t>(t - 1)] = static_cast<int8_t>(p1);
    });
    got[h.size() - 1] = state.p1;
    ASSERT_EQ(got, want);

    // The state entering bars all over the series, found without the run before them, and
    // the walk on from it.
    std::vector<long long> starts{1, 2, 3, 65, 66, 67, 130, 131, 260};
    for (long long f = 7; f < n; f += std::max<long long>(97, n / 60)) starts.push_back(f);
    for (size_t e : edges) starts.push_back(static_cast<long long>(e));
    for (long long f : starts) {
      if (f >= n) continue;
      detail::ComboState st = rw.entering(f);
      const auto at = [&](long long t) { return t >= 0 ? int{want[static_cast<size_t>(t)]} : 0; };
      ASSERT_EQ(int{st.p1}, at(f - 1)) << "entering bar " << f;
      ASSERT_EQ(int{st.p2}, at(f - 2)) << "entering bar " << f;
      const long long last = std::min(n, f + 400);
      rw.walk(f, last, st, [&](long long t, double p2, double p1) {
        ASSERT_EQ(static_cast<int>(p1), at(t - 1)) << "bar " << t << " from " << f;
        ASSERT_EQ(static_cast<int>(p2), at(t - 2)) << "bar " << t << " from " << f;
      });
    }

    // The window's metrics from its entering state, and each block's Summary from its own.
    detail::ComboState ws = rw.entering(static_cast<long long>(first));
    SequentialMetrics metrics;
    rw.walk(static_cast<long long>(first), static_cast<long long>(req.window.end), ws,
            [&](long long t, double p2, double p1) {
              metrics.add(bar_segments(h, c.spec.fill, cost, static_cast<size_t>(t),
                                       static_cast<int8_t>(p2), static_cast<int8_t>(p1)));
            });
    EXPECT_TRUE(
        test::metrics_near(metrics.finish(c.spec.bars_per_year), ref_metrics[k], kRel, kAbs));
    for (size_t b = 0; b + 1 < edges.size(); ++b) {
      SCOPED_TRACE("block " + std::to_string(b));
      detail::ComboState bs = rw.entering(static_cast<long long>(edges[b]));
      SummaryBuilder builder;
      rw.walk(static_cast<long long>(edges[b]), static_cast<long long>(edges[b + 1]), bs,
              [&](long long t, double p2, double p1) {
                builder.add(bar_segments(h, c.spec.fill, cost, static_cast<size_t>(t),
                                         static_cast<int8_t>(p2), static_cast<int8_t>(p1)));
              });
      const Summary& y = ref_blocks[ids[k] * (cuts.size() + 1) + b];
      test::expect_same_summary_counts(builder.summary(), y);
      const auto xr = test::summary_reals(builder.summary()), yr = test::summary_reals(y);
      for (size_t f = 0; f < xr.size(); ++f) {
        const bool drawdown_field = f >= 4 && f <= 6;  // peak, trough, drawdown
        if (y.nonpositive && drawdown_field) continue;
        EXPECT_TRUE(test::near("field " + std::to_string(f), xr[f], yr[f], kRel, kAbs));
      }
    }
  }
  EXPECT_GT(stop_combos, 0u) << "no combo's stops act: the case tests nothing";
}

std::string case_name(const ::testing::TestParamInfo<test::StopsCase>& tp) { return tp.param.name; }

INSTANTIATE_TEST_SUITE_P(Cases, StopWalk, ::testing::ValuesIn(test::stops_cases()), case_name);

}  // namespace
}  // namespace wfod
