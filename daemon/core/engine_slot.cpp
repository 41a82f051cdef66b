// EngineSlot: open (from memory, or from the bar log for the bars memory no longer holds) or
// advance the backend's stream for one (symbol, strategy), and the trackers that follow it.
#include "wfod/daemon/core/engine_slot.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "wfod/daemon/store/bar_log_reader.hpp"

namespace wfod::daemon {
namespace {

// Bars a replay from the bar log reads and advances at a time: bounds its transient memory.
constexpr size_t kReplayBatch = 1 << 16;

// With their volumes where the view has them: a rules strategy may read them (SPEC §5a).
std::vector<Bar> bars_of(const HistoryView& h) {
  std::vector<Bar> out(h.size());
  for (size_t i = 0; i < h.size(); ++i)
    out[i] = Bar{h.ts_ns[i], h.open[i],  h.high[i],
                 h.low[i],   h.close[i], h.volume.empty() ? 0.0 : h.volume[i],
                 0};
  return out;
}

// Advances a stream that is replaying history: the result is not wanted, and a window that
// is not complete yet (std::invalid_argument, SPEC §3) only means there is nothing to rank.
void take(Stream& s, const std::vector<Bar>& bars) {
  try {
    (void)s.advance(bars);
  } catch (const std::invalid_argument&) {
    // the bars are kept either way (Stream::advance)
  }
}

}  // namespace

StreamSpec stream_spec_of(const SweepRequest& r) {
  StreamSpec s;
  s.strategy = r.strategy;
  s.window = r.window.bars;
  s.warmup = r.window.warmup;
  s.rank = r.rank;
  s.precision = r.precision;
  s.threads = r.threads;
  return s;
}

void EngineSlot::open(Backend& backend, const StreamSpec& spec, const HistoryView& from_anchor) {
  stream_.reset();
  trackers_.clear();
  fallback_reason_.clear();
  spec_ = spec;
  // A backend that runs no stream of this family ("cuda" for some level families), or whose
  // plan does not fit (e.g. device memory, wfod::Unsupported): full sweeps, still exact.
  if (const Support support = backend.supports(Work::stream, spec.strategy); !support.ok()) {
    fallback_reason_ = support.refusal;
    stream_ = open_sweep_stream(backend, spec, from_anchor);
  } else {
    try {
      stream_ = backend.open_stream(spec, from_anchor);
    } catch (const std::invalid_argument& e) {
      fallback_reason_ = e.what();
      stream_ = open_sweep_stream(backend, spec, from_anchor);
    }
  }
  owner_ = &backend;
  bars_ = from_anchor.size();
  stats_ = stream_->stats();
}

void EngineSlot::open_from(Backend& backend, const StreamSpec& spec, const HistorySnapshot& snap,
                           const std::string& bar_log) {
  const size_t base = snap.from();
  if (base == 0) {
    open(backend, spec, snap.view());
    return;
  }
  // Memory holds bars [base, end): the older ones come from the bar log, a batch at a time.
  auto read = [&](size_t first, size_t end) {
    auto bars = read_bar_log(bar_log, first, end);
    if (!bars.ok())
      throw std::invalid_argument("cannot replay the history from the anchor: " +
                                  bars.error().message);
    return std::move(bars).value();
  };
  const Series head = read(0, std::min(base, kReplayBatch));
  open(backend, spec, HistoryView::of(head));
  for (size_t at = head.size(); at < base;) {
    const size_t n = std::min(kReplayBatch, base - at);
    take(*stream_, bars_of(HistoryView::of(read(at, at + n))));
    at += n;
  }
  take(*stream_, bars_of(snap.view()));
  bars_ = snap.end;
  stats_ = stream_->stats();
}

void EngineSlot::restore(Backend& backend, const StreamSpec& spec, std::span<const uint8_t> blob,
                         size_t bars) {
  std::unique_ptr<Stream> s = backend.restore_stream(spec, blob);
  if (s->stats().bars != bars)
    throw std::invalid_argument("the checkpoint's stream holds " + std::to_string(s->stats().bars) +
                                " bars, its header says " + std::to_string(bars));
  stream_ = std::move(s);
  trackers_.clear();
  fallback_reason_.clear();
  spec_ = spec;
  owner_ = &backend;
  bars_ = bars;
  stats_ = stream_->stats();
  last_checkpoint = std::chrono::steady_clock::now();
}

std::optional<std::vector<uint8_t>> EngineSlot::checkpoint() const {
  if (!bounded()) return std::nullopt;
  return stream_->checkpoint();
}

SweepResult EngineSlot::run(Backend& backend, const SweepRequest& request,
                            const HistorySnapshot& snap, const std::string& bar_log) {
  if (request.window.end != snap.end)
    throw std::invalid_argument("stream runs optimise the window ending at the last bar");
  opened_now_ = false;
  // A stream that is not bounded needs the bars from the anchor in memory (the daemon keeps
  // them all for it); a bounded one catches up from the bar log below.
  if (!stream_ || owner_ != &backend || bars_ > snap.end || (bars_ < snap.from() && !bounded())) {
    const auto t0 = std::chrono::steady_clock::now();
    open_from(backend, stream_spec_of(request), snap, bar_log);
    opened_now_ = true;
    SweepResult r = stream_->advance({});
    stats_ = stream_->stats();
    stats_.open_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  // The trackers follow the stream bar for bar; one that does not (it missed bars) goes.
  std::erase_if(trackers_, [&](const PositionTracker& t) { return t.bars() != bars_; });
  // A stream that lags further than memory holds takes the bars it missed from the bar log.
  if (bars_ < snap.from()) catch_up_from_log(snap.from(), bar_log);
  // A long run of new bars goes in batches: the copies stay bounded however far it lags.
  while (snap.end - bars_ > kReplayBatch) {
    const std::vector<Bar> batch = bars_of(snap.block->view(bars_, bars_ + kReplayBatch));
    for (PositionTracker& t : trackers_) t.append(batch);
    bars_ += batch.size();
    take(*stream_, batch);
  }
  const std::vector<Bar> fresh = bars_of(snap.view(bars_));
  for (PositionTracker& t : trackers_) t.append(fresh);
  bars_ = snap.end;  // taken even when the window is refused below (Stream::advance)
  SweepResult r = stream_->advance(fresh);
  stats_ = stream_->stats();
  return r;
}

void EngineSlot::catch_up_from_log(size_t end, const std::string& bar_log) {
  while (bars_ < end) {
    const size_t n = std::min(kReplayBatch, end - bars_);
    auto bars = read_bar_log(bar_log, bars_, bars_ + n);
    if (!bars.ok())
      throw std::invalid_argument("cannot read the bars the stream has not taken: " +
                                  bars.error().message);
    const std::vector<Bar> batch = bars_of(HistoryView::of(bars.value()));
    for (PositionTracker& t : trackers_) t.append(batch);
    bars_ += n;
    take(*stream_, batch);
  }
}

std::unique_ptr<selection::WindowSource> EngineSlot::window_source() const {
  if (!bounded()) return nullptr;
  return std::make_unique<selection::StreamWindow>(*stream_, spec_);
}

PositionTracker& EngineSlot::tracker_for(const Combo& c, const HistorySnapshot& snap) {
  constexpr size_t kTrackers = 3;  // the winner, the one before, and a challenger
  auto it = std::find_if(trackers_.begin(), trackers_.end(),
                         [&](const PositionTracker& t) { return t.combo().id == c.id; });
  if (it == trackers_.end()) {
    if (trackers_.size() == kTrackers) trackers_.pop_back();
    if (bounded()) {
      trackers_.push_front(stream_->tracker(c, tracker_keep_));
    } else {
      // The stream cannot seed one: replay the combo from the anchor (memory then holds the
      // whole history), once; later runs extend it.
      if (snap.from() != 0)
        throw std::out_of_range("positions: the history from the anchor is not in memory");
      PositionTracker t = PositionTracker::make(*owner_, spec_.strategy, c);
      t.set_keep(tracker_keep_);
      t.append(bars_of(snap.block->view(0, bars_)));
      trackers_.push_front(std::move(t));
    }
  } else if (it != trackers_.begin()) {
    PositionTracker t = std::move(*it);
    trackers_.erase(it);
    trackers_.push_front(std::move(t));
  }
  return trackers_.front();
}

std::vector<int8_t> EngineSlot::positions(const Combo& c, size_t first,
                                          const HistorySnapshot& snap) {
  if (!stream_) throw std::logic_error("EngineSlot::positions before the stream is open");
  PositionTracker& t = tracker_for(c, snap);
  if (first < t.first_kept()) {
    // Older than the tracker keeps: the stream itself may still replay it.
    if (bounded() && first >= stream_->horizon()) return stream_->positions(c, first, bars_);
    throw std::out_of_range("positions from bar " + std::to_string(first) +
                            ": the oldest kept is " + std::to_string(t.first_kept()));
  }
  return t.positions(first, bars_);
}

PositionTracker EngineSlot::follow(const Combo& c, const HistorySnapshot& snap, size_t keep) {
  if (!stream_) throw std::logic_error("EngineSlot::follow before the stream is open");
  const auto it = std::find_if(trackers_.begin(), trackers_.end(), [&](const PositionTracker& t) {
    return t.combo().id == c.id && t.bars() == bars_;
  });
  if (it != trackers_.end()) return it->fork(keep);
  if (bounded()) return stream_->tracker(c, keep);
  return tracker_for(c, snap).fork(keep);
}

void EngineSlot::warm(const Combo& c, const HistorySnapshot& snap) {
  if (stream_) (void)tracker_for(c, snap);
}

}  // namespace wfod::daemon
