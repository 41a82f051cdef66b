// Parameter-update payloads (PROTOCOL §2) and live out-of-sample metrics (SPEC §8 online).
// Metric names come from kMetricNames so the payload follows SPEC §6 without a second list.

#include "wfod/daemon/publication.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "wfod/grid_params.hpp"
#include "wfod/segments.hpp"
#include "wfod/summary.hpp"

namespace wfod::daemon {

namespace {

bool is_integer_metric(std::string_view name) {
  return name == "trades" || name == "wins" || name == "long_bars" || name == "short_bars" ||
         name == "flat_bars" || name == "changes";
}

// JSON has no infinity or NaN: such values are published as null.
Json real(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

}  // namespace

Json metrics_json(const Metrics& m) {
  Json j = Json::object();
  for (std::string_view name : kMetricNames) {
    const double v = metric_value(m, name);
    if (is_integer_metric(name)) {
      j[std::string(name)] = static_cast<int64_t>(v);
    } else {
      j[std::string(name)] = real(v);
    }
  }
  return j;
}

Json params_json(const Grid& grid, const Combo& c) {
  Json j = Json::object();
  (void)grid;  // the combo knows its family and filter
  for (const ParamValue& p : combo_params(c)) {
    const std::string key(p.name);
    if (p.kind == ParamKind::integer)
      j[key] = static_cast<int64_t>(p.number);
    else if (p.kind == ParamKind::real)
      j[key] = real(p.number);
    else
      j[key] = std::string(p.text);
  }
  return j;
}

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
  j["params"] = params_json(*in.grid, best.combo);
  j["id"] = best.combo.id;
  j["metrics"] = metrics_json(best.metrics);
  j["changed"] = in.changed;
  Json top = Json::array();
  for (const Ranked& r : in.result->top) {
    top.push_back({{"id", r.combo.id},
                   {"params", params_json(*in.grid, r.combo)},
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
  auto pos = [](std::span<const int8_t> p, size_t t) -> int8_t { return t < p.size() ? p[t] : 0; };
  SequentialMetrics m;
  for (size_t t = first; t < end; ++t) {
    // t - 2 wraps for t == 1: pos() then reads past the span and answers flat, as SPEC §2.
    const size_t t2 = t >= 2 ? t - 2 : SIZE_MAX;
    const int8_t p2 = t == first ? pos(before, t2) : pos(winner, t2);
    const int8_t p1 = pos(winner, t - 1);
    m.add(bar_segments(h, fill, cost_per_unit, t, p2, p1));
  }
  return m.finish(bars_per_year);
}

Metrics live_oos_metrics_tail(const HistoryView& tail, Fill fill, double cost_per_unit,
                              double bars_per_year, std::span<const int8_t> winner,
                              int8_t before2) {
  if (tail.size() < 1 || winner.size() != tail.size()) {
    throw std::invalid_argument("live_oos_metrics_tail: " + std::to_string(winner.size()) +
                                " positions for " + std::to_string(tail.size()) + " bars");
  }
  // Local bar i is bar first - 1 + i; winner[j] is p at bar first - 2 + j.
  SequentialMetrics m;
  for (size_t i = 1; i < tail.size(); ++i) {
    const int8_t p2 = i == 1 ? before2 : winner[i - 1];
    m.add(bar_segments(tail, fill, cost_per_unit, i, p2, winner[i]));
  }
  return m.finish(bars_per_year);
}

}  // namespace wfod::daemon
