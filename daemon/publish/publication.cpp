// Parameter-update payloads (PROTOCOL §2) and live out-of-sample metrics (SPEC §8 online).
// Metric names come from kMetricNames so the payload follows SPEC §6 without a second list.

#include "wfod/daemon/publish/publication.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "wfod/grid_params.hpp"
#include "wfod/segments.hpp"
#include "wfod/summary.hpp"

namespace wfod::daemon {

namespace {

Json real(double v) { return finite_or_null(v); }

}  // namespace

Json publication_json(const PublicationInput& in) {
  if (in.grid == nullptr || in.result == nullptr || in.result->top.empty()) {
    throw std::invalid_argument("publication_json: no winner to publish");
  }
  const Ranked& best = in.published ? *in.published : in.result->top.front();
  Json j = Json::object();
  j["schema"] = 1;
  j["symbol"] = in.symbol;
  j["strategy"] = in.strategy;
  j["seq"] = in.seq;
  j["published_ns"] = in.published_ns;
  j["window"] = {{"bars", in.window_bars}, {"first_ts", in.first_ts}, {"last_ts", in.last_ts}};
  j["params"] = params_json(best.combo);
  j["id"] = best.combo.id;
  j["metrics"] = metrics_json(best.metrics);
  j["changed"] = in.changed;
  Json top = Json::array();
  for (const Ranked& r : in.result->top) {
    top.push_back({{"id", r.combo.id},
                   {"params", params_json(r.combo)},
                   {"metrics", metrics_json(r.metrics)}});
  }
  j["top"] = std::move(top);
  j["evaluated"] = in.result->evaluated;
  j["skipped"] = in.result->skipped;
  j["elapsed_ms"] = real(in.elapsed_ms);
  j["backend"] = in.backend;
  j["config_version"] = in.config_version;
  if (in.live_oos) {
    j["live_oos"] = {{"seq", in.live_oos->seq},
                     {"bars", in.live_oos->bars},
                     {"metrics", metrics_json(in.live_oos->metrics)}};
  } else {
    j["live_oos"] = nullptr;
  }
  if (in.position) {
    j["position"] = {{"value", *in.position}, {"ts", in.last_ts}};
  } else {
    j["position"] = nullptr;
  }
  if (in.selection) j["selection"] = *in.selection;  // additive (robust selection)
  return j;
}

std::optional<int64_t> payload_window_last_ts(std::string_view payload) {
  const Json j = Json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("window") || !j["window"].is_object()) return std::nullopt;
  const Json& ts = j["window"].value("last_ts", Json());
  if (!ts.is_number_integer()) return std::nullopt;
  return ts.get<int64_t>();
}

Metrics live_oos_metrics(const HistoryView& h, Fill fill, double cost_per_unit,
                         double bars_per_year, std::span<const int8_t> winner,
                         std::span<const int8_t> before, size_t first, size_t end) {
  if (first < 1 || first > end || end > h.size() || winner.size() < end) {
    throw std::invalid_argument("live_oos_metrics: bad range");
  }
  SequentialMetrics m;
  // At `first` the exit segment is still the previous winner's position (`before`).
  for_each_segment(h, fill, cost_per_unit, winner, first, end, position_or_flat(before, first - 2),
                   [&](size_t, const BarSegments& s) { m.add(s); });
  return m.finish(bars_per_year);
}

Metrics live_oos_metrics_tail(const HistoryView& tail, Fill fill, double cost_per_unit,
                              double bars_per_year, std::span<const int8_t> winner,
                              int8_t before2) {
  if (tail.size() < 1 || winner.size() != tail.size()) {
    throw std::invalid_argument("live_oos_metrics_tail: " + std::to_string(winner.size()) +
                                " positions for " + std::to_string(tail.size()) + " bars");
  }
  // Local bar i is bar first - 1 + i; winner[j] is p at bar first - 2 + j, so p at local bar
  // i is winner[i + 1]; the exit segment of local bar 1 is held at before2.
  SequentialMetrics m;
  for_each_segment(tail, fill, cost_per_unit, winner.subspan(1), 1, tail.size(), before2,
                   [&](size_t, const BarSegments& s) { m.add(s); });
  return m.finish(bars_per_year);
}

}  // namespace wfod::daemon
