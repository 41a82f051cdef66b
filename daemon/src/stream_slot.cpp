// StreamSlot: open or advance the backend's stream for one (symbol, strategy).
#include "wfod/daemon/stream_slot.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace wfod::daemon {
namespace {

StreamSpec spec_of(const SweepRequest& r) {
  StreamSpec s;
  s.strategy = r.strategy;
  s.window = r.window.bars;
  s.warmup = r.window.warmup;
  s.rank = r.rank;
  s.precision = r.precision;
  s.threads = r.threads;
  return s;
}

}  // namespace

SweepResult StreamSlot::run(Backend& backend, const SweepRequest& request) {
  const HistoryView& h = request.history;
  if (request.window.end != h.size())
    throw std::invalid_argument("stream runs optimise the window ending at the last bar");
  opened_now_ = false;
  if (!stream_ || owner_ != &backend || bars_ > h.size()) {
    stream_.reset();
    fallback_reason_.clear();
    const StreamSpec spec = spec_of(request);
    try {
      stream_ = backend.open_stream(spec, h);
    } catch (const std::invalid_argument& e) {
      // The backend's plan does not fit (e.g. device memory): full sweeps, still exact.
      fallback_reason_ = e.what();
      stream_ = backend.Backend::open_stream(spec, h);
    }
    owner_ = &backend;
    bars_ = h.size();
    opened_now_ = true;
    SweepResult r = stream_->advance({});
    stats_ = stream_->stats();
    return r;
  }
  std::vector<Bar> fresh;
  fresh.reserve(h.size() - bars_);
  for (size_t t = bars_; t < h.size(); ++t)
    fresh.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t], 0, 0});
  SweepResult r = stream_->advance(fresh);
  bars_ = h.size();
  stats_ = stream_->stats();
  return r;
}

std::vector<int8_t> StreamSlot::positions(const HistoryView& h, const StrategySpec& spec,
                                          const Combo& c) {
  constexpr size_t kTrackers = 3;  // the winner, the one before, and a challenger
  auto it = trackers_.begin();
  while (it != trackers_.end() && it->combo().id != c.id) ++it;
  if (it == trackers_.end()) {
    if (trackers_.size() == kTrackers) trackers_.pop_back();
    trackers_.emplace_front(spec, c);
  } else if (it != trackers_.begin()) {
    PositionTracker t = std::move(*it);
    trackers_.erase(it);
    trackers_.push_front(std::move(t));
  }
  return trackers_.front().extend(h);
}

}  // namespace wfod::daemon
