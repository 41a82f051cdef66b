// The run's time report (run_timing.hpp).
#include "run_timing.hpp"

#include <cstdio>

namespace wfod::cli {

void SelectionTimes::add(const selection::SelectionTiming& t) {
  total += t.total_seconds;
  robust += t.robust_seconds;
  if (calls++ == 0) {
    parts = t.parts;
    return;
  }
  if (!t.parts || !parts) {
    parts.reset();
    return;
  }
  parts->blocks_seconds += t.parts->blocks_seconds;
  parts->scores_seconds += t.parts->scores_seconds;
  parts->cscv_seconds += t.parts->cscv_seconds;
  parts->plateau_seconds += t.parts->plateau_seconds;
}

std::string plain_cscv_note(const selection::SelectionSpec& spec, Objective objective,
                            uint64_t valid_combos, size_t window_bars) {
  const size_t S = spec.pbo_blocks;
  if (S == 0 || S > window_bars || valid_combos > spec.pbo_max_combos) return "";
  if (selection::cscv_screened(objective)) return "";
  uint64_t splits = 1;  // C(S, S/2)
  for (uint64_t k = 1; k <= S / 2; ++k) splits = splits * (S / 2 + k) / k;
  constexpr uint64_t kNoticeable = 10'000'000;  // joins: about a second on the plain walk
  if (valid_combos * splits < kNoticeable) return "";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "note: PBO with objective %s runs the plain CSCV walk (only sharpe, sortino and "
                "total_return have the fast one): %llu combos x %llu splits of exact joins, "
                "many times the sweep's time; "
                "--no-selection, or pbo_blocks = 0 in [strategy.selection], skips it\n",
                std::string(to_string(objective)).c_str(),
                static_cast<unsigned long long>(valid_combos),
                static_cast<unsigned long long>(splits));
  return buf;
}

std::string timing_text(const RunTiming& t) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "time: %.3f s total = load %.3f + plan %.3f + %s %.3f", t.total,
                t.load, t.plan, t.walk ? "walk" : "sweep", t.sweep);
  std::string out = buf;
  const auto& s = t.selection;
  if (!s) return out + " (no selection)\n";
  // A walk's selection runs inside its folds (part of "walk"); a sweep's after the sweep.
  if (t.walk) {
    std::snprintf(buf, sizeof buf, " (of which selection %.3f over %zu folds: ", s->total,
                  s->calls);
  } else {
    std::snprintf(buf, sizeof buf, " + selection %.3f (", s->total);
  }
  out += buf;
  if (s->parts) {
    const selection::RobustTiming& p = *s->parts;
    std::snprintf(buf, sizeof buf, "blocks %.3f, scores %.3f, CSCV %.3f, plateau %.3f, ",
                  p.blocks_seconds, p.scores_seconds, p.cscv_seconds, p.plateau_seconds);
  } else {
    std::snprintf(buf, sizeof buf, "robust scores %.3f, ", s->robust);
  }
  out += buf;
  std::snprintf(buf, sizeof buf, "other %.3f)\n", s->total - s->robust);
  return out + buf;
}

Json timing_json(const RunTiming& t) {
  Json j = Json::object();
  j["total_seconds"] = t.total;
  j["load_seconds"] = t.load;
  j["plan_seconds"] = t.plan;
  j[t.walk ? "walk_seconds" : "sweep_seconds"] = t.sweep;
  if (t.estimate >= 0) {
    Json e = Json::object();
    e["seconds"] = t.estimate;
    e["selection_seconds"] = t.estimate_selection;
    e["selection_path"] = t.selection_path;
    j["estimate"] = std::move(e);
  }
  if (!t.selection) {
    j["selection_seconds"] = nullptr;
    j["selection"] = nullptr;
    return j;
  }
  const SelectionTimes& s = *t.selection;
  j["selection_seconds"] = s.total;
  Json p = Json::object();
  p["calls"] = s.calls;
  p["robust_seconds"] = s.robust;
  const char* names[] = {"blocks_seconds", "scores_seconds", "cscv_seconds", "plateau_seconds"};
  const double values[] = {
      s.parts ? s.parts->blocks_seconds : 0.0, s.parts ? s.parts->scores_seconds : 0.0,
      s.parts ? s.parts->cscv_seconds : 0.0, s.parts ? s.parts->plateau_seconds : 0.0};
  for (int i = 0; i < 4; ++i) {
    if (s.parts) {
      p[names[i]] = values[i];
    } else {
      p[names[i]] = nullptr;
    }
  }
  p["other_seconds"] = s.total - s.robust;
  j["selection"] = std::move(p);
  return j;
}

}  // namespace wfod::cli
