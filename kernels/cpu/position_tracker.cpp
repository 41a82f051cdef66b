// PositionTracker: the combo's own indicator rows (RollingIndicators over a one-combo grid,
// the states every path shares) and its decisions (lane_setup's extend_positions).
#include "wfod/position_tracker.hpp"

#include "cpu/lane_setup.hpp"
#include "cpu/rolling_indicators.hpp"

namespace wfod {
namespace {

// The grid holding exactly `c` (every axis one value), so its rows are the combo's rows.
Grid grid_of(const Combo& c) {
  Grid one;
  one.family = c.family;
  if (c.family == Family::ma_cross) {
    one.fast = {c.fast};
    one.slow = {c.slow};
    one.ma = {c.ma};
    one.entry = {c.entry};
  } else {
    one.n = {c.n};
    one.source = {c.source};
  }
  one.side = {c.side};
  if (c.has_vol) {
    one.vol_short = {c.vol_short};
    one.vol_long = {c.vol_long};
    one.vol_threshold = {c.vol_threshold};
  }
  return one;
}

}  // namespace

struct PositionTracker::State {
  Combo combo;
  cpu::RollingIndicators rows;
  std::vector<int8_t> positions;
  explicit State(const Combo& c) : combo(c), rows(grid_of(c)) {}
};

PositionTracker::PositionTracker(const StrategySpec& spec, const Combo& combo)
    : state_(std::make_unique<State>(combo)) {
  (void)spec;  // positions depend on the combo alone (fill and costs act on returns)
}
PositionTracker::~PositionTracker() = default;
PositionTracker::PositionTracker(PositionTracker&&) noexcept = default;
PositionTracker& PositionTracker::operator=(PositionTracker&&) noexcept = default;

const Combo& PositionTracker::combo() const { return state_->combo; }

const std::vector<int8_t>& PositionTracker::extend(const HistoryView& h) {
  State& s = *state_;
  if (h.size() > s.positions.size()) {
    s.rows.append(h);  // nothing is released: rows stay bar-0 based
    const cpu::LaneInput in = cpu::lane_input(s.rows, s.combo);
    cpu::extend_positions(in, cpu::kind_of(s.combo), h.close.data(), h.size(), s.positions);
  }
  return s.positions;
}

}  // namespace wfod
