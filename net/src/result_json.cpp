// Params and metrics as JSON, shared by the daemon's publications and wfo's --json output.

#include "wfod/net/result_json.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "wfod/grid_params.hpp"
#include "wfod/metrics.hpp"

namespace wfod {

using Json = nlohmann::ordered_json;

Json finite_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json metrics_json(const Metrics& m) {
  Json j = Json::object();
  for (std::string_view name : kMetricNames) {
    const double v = metric_value(m, name);
    if (is_integer_metric(name)) {
      j[std::string(name)] = static_cast<int64_t>(v);
    } else {
      j[std::string(name)] = finite_or_null(v);
    }
  }
  return j;
}

Json params_json(const Combo& c) {
  Json j = Json::object();
  for (const ParamValue& p : combo_params(c)) {
    const std::string key(p.name);
    if (p.kind == ParamKind::integer)
      j[key] = static_cast<int64_t>(p.number);
    else if (p.kind == ParamKind::real)
      j[key] = finite_or_null(p.number);
    else
      j[key] = std::string(p.text);
  }
  return j;
}

}  // namespace wfod
