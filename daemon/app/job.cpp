// The worker's job body: optimise, then the previous winner's live_oos, timing and error
// classification (a bad request vs a failing backend) for the loop to act on.
#include "job.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include "wfod/daemon/publication.hpp"

namespace wfod::daemon {

SweepResult optimise(Backend& backend, const SweepRequest& request, StreamSlot* slot) {
  return slot ? slot->run(backend, request) : backend.sweep(request);
}

JobResult run_job(Backend& backend, JobInput& in) {
  JobResult out;
  out.end = in.request.window.end;
  const auto t0 = std::chrono::steady_clock::now();
  out.marks.received = in.received;
  out.marks.queued = in.queued;
  out.marks.started = t0;
  try {
    const HistoryView h = in.snap.view();
    in.request.history = h;
    out.sweep = optimise(backend, in.request, in.slot.get());
    out.optimise_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (in.slot && in.slot->opened_now()) {
      out.stream_opened = true;
      out.stream_stats = in.slot->stats();
      out.stream_fallback = in.slot->fallback_reason();
    }
    if (in.selection && !out.sweep.top.empty()) {
      out.selection = selection_step(backend, in.request, out.sweep, in.selected, *in.selection);
    }
    // SPEC §8 online: the previously published winner over the bars since.
    if (in.winner && in.prev_end >= 1 && in.prev_end <= h.size()) {
      const StrategySpec& s = in.request.strategy;
      // Through the slot's incremental trackers when there is one (same positions, O(new bars)).
      auto positions = [&](const Combo& c) {
        return in.slot ? in.slot->positions(h, s, c) : backend.positions(h, s, c);
      };
      const std::vector<int8_t> pw = positions(*in.winner);
      std::vector<int8_t> pb;
      if (in.before) pb = positions(*in.before);
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

void warm_live_tracker(const JobInput& in, const Combo& combo) {
  if (!in.slot) return;
  try {
    in.slot->positions(in.snap.view(), in.request.strategy, combo);
  } catch (const std::exception&) {
    // Only a head start: the next job computes the positions itself and reports any error.
  }
}

}  // namespace wfod::daemon
