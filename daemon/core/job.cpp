// The worker's job body: optimise, then the previous winner's live_oos, timing and error
// classification (a bad request vs a failing backend) for the loop to act on.
#include "wfod/daemon/core/job.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include "wfod/daemon/publish/publication.hpp"
#include "wfod/daemon/publish/signal_follower.hpp"

namespace wfod::daemon {

namespace {

// SPEC §8 online: the previously published winner over the bars since its publication,
// from the tail of the history and the slot's trackers (no bars from the anchor needed).
Metrics live_oos_of(EngineSlot& slot, const JobInput& in) {
  const size_t first = in.prev_end;
  if (first - 1 < in.snap.from())
    throw std::out_of_range("the bars since the last publication are no longer in memory");
  const StrategySpec& s = in.request.strategy;
  // The winner's p_t for t in [first - 2, end - 1); p_{-1} = 0 (SPEC §2).
  std::vector<int8_t> w;
  if (first < 2) w.push_back(0);
  const std::vector<int8_t> pw = slot.positions(*in.winner, first >= 2 ? first - 2 : 0, in.snap);
  w.insert(w.end(), pw.begin(), pw.end() - 1);  // the last is p_{end-1}: not needed
  int8_t before2 = 0;
  if (in.before && first >= 2) before2 = slot.positions(*in.before, first - 2, in.snap).front();
  return live_oos_metrics_tail(in.snap.view(first - 1), s.fill, s.costs.per_unit(), s.bars_per_year,
                               w, before2);
}

}  // namespace

JobResult run_job(Backend& backend, JobInput& in) {
  JobResult out;
  out.end = in.request.window.end;
  const auto t0 = std::chrono::steady_clock::now();
  out.marks.received = in.received;
  out.marks.queued = in.queued;
  out.marks.started = t0;
  try {
    // A request over the history from the anchor is possible only when memory holds it.
    if (in.snap.from() == 0) in.request.history = in.snap.view();
    if (in.slot) {
      out.sweep = in.slot->run(backend, in.request, in.snap, in.bar_log);
      out.bounded = in.slot->bounded();
      out.slot_bars = in.slot->bars();
    } else {
      out.sweep = backend.sweep(in.request);
    }
    out.optimise_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (in.slot && in.slot->opened_now()) {
      out.stream_opened = true;
      out.stream_stats = in.slot->stats();
      out.stream_fallback = in.slot->fallback_reason();
    }
    if (in.selection && !out.sweep.top.empty()) {
      if (auto window = in.slot ? in.slot->window_source() : nullptr) {
        out.selection = selection_step(*window, out.sweep, in.selected, *in.selection);
      } else if (in.snap.from() == 0) {
        out.selection = selection_step(backend, in.request, out.sweep, in.selected, *in.selection);
      } else {
        throw std::invalid_argument(
            "robust selection needs the history from the anchor, which is no longer in memory");
      }
    }
    if (in.winner && in.slot && in.prev_end >= 1 && in.prev_end <= out.end) {
      try {
        out.live = live_oos_of(*in.slot, in);
      } catch (const std::out_of_range& e) {
        out.live_missing = e.what();  // published with live_oos null
      }
    } else if (in.winner && !in.slot && in.prev_end >= 1 && in.prev_end <= out.end) {
      const HistoryView& h = in.request.history;
      const StrategySpec& s = in.request.strategy;
      const std::vector<int8_t> pw = backend.positions(h, s, *in.winner);
      std::vector<int8_t> pb;
      if (in.before) pb = backend.positions(h, s, *in.before);
      out.live = live_oos_metrics(h, s.fill, s.costs.per_unit(), s.bars_per_year, pw, pb,
                                  in.prev_end, h.size());
    }
  } catch (const std::invalid_argument& e) {
    out.error = e.what();  // SPEC §3 refused the request: another backend would too
  } catch (const std::exception& e) {
    out.error = e.what();
    out.backend_failed = true;
  }
  out.marks.finished = std::chrono::steady_clock::now();
  out.elapsed_ms = std::chrono::duration<double, std::milli>(out.marks.finished - t0).count();
  return out;
}

std::optional<Combo> next_live_winner(const JobResult& out) {
  if (!out.error.empty()) return std::nullopt;
  if (out.selection) {
    if (out.selection->publish) return out.selection->publish->combo;
    return std::nullopt;
  }
  if (out.sweep.top.empty()) return std::nullopt;
  return out.sweep.top.front().combo;
}

void follow_winner(const Backend& backend, JobInput& in, JobResult& out, const Combo& combo) {
  try {
    if (in.slot && in.slot->is_open() && in.slot->bars() == in.snap.end) {
      out.follow = in.slot->follow(combo, in.snap, kSignalTrackerKeep);
    } else if (in.snap.from() == 0) {
      PositionTracker t = PositionTracker::make(backend, in.request.strategy, combo);
      t.set_keep(kSignalTrackerKeep);
      const HistoryView h = in.snap.view();
      std::vector<Bar> bars(h.size());
      for (size_t i = 0; i < h.size(); ++i)
        bars[i] = Bar{h.ts_ns[i], h.open[i],  h.high[i],
                      h.low[i],   h.close[i], h.volume.empty() ? 0.0 : h.volume[i],
                      0};
      t.append(bars);
      out.follow = std::move(t);
    } else {
      out.follow_missing =
          "the stream is not open and the history from the anchor is not in memory";
    }
  } catch (const std::exception& e) {
    out.follow_missing = e.what();
  }
}

void warm_live_tracker(const JobInput& in, const Combo& combo) {
  if (!in.slot || !in.slot->is_open() || in.slot->bars() != in.snap.end) return;
  try {
    in.slot->warm(combo, in.snap);
  } catch (const std::exception&) {
    // Only a head start: the next job computes the positions itself and reports any error.
  }
}

}  // namespace wfod::daemon
