// PositionTracker::Rules: one bar of a rules combo from its carried state (rules_tracker.hpp).
#include "src/rules_tracker.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "src/lane_kinds.hpp"
#include "src/position_rules.hpp"
#include "src/rules/transitions.hpp"
#include "src/tracker_seed.hpp"

namespace wfod {

PositionTracker::Rules::Rules(const StrategySpec& spec, const Combo& c)
    : combo(c), fill(spec.fill), rows(c), eval(*c.program) {
  now.indicator.assign(c.program->indicators.size(), 0.0);
  before.indicator.assign(c.program->indicators.size(), 0.0);
  stops.stop_loss = c.stop_loss;
  stops.take_profit = c.take_profit;
  stops.trailing_stop = c.trailing_stop;
  stops.threshold = c.vol_threshold;
}

void PositionTracker::Rules::check_order(std::span<const Bar> more) const {
  int64_t last = last_ts;
  for (size_t i = 0; i < more.size(); ++i) {
    if (more[i].ts_ns <= last)
      throw std::invalid_argument("stream bar " + std::to_string(i) + " has ts " +
                                  std::to_string(more[i].ts_ns) + " not after the previous bar's " +
                                  std::to_string(last));
    last = more[i].ts_ns;
  }
}

void PositionTracker::Rules::step(const Bar& bar) {
  const rules::Program& program = *combo.program;
  const bool anchor = rows.bars() == 0;
  rows.next(bar);
  std::swap(now, before);
  now.field = {bar.open, bar.high, bar.low, bar.close, bar.volume};
  for (size_t i = 0; i < program.indicators.size(); ++i) now.indicator[i] = rows.indicator(i);

  // The code of SPEC §5a's step: an indicator the conditions name, or the filter's rows,
  // undefined: flat; the filter closed: hold; else the conditions' bits.
  uint8_t code;
  const double vs = combo.has_vol ? rows.vol_short() : 0.0;
  const double vl = combo.has_vol ? rows.vol_long() : 1.0;
  if (!rows.all_used_defined() || std::isnan(vs) || std::isnan(vl)) {
    code = rules::kUndefinedCode;
  } else if (combo.has_vol) {
    detail::LaneInput filter = stops;
    filter.vol_short = &vs;
    filter.vol_long = &vl;
    code = detail::vol_open(filter, 0)
               ? eval.code(program, combo.rule_values, now, anchor ? nullptr : &before)
               : rules::kClosedCode;
  } else {
    code = eval.code(program, combo.rule_values, now, anchor ? nullptr : &before);
  }
  const int8_t r = rules::next_target(r1, code);
  r1 = r;

  // §5b through the lanes' step, at bar 1 of two-bar columns [t-1, t]: r_t given (kGivenKind),
  // c_{t-1} for a fresh trade's entry (or o_t with fill next_open); the step reads nothing
  // else of bar t-1.
  const double target[2] = {0.0, static_cast<double>(r)};
  const double close[2] = {close1, bar.close};
  const double open[2] = {0.0, bar.open};
  detail::LaneInput in = stops;
  in.a = target;
  kept.p.push_back(detail::step_combo<detail::kGivenKind>(
      in, in.stops_on(), close, fill == Fill::next_open ? open : nullptr, 1, state));
  kept.trim();
  close1 = bar.close;
  last_ts = bar.ts_ns;
}

size_t PositionTracker::Rules::footprint_bytes() const {
  return rows.footprint_bytes() + kept.p.capacity() +
         (now.indicator.capacity() + before.indicator.capacity()) * sizeof(double);
}

namespace detail {

PositionTracker TrackerSeed::make_rules(const StrategySpec& spec, const Combo& combo,
                                        RulesComboRows rows, const rules::BarLeaves& now, int8_t r1,
                                        double close1, int64_t last_ts, size_t first,
                                        std::vector<int8_t> positions, const ComboState& state,
                                        size_t keep) {
  auto s = std::make_unique<PositionTracker::Rules>(spec, combo);
  s->rows = std::move(rows);
  s->now = now;
  s->r1 = r1;
  s->close1 = close1;
  s->last_ts = last_ts;
  s->state = state;
  s->kept = KeptPositions::starting_at(first, std::move(positions), keep);
  return PositionTracker(std::move(s));
}

}  // namespace detail
}  // namespace wfod
