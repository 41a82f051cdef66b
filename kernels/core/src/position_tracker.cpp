// PositionTracker: the combo's own indicator rows (RollingIndicators over a one-combo grid,
// the states every path shares), a tail of its input bars, and its decisions replayed from
// its decision state (the last positions and its stops', lane_setup's replay_positions);
// started at the anchor or seeded from a stream (TrackerSeed); or, for the strategies the
// lanes do not decide, a replaying one (src/position_replay.hpp) each member hands over to.
#include "wfod/position_tracker.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "src/lane_setup.hpp"
#include "src/position_replay.hpp"
#include "src/rolling_indicators.hpp"
#include "src/stream_bars.hpp"
#include "src/tracker_seed.hpp"
#include "wfod/support.hpp"

namespace wfod {
namespace {

constexpr size_t kKeepAll = static_cast<size_t>(-1);
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
    case Family::rules:  // trackers run the lanes' rules, which rules strategies are not
      // make() replays a rules combo through the backend instead (src/position_replay.hpp)
      throw Unsupported("position trackers do not run rules strategies (SPEC §5a)");
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
  std::vector<int8_t> positions;  // p_t for t in [first, bars.end())
  detail::ComboState state;       // entering bar bars.end(): p_{t-2}, p_{t-1}, the stops'
  size_t first = 0;
  size_t keep = kKeepAll;
  bool dropped = false;  // some position before `first` was known and dropped

  State(const StrategySpec& spec, const Combo& c) : combo(c), rows(grid_of(c)), bars(spec.fill) {}

  // Decides the bars appended since the last call, then releases what no decision reads.
  void decide() {
    const size_t from = rows.bars(), end = bars.end();
    if (end <= from) return;
    rows.append(bars.view(), bars.kept_from());
    const detail::LaneInput in = detail::lane_input(rows, combo);
    detail::replay_positions(in, detail::kind_of(combo), rows.matrix(), bars.tables(0), from, end,
                             state, positions);
    // The next decision reads the rows at the newest bar (cross entries) and the states
    // read back lookback() input bars.
    rows.release_before(end - 1);
    bars.release_before(end > rows.lookback() ? end - rows.lookback() : 0);
    trim();
  }

  void trim() {
    if (keep == kKeepAll || positions.size() <= keep) return;
    const size_t drop = positions.size() - keep;
    if (drop < std::max<size_t>(keep, 1024)) return;  // in bulk: O(1) amortised per bar
    positions.erase(positions.begin(), positions.begin() + static_cast<ptrdiff_t>(drop));
    first += drop;
    dropped = true;
  }
};

PositionTracker::PositionTracker(const StrategySpec& spec, const Combo& combo)
    : state_(std::make_unique<State>(spec, combo)) {}
PositionTracker::PositionTracker(std::unique_ptr<State> state) : state_(std::move(state)) {}
PositionTracker::PositionTracker(std::unique_ptr<Replay> replay) : replay_(std::move(replay)) {}
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

Support PositionTracker::follows(const Backend& backend, const StrategySpec& spec) {
  // The lanes decide every family but rules (grid_of); rules need the backend's source.
  if (spec.grid.family != Family::rules || backend.positions_source()) return Support::yes();
  return Support::no("the " + std::string(backend.name()) +
                     " backend cannot follow a rules strategy's positions bar by bar (SPEC §5a: "
                     "it offers no positions source)");
}

PositionTracker PositionTracker::make(const Backend& backend, const StrategySpec& spec,
                                      const Combo& combo) {
  if (spec.grid.family != Family::rules) return PositionTracker(spec, combo);
  if (PositionsOf source = backend.positions_source())
    return PositionTracker(spec, combo, std::move(source));
  throw Unsupported(follows(backend, spec).refusal);
}

const Combo& PositionTracker::combo() const { return replay_ ? replay_->combo : state_->combo; }
size_t PositionTracker::bars() const { return replay_ ? replay_->bars.size() : state_->bars.end(); }
size_t PositionTracker::first_kept() const { return replay_ ? 0 : state_->first; }
size_t PositionTracker::keep() const { return replay_ ? replay_->keep : state_->keep; }
int8_t PositionTracker::last() const {
  if (replay_) return replay_->bars.size() ? replay_->decided().back() : 0;
  return state_->positions.empty() ? 0 : state_->positions.back();
}

const std::vector<int8_t>& PositionTracker::extend(const HistoryView& h) {
  if (replay_) {
    for (size_t t = replay_->bars.size(); t < h.size(); ++t)
      replay_->bars.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t],
                                  h.volume.empty() ? 0.0 : h.volume[t], 0});
    return replay_->decided();
  }
  State& s = *state_;
  if (s.first != 0 || s.dropped)
    throw std::logic_error("PositionTracker::extend needs every position from the anchor");
  while (h.size() > s.bars.end()) {
    s.bars.append(h, s.bars.end(), std::min(h.size(), s.bars.end() + kSlice));
    s.decide();
  }
  return s.positions;
}

void PositionTracker::append(std::span<const Bar> bars) {
  if (replay_) {
    replay_->append(bars);
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
  state_->keep = std::max<size_t>(bars, 1);  // the newest position is the next one's start
  state_->trim();
}

PositionTracker PositionTracker::fork(size_t keep) const {
  if (replay_) {
    auto copy = std::make_unique<Replay>(*replay_);
    copy->keep = std::max<size_t>(keep, 1);
    return PositionTracker(std::move(copy));
  }
  const State& s = *state_;
  // The seed reads the rows at the newest bar and the look-back's bars, which decide()
  // keeps (release_before), exactly what a stream hands over (TrackerSeed).
  StrategySpec spec;
  spec.fill = s.bars.fill();
  const size_t end = s.bars.end(), kept = std::max<size_t>(keep, 1);
  const size_t first = std::max(s.first, end > kept ? end - kept : 0);
  return detail::TrackerSeed::make(spec, s.combo, s.rows, s.bars, first, positions(first, end),
                                   s.state, keep);
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
  const State& s = *state_;
  if (first < s.first || first > end || end > s.bars.end())
    throw std::out_of_range("positions of bars [" + std::to_string(first) + ", " +
                            std::to_string(end) + ") outside the tracker's [" +
                            std::to_string(s.first) + ", " + std::to_string(s.bars.end()) + ")");
  return {s.positions.begin() + static_cast<ptrdiff_t>(first - s.first),
          s.positions.begin() + static_cast<ptrdiff_t>(end - s.first)};
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
  s->positions = std::move(positions);
  s->state = state;
  s->first = first;
  s->dropped = first > 0;
  s->keep = std::max<size_t>(keep, 1);
  s->trim();
  return PositionTracker(std::move(s));
}

}  // namespace detail
}  // namespace wfod
