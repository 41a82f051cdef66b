// PositionTracker: the combo's own indicator rows (RollingIndicators over a one-combo grid,
// the states every path shares), a tail of its input bars, and its decisions replayed from
// its decision state (the last positions and its stops', lane_setup's replay_positions);
// started at the anchor or seeded from a stream (TrackerSeed). A rules combo (SPEC §5a) has
// its own incremental tracker (src/rules_tracker.hpp); a replaying one
// (src/position_replay.hpp) is built only on request. Each member hands over to whichever.
#include "wfod/position_tracker.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "src/kept_positions.hpp"
#include "src/lane_setup.hpp"
#include "src/position_replay.hpp"
#include "src/rolling_indicators.hpp"
#include "src/rules_tracker.hpp"
#include "src/stream_bars.hpp"
#include "src/tracker_seed.hpp"
#include "wfod/support.hpp"

namespace wfod {
namespace {

constexpr size_t kSlice = 4096;  // bars decided at a time

// The grid holding exactly `c` (every axis one value), so its rows are the combo's rows.
Grid grid_of(const Combo& c) {
  Grid one;
  one.family = c.family;
  switch (c.family) {
    case Family::ma_cross:
      one.fast = {c.fast};
      one.slow = {c.slow};
      one.ma = {c.ma};
      one.entry = {c.entry};
      break;
    case Family::channel_breakout:
      one.n = {c.n};
      one.source = {c.source};
      break;
    case Family::bollinger:
      one.n = {c.n};
      one.k = {c.k};
      one.style = {c.style};
      break;
    case Family::rsi_reversion:
      one.n = {c.n};
      one.lo = {c.lo};
      one.hi = {c.hi};
      break;
    case Family::rules:  // the lanes do not decide rules: PositionTracker::Rules does
      throw std::logic_error("a rules combo's rows are not the lanes' (src/rules_tracker.hpp)");
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
  detail::RollingIndicators rows;
  detail::StreamBars bars;
  detail::KeptPositions kept;  // p_t for t in [kept.first, bars.end())
  detail::ComboState state;    // entering bar bars.end(): p_{t-2}, p_{t-1}, the stops'

  State(const StrategySpec& spec, const Combo& c) : combo(c), rows(grid_of(c)), bars(spec.fill) {}

  // Decides the bars appended since the last call, then releases what no decision reads.
  void decide() {
    const size_t from = rows.bars(), end = bars.end();
    if (end <= from) return;
    rows.append(bars.view(), bars.kept_from());
    const detail::LaneInput in = detail::lane_input(rows, combo);
    detail::replay_positions(in, detail::kind_of(combo), rows.matrix(), bars.tables(0), from, end,
                             state, kept.p);
    // The next decision reads the rows at the newest bar (cross entries) and the states
    // read back lookback() input bars.
    rows.release_before(end - 1);
    bars.release_before(end > rows.lookback() ? end - rows.lookback() : 0);
    kept.trim();
  }
};

PositionTracker::PositionTracker(const StrategySpec& spec, const Combo& combo) {
  if (combo.family == Family::rules)
    rules_ = std::make_unique<Rules>(spec, combo);
  else
    state_ = std::make_unique<State>(spec, combo);
}
PositionTracker::PositionTracker(std::unique_ptr<State> state) : state_(std::move(state)) {}
PositionTracker::PositionTracker(std::unique_ptr<Replay> replay) : replay_(std::move(replay)) {}
PositionTracker::PositionTracker(std::unique_ptr<Rules> rules) : rules_(std::move(rules)) {}
PositionTracker::PositionTracker(const StrategySpec& spec, const Combo& combo,
                                 PositionsOf positions_of)
    : replay_(std::make_unique<Replay>()) {
  if (!positions_of) throw std::invalid_argument("a replaying tracker needs a positions source");
  replay_->spec = spec;
  replay_->combo = combo;
  replay_->positions_of = std::move(positions_of);
}
PositionTracker::~PositionTracker() = default;
PositionTracker::PositionTracker(PositionTracker&&) noexcept = default;
PositionTracker& PositionTracker::operator=(PositionTracker&&) noexcept = default;

Support PositionTracker::follows(const Backend&, const StrategySpec&) {
  // Every family has an incremental tracker on the host (the lanes' rules, or
  // PositionTracker::Rules for SPEC §5a), whatever the backend: none is refused.
  return Support::yes();
}

PositionTracker PositionTracker::make(const Backend&, const StrategySpec& spec,
                                      const Combo& combo) {
  return PositionTracker(spec, combo);
}

const Combo& PositionTracker::combo() const {
  return replay_ ? replay_->combo : rules_ ? rules_->combo : state_->combo;
}
size_t PositionTracker::bars() const {
  return replay_ ? replay_->bars.size() : rules_ ? rules_->bars() : state_->bars.end();
}
size_t PositionTracker::first_kept() const {
  return replay_ ? 0 : rules_ ? rules_->kept.first : state_->kept.first;
}
size_t PositionTracker::keep() const {
  return replay_ ? replay_->keep : rules_ ? rules_->kept.keep : state_->kept.keep;
}
int8_t PositionTracker::last() const {
  if (replay_) return replay_->bars.size() ? replay_->decided().back() : 0;
  const detail::KeptPositions& k = rules_ ? rules_->kept : state_->kept;
  return k.p.empty() ? 0 : k.p.back();
}
size_t PositionTracker::footprint_bytes() const {
  if (replay_)
    return replay_->bars.ts_ns.capacity() * sizeof(int64_t) +
           replay_->bars.close.capacity() * sizeof(double) * 5 + replay_->positions.capacity();
  if (rules_) return rules_->footprint_bytes();
  return state_->rows.footprint_bytes() + state_->bars.footprint_bytes() +
         state_->kept.p.capacity();
}

const std::vector<int8_t>& PositionTracker::extend(const HistoryView& h) {
  if (replay_) {
    for (size_t t = replay_->bars.size(); t < h.size(); ++t)
      replay_->bars.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t],
                                  h.volume.empty() ? 0.0 : h.volume[t], 0});
    return replay_->decided();
  }
  detail::KeptPositions& k = rules_ ? rules_->kept : state_->kept;
  if (k.first != 0 || k.dropped)
    throw std::logic_error("PositionTracker::extend needs every position from the anchor");
  if (rules_) {
    Rules& r = *rules_;
    if (r.combo.program->uses_volume && h.volume.size() != h.size())
      throw std::invalid_argument("the rules read volume, but " + std::to_string(h.volume.size()) +
                                  " volumes were given for " + std::to_string(h.size()) + " bars");
    for (size_t t = r.bars(); t < h.size(); ++t) {
      const Bar b{h.ts_ns[t], h.open[t],  h.high[t],
                  h.low[t],   h.close[t], h.volume.empty() ? 0.0 : h.volume[t],
                  0};
      r.check_order({&b, 1});
      r.step(b);
    }
    return k.p;
  }
  State& s = *state_;
  while (h.size() > s.bars.end()) {
    s.bars.append(h, s.bars.end(), std::min(h.size(), s.bars.end() + kSlice));
    s.decide();
  }
  return k.p;
}

void PositionTracker::append(std::span<const Bar> bars) {
  if (replay_) {
    replay_->append(bars);
    return;
  }
  if (rules_) {
    rules_->check_order(bars);
    for (const Bar& b : bars) rules_->step(b);
    return;
  }
  State& s = *state_;
  s.bars.check_order(bars);
  // In slices: the tracker's bars and rows stay O(slice + look-back) however many arrive.
  for (size_t i = 0; i < bars.size(); i += kSlice) {
    s.bars.append(bars.subspan(i, std::min(kSlice, bars.size() - i)));
    s.decide();
  }
}

void PositionTracker::set_keep(size_t bars) {
  if (replay_) {
    replay_->keep = std::max<size_t>(bars, 1);  // reported only: a replay keeps every bar
    return;
  }
  (rules_ ? rules_->kept : state_->kept).set_keep(bars);
}

PositionTracker PositionTracker::fork(size_t keep) const {
  if (replay_) {
    auto copy = std::make_unique<Replay>(*replay_);
    copy->keep = std::max<size_t>(keep, 1);
    return PositionTracker(std::move(copy));
  }
  if (rules_) {
    // Its state is O(look-back): the rows, the previous bar's leaves, the last positions.
    auto copy = std::make_unique<Rules>(*rules_);
    copy->kept = rules_->kept.fork(keep);
    return PositionTracker(std::move(copy));
  }
  const State& s = *state_;
  // The seed reads the rows at the newest bar and the look-back's bars, which decide()
  // keeps (release_before), exactly what a stream hands over (TrackerSeed).
  StrategySpec spec;
  spec.fill = s.bars.fill();
  const detail::KeptPositions k = s.kept.fork(keep);
  return detail::TrackerSeed::make(spec, s.combo, s.rows, s.bars, k.first, k.p, s.state, keep);
}

std::vector<int8_t> PositionTracker::positions(size_t first, size_t end) const {
  if (replay_) {
    if (first > end || end > replay_->bars.size())
      throw std::out_of_range("positions of bars [" + std::to_string(first) + ", " +
                              std::to_string(end) + ") outside the tracker's [0, " +
                              std::to_string(replay_->bars.size()) + ")");
    const std::vector<int8_t>& p = replay_->decided();
    return {p.begin() + static_cast<ptrdiff_t>(first), p.begin() + static_cast<ptrdiff_t>(end)};
  }
  return (rules_ ? rules_->kept : state_->kept).range(first, end);
}

namespace detail {

PositionTracker TrackerSeed::make(const StrategySpec& spec, const Combo& combo,
                                  const RollingIndicators& rows, const StreamBars& bars,
                                  size_t first, std::vector<int8_t> positions,
                                  const ComboState& state, size_t keep) {
  auto s = std::make_unique<PositionTracker::State>(spec, combo);
  const size_t end = bars.end();
  s->rows.seed_from(rows, end ? end - 1 : 0);
  const size_t from = end > s->rows.lookback() ? end - s->rows.lookback() : 0;
  s->bars.start_at(from);
  s->bars.append(bars.view(), from - bars.kept_from(), end - bars.kept_from());
  s->state = state;
  s->kept = KeptPositions::starting_at(first, std::move(positions), keep);
  return PositionTracker(std::move(s));
}

}  // namespace detail
}  // namespace wfod
