// Data of the `--report DIR` HTML report of `wfo walk` and `wfo sweep`: the JSON document
// the page embeds (and report.json), and the CSV tables beside it. Pure functions of a
// finished run, except evaluate_grid() and window_returns(), which ask the engine.

#include "report_data.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "json_output.hpp"
#include "params.hpp"
#include "report_findings.hpp"
#include "text_table.hpp"
#include "walk_efficiency.hpp"
#include "wfod/combo_returns.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/grid_params.hpp"

namespace wfod::cli {

namespace {

// The report's "params" object: the grid's parameter names and which of them vary.
Json params_doc(const Grid& grid) {
  Json params = Json::object();
  Json names = Json::array();
  for (auto n : param_names(grid)) names.push_back(std::string(n));
  params["names"] = std::move(names);
  params["varying"] = varying_axes(grid);
  return params;
}

// v to `digits` significant digits (the heatmap's cells: display only; objective.csv and
// the histogram keep full precision).
double round_sig(double v, int digits) {
  if (!std::isfinite(v) || v == 0) return v;
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::fabs(v))));
  if (!std::isfinite(scale) || scale == 0) return v;
  const double r = std::round(v * scale) / scale;
  return std::isfinite(r) ? r : v;
}

// Shortest text that reads back as the same double; "nan", "inf", "-inf" otherwise.
std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc{}) return "nan";
  return std::string(buf, end);
}

int64_t ms(int64_t ts_ns) {
  // Floor division: timestamps before 1970 still map to the millisecond that holds them.
  return ts_ns >= 0 ? ts_ns / 1'000'000 : -((-ts_ns + 999'999) / 1'000'000);
}

std::string ts_text(const HistoryView& h, size_t bar) {
  return feeds::format_timestamp(h.ts_ns[bar]);
}

std::string metric_text(const Metrics& m, std::string_view name) {
  const double v = metric_value(m, name);
  return is_integer_metric(name) ? std::to_string(static_cast<int64_t>(v)) : num(v);
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void csv_row(std::string& out, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_field(cells[i]);
  }
  out += '\n';
}

// Texts of one axis's values, by axis name (Grid::axes() names).
std::vector<std::string> axis_value_texts(const Grid& g, std::string_view name) {
  std::vector<std::string> out;
  for (const AxisValues& axis : axis_values(g)) {
    if (axis.name != name) continue;
    if (axis.kind == ParamKind::name) {
      for (std::string_view v : axis.names) out.emplace_back(v);
    } else {
      for (double v : axis.numbers)
        out.push_back(axis.kind == ParamKind::integer ? std::to_string(static_cast<long long>(v))
                                                      : num(v));
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string s;
  for (const std::string& item : items) {
    if (!s.empty()) s.append(sep);
    s.append(item);
  }
  return s;
}

Json span_ms(const HistoryView& h, size_t first, size_t last) {
  Json j = Json::object();
  j["first"] = first;
  j["last"] = last;
  j["first_ts"] = ts_text(h, first);
  j["last_ts"] = ts_text(h, last);
  j["first_ms"] = ms(h.ts_ns[first]);
  j["last_ms"] = ms(h.ts_ns[last]);
  return j;
}

Json equity_json(const EquityCurve& c, const HistoryView& h, std::string label) {
  Json j = Json::object();
  j["label"] = std::move(label);
  j["bars"] = c.size();
  j["points"] = c.size();
  j["first_bar"] = c.first_bar;
  // The base point: equity 1 at the close of the bar before the first return.
  j["base_ms"] = c.first_bar > 0 ? Json(ms(h.ts_ns[c.first_bar - 1])) : Json(nullptr);
  Json t = Json::array(), e = Json::array(), b = Json::array(), d = Json::array();
  for (size_t i = 0; i < c.size(); ++i) {
    t.push_back(ms(c.ts_ns[i]));
    e.push_back(real(c.equity[i]));
    b.push_back(real(c.buy_hold[i]));
    d.push_back(real(c.drawdown[i]));
  }
  j["ms"] = std::move(t);
  j["equity"] = std::move(e);
  j["buy_hold"] = std::move(b);
  j["drawdown"] = std::move(d);
  return j;
}

Json histogram_json(const Histogram& hist, uint64_t ranked) {
  Json j = Json::object();
  j["lo"] = real(hist.lo);
  j["hi"] = real(hist.hi);
  j["counts"] = hist.counts;
  j["nonfinite"] = hist.nonfinite;
  j["no_loss"] = hist.no_loss;
  j["ranked"] = ranked;
  j["winner_bin"] = hist.winner_bin ? Json(*hist.winner_bin) : Json(nullptr);
  j["winner_value"] = hist.winner_value ? real(*hist.winner_value) : Json(nullptr);
  return j;
}

Json axis_json(const HeatmapAxes& a, bool x) {
  Json j = Json::object();
  j["name"] = x ? a.x_name : a.y_name;
  j["values"] = x ? a.x_values : a.y_values;
  return j;
}

// The heatmap/histogram section. `landscape`: the windows evaluated (the histogram's
// last); `winners[i]`: the winner of fold i (walk) or of the window (sweep, one entry).
Json landscape_json(const Grid& grid, const RankSpec& rank, const HistoryView& h,
                    std::span<const GridObjectives> landscape,
                    std::span<const std::optional<uint64_t>> winners, uint64_t valid,
                    size_t windows, bool walk) {
  Json j = Json::object();
  j["cap"] = kReportMaxCombos;
  j["valid"] = valid;
  j["objective"] = std::string(to_string(rank.objective));
  const auto axes = heatmap_axes(grid);
  const auto varying = varying_axes(grid);
  j["varying"] = varying;
  if (landscape.empty()) {
    j["available"] = false;
    j["note"] = grouped(valid) + " valid combos exceed the report's cap of " +
                grouped(kReportMaxCombos) +
                " per window: no heatmap or histogram (objective.csv is not written either).";
    j["heatmap"] = nullptr;
    j["histogram"] = nullptr;
    return j;
  }
  j["available"] = true;
  const GridObjectives& last = landscape.back();
  const std::optional<uint64_t> winner = winners[last.fold];
  j["fold"] = walk ? Json(last.fold) : Json(nullptr);
  j["window"] = span_ms(h, last.first, last.last);
  j["ranked"] = last.ranked_count();
  if (winner) {
    Json w = Json::object();
    w["id"] = *winner;
    w["params"] = params_json(grid.decode(*winner));
    auto it = std::lower_bound(last.ids.begin(), last.ids.end(), *winner);
    w["objective"] = it != last.ids.end() && *it == *winner
                         ? real(last.objective[static_cast<size_t>(it - last.ids.begin())])
                         : Json(nullptr);
    j["winner"] = std::move(w);
  } else {
    j["winner"] = nullptr;
  }
  j["histogram"] =
      histogram_json(objective_histogram(last, rank.objective, winner), last.ranked_count());
  if (!axes) {
    const std::string list = join(varying, ", ");
    j["heatmap"] = nullptr;
    std::string note =
        "The heatmap needs two or more grid axes with more than one value; this "
        "grid varies ";
    note += std::to_string(varying.size());
    if (!list.empty()) note.append(" (").append(list).append(")");
    j["heatmap_note"] = note + ".";
    return j;
  }
  Json hm = Json::object();
  hm["x"] = axis_json(*axes, true);
  hm["y"] = axis_json(*axes, false);
  if (!axes->all.empty()) {
    // Every varying axis, for the page's choice of pair.
    Json all = Json::array();
    const auto grid_axes = grid.axes();
    for (size_t i : axes->all) {
      Json a = Json::object();
      a["name"] = grid_axes[i].name;
      a["values"] = axis_value_texts(grid, grid_axes[i].name);
      all.push_back(std::move(a));
    }
    hm["axes"] = std::move(all);
  }
  Json folds = Json::array();
  for (const GridObjectives& g : landscape) {
    Json f = heatmap_fold_json(grid, *axes, g, winners[g.fold]);
    f["fold"] = walk ? Json(g.fold) : Json(nullptr);
    f["window"] = span_ms(h, g.first, g.last);
    folds.push_back(std::move(f));
  }
  hm["folds"] = std::move(folds);
  if (walk && landscape.size() < windows) {
    j["heatmap_note"] = "Heatmap of the last fold only: heatmaps of every fold would hold " +
                        grouped(valid * windows) + " values (" + std::to_string(windows) +
                        " folds x " + grouped(valid) + " combos), over the cap of " +
                        grouped(kReportMaxCombos) + ".";
  }
  j["heatmap"] = std::move(hm);
  return j;
}

Json inputs_json(const RunInputs& in, const HistoryView& h, const StrategySpec& spec,
                 const RankSpec& rank, const std::string& backend_used, uint64_t valid,
                 uint64_t skipped, const WalkSpec* walk, const WindowSpec* window) {
  const StrategySetup& s = in.setup;
  Json j = Json::object();
  Json data = Json::object();
  data["path"] = s.csv_path;
  data["absolute_path"] = in.csv_absolute;
  data["bytes"] = in.csv_bytes;
  data["bars"] = h.size();
  data["first_ts"] = ts_text(h, 0);
  data["last_ts"] = ts_text(h, h.size() - 1);
  data["skip_bad_rows"] = s.skip_bad_rows;
  // --start/--end: the file's bars used (bar numbers in the report count from `first`).
  if (s.range.cut) {
    Json used = Json::object();
    used["start"] = s.range.start ? Json(*s.range.start) : Json(nullptr);
    used["end"] = s.range.end ? Json(*s.range.end) : Json(nullptr);
    used["first"] = s.range.first;
    used["last"] = s.range.last;
    data["range"] = std::move(used);
  }
  j["data"] = std::move(data);
  j["strategy"] = s.strategy_name.empty() ? Json(nullptr) : Json(s.strategy_name);
  j["family"] = std::string(to_string(spec.grid.family));
  Json grid = Json::object();
  Json axes = Json::array();
  for (const AxisInfo& a : spec.grid.axes()) {
    Json ax = Json::object();
    ax["name"] = a.name;
    ax["values"] = axis_value_texts(spec.grid, a.name);
    axes.push_back(std::move(ax));
  }
  grid["axes"] = std::move(axes);
  grid["combos"] = spec.grid.size();
  grid["valid"] = valid;
  grid["invalid"] = skipped;
  j["grid"] = std::move(grid);
  Json costs = Json::object();
  costs["commission_bps"] = real(spec.costs.commission_bps);
  costs["slippage_bps"] = real(spec.costs.slippage_bps);
  j["costs"] = std::move(costs);
  j["fill"] = std::string(to_string(spec.fill));
  j["bars_per_year"] = real(spec.bars_per_year);
  j["bars_per_year_source"] = s.data.bars_per_year_source;
  j["gaps"] = gaps_json(s.data);
  j["median_interval_s"] = s.data.median_interval_ns
                               ? real(static_cast<double>(*s.data.median_interval_ns) / 1e9)
                               : Json(nullptr);
  j["objective"] = std::string(to_string(rank.objective));
  Json cons = Json::object();
  cons["min_trades"] = rank.min_trades;
  cons["max_drawdown"] = real(rank.max_drawdown);
  cons["min_exposure"] = rank.min_exposure ? real(*rank.min_exposure) : Json(nullptr);
  j["constraints"] = std::move(cons);
  j["top"] = rank.top;
  Json be = Json::object();
  be["requested"] = s.backend;
  be["used"] = backend_used;
  j["backend"] = std::move(be);
  j["precision"] = std::string(to_string(s.precision));
  j["threads"] = s.threads;
  if (walk) {
    Json w = Json::object();
    w["is_bars"] = walk->is_bars;
    w["oos_bars"] = walk->oos_bars;
    w["mode"] = std::string(to_string(walk->mode));
    w["warmup"] = walk->warmup;
    j["walk"] = std::move(w);
  }
  if (window) {
    Json w = span_ms(h, window->first(), window->end - 1);
    w["bars"] = window->bars;
    w["warmup"] = window->warmup;
    j["window"] = std::move(w);
  }
  j["command_as_run"] = command_as_run(in);
  j["command"] = equivalent_command(in, walk, window);
  j["report_dir"] = in.report_dir;
  return j;
}

}  // namespace

// --- Engine calls ---------------------------------------------------------------------------

uint64_t GridObjectives::ranked_count() const {
  uint64_t n = 0;
  for (uint8_t r : ranked) n += r;
  return n;
}

GridObjectives evaluate_grid(Backend& backend, const SweepRequest& request, size_t fold,
                             size_t batch, const std::function<void(double)>& progress) {
  if (batch == 0) throw std::invalid_argument("evaluate_grid: batch must be >= 1");
  GridObjectives g;
  g.fold = fold;
  g.first = request.window.first();
  g.last = request.window.end - 1;
  const Grid& grid = request.strategy.grid;
  const uint64_t size = grid.size();
  for (uint64_t id = 0; id < size; ++id) {
    if (grid.decode(id).valid()) g.ids.push_back(id);
  }
  g.objective.reserve(g.ids.size());
  g.ranked.reserve(g.ids.size());
  SweepRequest req = request;
  req.progress = {};
  std::optional<size_t> winner_index;
  for (size_t start = 0; start < g.ids.size(); start += batch) {
    const size_t len = std::min(batch, g.ids.size() - start);
    const std::vector<Metrics> metrics =
        backend.evaluate(req, std::span<const uint64_t>(g.ids.data() + start, len));
    for (size_t i = 0; i < len; ++i) {
      const double obj = objective_value(metrics[i], request.rank.objective);
      const bool ok = passes_constraints(metrics[i], request.rank);
      g.objective.push_back(obj);
      g.ranked.push_back(ok ? 1 : 0);
      const size_t index = start + i;
      if (ok && (!winner_index || ranks_before(obj, g.ids[index], g.objective[*winner_index],
                                               g.ids[*winner_index]))) {
        winner_index = index;
      }
    }
    if (progress) progress(static_cast<double>(start + len) / static_cast<double>(g.ids.size()));
  }
  if (winner_index) g.winner = g.ids[*winner_index];
  return g;
}

std::vector<double> window_returns(Backend& backend, const HistoryView& h, const StrategySpec& spec,
                                   const Combo& combo, size_t first, size_t last) {
  if (first == 0 || last < first || last >= h.size()) {
    throw std::invalid_argument("window_returns: bars [" + std::to_string(first) + ", " +
                                std::to_string(last) + "] outside the history");
  }
  return combo_returns(backend, h, spec, combo, first, last + 1);
}

// --- Equity, downsampling, histogram, heatmap -------------------------------------------------

EquityCurve equity_curve(const HistoryView& h, size_t first_bar, std::span<const double> returns) {
  if (first_bar == 0 || first_bar + returns.size() > h.size()) {
    throw std::invalid_argument("equity_curve: returns do not fit the history after bar 0");
  }
  EquityCurve c;
  c.first_bar = first_bar;
  c.ts_ns.reserve(returns.size());
  c.equity.reserve(returns.size());
  c.buy_hold.reserve(returns.size());
  c.drawdown.reserve(returns.size());
  double e = 1, b = 1, peak = 1;
  for (size_t i = 0; i < returns.size(); ++i) {
    const size_t t = first_bar + i;
    e *= 1 + returns[i];
    b *= h.close[t] / h.close[t - 1];
    peak = std::max(peak, e);
    c.ts_ns.push_back(h.ts_ns[t]);
    c.equity.push_back(e);
    c.buy_hold.push_back(b);
    c.drawdown.push_back(1 - e / peak);
  }
  return c;
}

std::vector<size_t> downsample_indices(const EquityCurve& c, size_t max_points) {
  const size_t n = c.size();
  std::vector<size_t> out;
  if (n <= max_points) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  if (max_points < 7) {
    // Too few points for per-bucket extremes: evenly spaced, first and last included.
    const size_t keep = std::max<size_t>(max_points, 2);
    for (size_t k = 0; k < keep; ++k) out.push_back(k * (n - 1) / (keep - 1));
    return out;
  }
  constexpr size_t kPerBucket = 5;  // min/max equity, min/max buy-and-hold, max drawdown
  const size_t buckets = (max_points - 2) / kPerBucket;
  out.push_back(0);
  for (size_t k = 0; k < buckets; ++k) {
    const size_t lo = 1 + k * (n - 2) / buckets;
    const size_t hi = 1 + (k + 1) * (n - 2) / buckets;  // exclusive
    if (lo >= hi) continue;
    size_t emin = lo, emax = lo, bmin = lo, bmax = lo, dmax = lo;
    for (size_t i = lo; i < hi; ++i) {
      if (c.equity[i] < c.equity[emin]) emin = i;
      if (c.equity[i] > c.equity[emax]) emax = i;
      if (c.buy_hold[i] < c.buy_hold[bmin]) bmin = i;
      if (c.buy_hold[i] > c.buy_hold[bmax]) bmax = i;
      if (c.drawdown[i] > c.drawdown[dmax]) dmax = i;
    }
    for (size_t i : {emin, emax, bmin, bmax, dmax}) out.push_back(i);
  }
  out.push_back(n - 1);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Histogram objective_histogram(const GridObjectives& g, Objective objective,
                              std::optional<uint64_t> winner) {
  Histogram hist;
  std::vector<double> values;
  for (size_t i = 0; i < g.ids.size(); ++i) {
    if (!g.ranked[i]) continue;
    const double v = g.objective[i];
    if (!std::isfinite(v)) {
      ++hist.nonfinite;
    } else if (objective == Objective::profit_factor && v >= kProfitFactorNoLoss) {
      ++hist.no_loss;
    } else {
      values.push_back(v);
    }
  }
  if (winner) {
    auto it = std::lower_bound(g.ids.begin(), g.ids.end(), *winner);
    if (it != g.ids.end() && *it == *winner) {
      hist.winner_value = g.objective[static_cast<size_t>(it - g.ids.begin())];
    }
  }
  if (values.empty()) return hist;
  auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  hist.lo = *mn;
  hist.hi = *mx;
  // Rice rule, kept between 5 and 60 bins; a single bin when every value is the same.
  size_t bins = static_cast<size_t>(std::ceil(2 * std::cbrt(static_cast<double>(values.size()))));
  bins = std::clamp<size_t>(bins, 5, 60);
  const double width = hist.hi - hist.lo;
  if (!(width > 0) || !std::isfinite(width)) bins = 1;
  hist.counts.assign(bins, 0);
  auto bin_of = [&](double v) -> size_t {
    if (bins == 1) return 0;
    const double x = (v - hist.lo) / width * static_cast<double>(bins);
    if (!(x > 0)) return 0;
    return std::min(bins - 1, static_cast<size_t>(x));
  };
  for (double v : values) ++hist.counts[bin_of(v)];
  if (hist.winner_value && std::isfinite(*hist.winner_value) && *hist.winner_value >= hist.lo &&
      *hist.winner_value <= hist.hi) {
    hist.winner_bin = bin_of(*hist.winner_value);
  }
  return hist;
}

std::vector<std::string> varying_axes(const Grid& g) {
  std::vector<std::string> out;
  for (const AxisInfo& a : g.axes()) {
    if (a.size > 1) out.push_back(a.name);
  }
  return out;
}

std::optional<HeatmapAxes> heatmap_axes(const Grid& g) {
  const auto axes = g.axes();
  std::vector<size_t> varying;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].size > 1) varying.push_back(i);
  }
  if (varying.size() < 2) return std::nullopt;
  HeatmapAxes h;
  if (varying.size() > 2) h.all = varying;
  h.x = varying[0];
  h.y = varying[1];
  h.x_name = axes[h.x].name;
  h.y_name = axes[h.y].name;
  h.x_values = axis_value_texts(g, h.x_name);
  h.y_values = axis_value_texts(g, h.y_name);
  return h;
}

size_t heatmap_cell(const Grid& g, const HeatmapAxes& a, uint64_t id) {
  // The whole grid: its axes of one value add no digit, so the id is the cell.
  if (!a.all.empty()) return static_cast<size_t>(id);
  const auto axes = g.axes();
  uint64_t rest = id;
  size_t ix = 0, iy = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t digit = static_cast<size_t>(rest % axes[i].size);
    rest /= axes[i].size;
    if (i == a.x) ix = digit;
    if (i == a.y) iy = digit;
  }
  return iy * a.x_values.size() + ix;
}

Json heatmap_fold_json(const Grid& g, const HeatmapAxes& a, const GridObjectives& obj,
                       std::optional<uint64_t> winner) {
  const size_t cells =
      a.all.empty() ? a.x_values.size() * a.y_values.size() : static_cast<size_t>(g.size());
  Json z = Json::array();
  std::vector<Json> zv(cells, Json(nullptr));
  Json fail = Json::array();
  for (size_t i = 0; i < obj.ids.size(); ++i) {
    const size_t cell = heatmap_cell(g, a, obj.ids[i]);
    zv[cell] = real(round_sig(obj.objective[i], 6));
    if (!obj.ranked[i]) fail.push_back(cell);
  }
  for (auto& v : zv) z.push_back(std::move(v));
  Json j = Json::object();
  j["z"] = std::move(z);
  j["fail"] = std::move(fail);
  j["winner"] = winner ? Json(heatmap_cell(g, a, *winner)) : Json(nullptr);
  j["winner_id"] = winner ? Json(*winner) : Json(nullptr);
  if (!a.all.empty()) {
    Json at = nullptr;
    if (winner) {
      at = Json::array();
      const auto axes = g.axes();
      uint64_t rest = *winner;
      for (size_t i = 0; i < axes.size(); ++i) {
        const uint64_t digit = rest % axes[i].size;
        rest /= axes[i].size;
        if (axes[i].size > 1) at.push_back(digit);
      }
    }
    j["winner_at"] = std::move(at);
  }
  return j;
}

// --- Command lines ---------------------------------------------------------------------------

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    const bool plain = !w.empty() && w.find_first_not_of(
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789_./:,=@%+-") == std::string::npos;
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (char c : w) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

std::string command_as_run(const RunInputs& in) {
  std::vector<std::string> words{"wfo", in.command};
  words.insert(words.end(), in.args.begin(), in.args.end());
  return shell_join(words);
}

std::string axis_text(std::span<const int> v) {
  if (v.size() >= 3) {
    const int64_t step = int64_t{v[1]} - v[0];
    bool arithmetic = step > 0;
    for (size_t i = 1; arithmetic && i < v.size(); ++i)
      arithmetic = int64_t{v[i]} - v[i - 1] == step;
    if (arithmetic) {
      return std::to_string(v.front()) + ":" + std::to_string(v.back()) + ":" +
             std::to_string(step);
    }
  }
  std::vector<std::string> items;
  for (int x : v) items.push_back(std::to_string(x));
  return join(items, ",");
}

std::string equivalent_command(const RunInputs& in, const WalkSpec* walk,
                               const WindowSpec* window) {
  const StrategySetup& s = in.setup;
  const Grid& g = s.spec.grid;
  std::vector<std::string> w{"wfo", in.command, "--csv", s.csv_path};
  auto flag = [&w](std::string name, std::string value) {
    w.push_back("--" + std::move(name));
    w.push_back(std::move(value));
  };
  // A rules strategy (SPEC §5a) exists only in its config, whose params' axes no flag writes:
  // they come from the file, the stops' and the filter's as flags below.
  size_t file_axes = 0;
  if (g.family == Family::rules && !s.rules_path.empty()) {
    flag("rules", s.rules_path);
    file_axes = g.program ? g.program->params.size() : 0;
  } else if (g.family == Family::rules) {
    flag("config", s.config_path);
    flag("strategy", s.strategy_name);
    file_axes = g.program ? g.program->params.size() : 0;
  } else {
    flag("family", std::string(to_string(g.family)));
  }
  // Every axis as its flag (vol_short -> --vol-short), values joined by commas.
  for (const AxisValues& axis : axis_values(g)) {
    if (file_axes > 0) {
      --file_axes;
      continue;
    }
    std::string name(axis.name);
    std::replace(name.begin(), name.end(), '_', '-');
    if (axis.kind == ParamKind::integer) {  // an arithmetic run prints as start:stop:step
      const std::vector<int> ints(axis.numbers.begin(), axis.numbers.end());
      flag(std::move(name), axis_text(ints));
    } else {
      flag(std::move(name), join(axis_value_texts(g, axis.name), ","));
    }
  }
  flag("fill", std::string(to_string(s.spec.fill)));
  flag("cost-bps", num(s.spec.costs.commission_bps));
  flag("slippage-bps", num(s.spec.costs.slippage_bps));
  flag("bars-per-year", num(s.spec.bars_per_year));
  if (walk) {
    flag("warmup", std::to_string(walk->warmup));
  } else if (window) {
    flag("warmup", std::to_string(window->warmup));
  }
  flag("objective", std::string(to_string(s.rank.objective)));
  flag("min-trades", std::to_string(s.rank.min_trades));
  flag("max-drawdown", num(s.rank.max_drawdown));
  if (s.rank.min_exposure) flag("min-exposure", num(*s.rank.min_exposure));
  flag("top", std::to_string(s.rank.top));
  if (walk) {
    flag("is", std::to_string(walk->is_bars));
    flag("oos", std::to_string(walk->oos_bars));
    flag("mode", std::string(to_string(walk->mode)));
  } else if (window) {
    flag("window", std::to_string(window->bars));
  }
  flag("backend", s.backend);
  flag("threads", std::to_string(s.threads));
  flag("precision", std::string(to_string(s.precision)));
  if (s.skip_bad_rows) w.push_back("--skip-bad-rows");
  if (!s.columns.empty()) {
    std::string names;
    for (const std::string& c : s.columns) names += (names.empty() ? "" : ",") + c;
    flag("columns", names);
  }
  if (s.range.start) flag("start", *s.range.start);
  if (s.range.end) flag("end", *s.range.end);
  if (!in.report_dir.empty()) flag("report", in.report_dir);
  return shell_join(w);
}

// --- Documents -------------------------------------------------------------------------------

Json fold_rows_json(const WalkReport& r) {
  Json rows = walk_json(r)["folds"];
  for (size_t i = 0; i < r.result.folds.size(); ++i) {
    const Fold& f = r.result.folds[i];
    Json& row = rows[i];
    if (f.winner) {
      row["is_objective"] = real(f.winner->objective);
      row["wfe"] = f.is.cagr > 0 ? real(f.oos.cagr / f.is.cagr) : Json(nullptr);
    } else {
      row["is_objective"] = nullptr;
      row["wfe"] = nullptr;
    }
    row["oos_objective"] = real(objective_value(f.oos, r.rank.objective));
    row["ms"] = Json::array({ms(r.history.ts_ns[f.is_first]), ms(r.history.ts_ns[f.is_last]),
                             ms(r.history.ts_ns[f.oos_first]), ms(r.history.ts_ns[f.oos_last])});
  }
  return rows;
}

Json walk_report_json(const WalkReport& r, const RunInputs& in,
                      std::span<const GridObjectives> landscape) {
  const WalkResult& res = r.result;
  uint64_t valid = 0, skipped = 0;
  if (!res.folds.empty()) {
    valid = res.folds.front().evaluated;
    skipped = res.folds.front().skipped;
  }
  Json doc = Json::object();
  doc["kind"] = "walk";
  doc["title"] = "Walk-forward report";
  doc["generated"] = in.generated_utc;
  doc["inputs"] =
      inputs_json(in, r.history, r.spec, r.rank, r.backend, valid, skipped, &r.walk, nullptr);

  const size_t first_bar = res.folds.empty() ? 1 : res.folds.front().oos_first;
  const EquityCurve curve = equity_curve(r.history, first_bar, res.oos_returns);
  Json summary = Json::object();
  summary["folds"] = res.folds.size();
  summary["oos"] = metrics_json(res.oos);
  summary["oos_objective"] = real(objective_value(res.oos, r.rank.objective));
  summary["wfe"] = real(res.wfe);
  summary["is_cagr_pooled"] = real(pooled_is_cagr(res, r.spec.bars_per_year));
  const std::optional<double> aggregate = aggregate_wfe(res, r.spec.bars_per_year);
  summary["wfe_aggregate"] = aggregate ? real(*aggregate) : Json(nullptr);
  summary["buy_hold_return"] = curve.size() ? real(curve.buy_hold.back() - 1) : Json(nullptr);
  summary["seconds"] = real(res.seconds);
  summary["findings"] = walk_findings(r);
  if (!res.folds.empty()) {
    summary["oos_window"] =
        span_ms(r.history, res.folds.front().oos_first, res.folds.back().oos_last);
  }
  doc["summary"] = std::move(summary);
  Json params = params_doc(r.spec.grid);
  Json axis_values = Json::object();
  for (const AxisInfo& a : r.spec.grid.axes()) {
    axis_values[a.name] = axis_value_texts(r.spec.grid, a.name);
  }
  params["values"] = std::move(axis_values);
  doc["params"] = std::move(params);
  doc["folds"] = fold_rows_json(r);
  doc["equity"] = equity_json(curve, r.history, "Out-of-sample equity (folds stitched)");

  std::vector<std::optional<uint64_t>> winners;
  for (const Fold& f : res.folds) {
    winners.push_back(f.winner ? std::optional<uint64_t>(f.winner->combo.id) : std::nullopt);
  }
  doc["landscape"] = landscape_json(r.spec.grid, r.rank, r.history, landscape, winners, valid,
                                    res.folds.size(), true);
  return doc;
}

Json sweep_report_json(const SweepReport& r, const RunInputs& in,
                       const std::optional<GridObjectives>& landscape,
                       std::span<const double> winner_returns) {
  const SweepResult& res = r.result;
  Json doc = Json::object();
  doc["kind"] = "sweep";
  doc["title"] = "Sweep report";
  doc["generated"] = in.generated_utc;
  doc["inputs"] = inputs_json(in, r.history, r.spec, r.rank, res.backend, res.evaluated,
                              res.skipped, nullptr, &r.window);
  const EquityCurve curve = equity_curve(r.history, r.window.first(), winner_returns);
  Json summary = Json::object();
  summary["evaluated"] = res.evaluated;
  summary["skipped"] = res.skipped;
  summary["ranked"] = res.ranked;
  summary["seconds"] = real(res.seconds);
  summary["precision"] = std::string(to_string(res.precision));
  summary["winner"] = res.top.empty() ? Json(nullptr) : metrics_json(res.top.front().metrics);
  summary["winner_objective"] = res.top.empty() ? Json(nullptr) : real(res.top.front().objective);
  summary["findings"] = sweep_findings(r);
  summary["buy_hold_return"] =
      curve.size()
          ? real(curve.buy_hold.back() - 1)
          : real(r.history.close[r.window.end - 1] / r.history.close[r.window.first() - 1] - 1);
  doc["summary"] = std::move(summary);
  Json params = params_doc(r.spec.grid);
  doc["params"] = std::move(params);
  Json top = sweep_json(r)["top"];
  for (size_t i = 0; i < res.top.size(); ++i) top[i]["objective"] = real(res.top[i].objective);
  doc["top"] = std::move(top);
  doc["equity"] = curve.size() ? equity_json(curve, r.history, "In-sample equity of the top combo")
                               : Json(nullptr);
  std::vector<std::optional<uint64_t>> winners{
      res.top.empty() ? std::nullopt : std::optional<uint64_t>(res.top.front().combo.id)};
  std::vector<GridObjectives> land;
  if (landscape) land.push_back(*landscape);
  doc["landscape"] =
      landscape_json(r.spec.grid, r.rank, r.history, land, winners, res.evaluated, 1, false);
  return doc;
}

Json chart_json(const Json& report) {
  Json doc = report;
  if (!doc.contains("equity") || !doc["equity"].is_object()) return doc;
  Json& eq = doc["equity"];
  const size_t n = eq["ms"].size();
  if (n <= kReportMaxChartPoints) return doc;
  EquityCurve c;
  auto value = [](const Json& v) {
    return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
  };
  for (size_t i = 0; i < n; ++i) {
    c.ts_ns.push_back(eq["ms"][i].get<int64_t>());
    c.equity.push_back(value(eq["equity"][i]));
    c.buy_hold.push_back(value(eq["buy_hold"][i]));
    c.drawdown.push_back(value(eq["drawdown"][i]));
  }
  const auto keep = downsample_indices(c, kReportMaxChartPoints);
  Json t = Json::array(), e = Json::array(), b = Json::array(), d = Json::array();
  for (size_t i : keep) {
    t.push_back(eq["ms"][i]);
    e.push_back(eq["equity"][i]);
    b.push_back(eq["buy_hold"][i]);
    d.push_back(eq["drawdown"][i]);
  }
  eq["ms"] = std::move(t);
  eq["equity"] = std::move(e);
  eq["buy_hold"] = std::move(b);
  eq["drawdown"] = std::move(d);
  eq["points"] = keep.size();
  return doc;
}

// --- CSV -------------------------------------------------------------------------------------

std::string folds_csv(const WalkReport& r) {
  const auto names = param_names(r.spec.grid);
  std::vector<std::string> head{"fold",        "is_first",  "is_last",  "is_first_ts",
                                "is_last_ts",  "oos_first", "oos_last", "oos_first_ts",
                                "oos_last_ts", "id"};
  for (auto n : names) head.emplace_back(n);
  for (const char* c : {"is_objective", "oos_objective", "wfe", "evaluated", "skipped"}) {
    head.emplace_back(c);
  }
  for (auto m : kMetricNames) head.push_back("is_" + std::string(m));
  for (auto m : kMetricNames) head.push_back("oos_" + std::string(m));
  std::string out;
  csv_row(out, head);
  for (const Fold& f : r.result.folds) {
    std::vector<std::string> row{std::to_string(f.index),       std::to_string(f.is_first),
                                 std::to_string(f.is_last),     ts_text(r.history, f.is_first),
                                 ts_text(r.history, f.is_last), std::to_string(f.oos_first),
                                 std::to_string(f.oos_last),    ts_text(r.history, f.oos_first),
                                 ts_text(r.history, f.oos_last)};
    row.push_back(f.winner ? std::to_string(f.winner->combo.id) : "");
    for (auto n : names) row.push_back(f.winner ? param_text(f.winner->combo, n) : "");
    row.push_back(f.winner ? num(f.winner->objective) : "");
    row.push_back(num(objective_value(f.oos, r.rank.objective)));
    row.push_back(f.winner && f.is.cagr > 0 ? num(f.oos.cagr / f.is.cagr) : "");
    row.push_back(std::to_string(f.evaluated));
    row.push_back(std::to_string(f.skipped));
    for (auto m : kMetricNames) row.push_back(metric_text(f.is, m));
    for (auto m : kMetricNames) row.push_back(metric_text(f.oos, m));
    csv_row(out, row);
  }
  return out;
}

std::string top_csv(const SweepReport& r) {
  const auto names = param_names(r.spec.grid);
  std::vector<std::string> head{"rank", "id"};
  for (auto n : names) head.emplace_back(n);
  head.emplace_back("objective");
  for (auto m : kMetricNames) head.emplace_back(m);
  std::string out;
  csv_row(out, head);
  for (size_t i = 0; i < r.result.top.size(); ++i) {
    const Ranked& k = r.result.top[i];
    std::vector<std::string> row{std::to_string(i + 1), std::to_string(k.combo.id)};
    for (auto n : names) row.push_back(param_text(k.combo, n));
    row.push_back(num(k.objective));
    for (auto m : kMetricNames) row.push_back(metric_text(k.metrics, m));
    csv_row(out, row);
  }
  return out;
}

std::string equity_csv(const EquityCurve& c, std::string_view equity_column) {
  std::string out = "timestamp," + std::string(equity_column) + ",buy_hold,drawdown\n";
  for (size_t i = 0; i < c.size(); ++i) {
    out += feeds::format_timestamp(c.ts_ns[i]) + "," + num(c.equity[i]) + "," + num(c.buy_hold[i]) +
           "," + num(c.drawdown[i]) + "\n";
  }
  return out;
}

std::string objective_csv(const Grid& g, const GridObjectives& obj) {
  const auto names = param_names(g);
  std::vector<std::string> head{"id"};
  for (auto n : names) head.emplace_back(n);
  head.emplace_back("objective");
  head.emplace_back("ranked");
  std::string out;
  csv_row(out, head);
  for (size_t i = 0; i < obj.ids.size(); ++i) {
    const Combo c = g.decode(obj.ids[i]);
    std::vector<std::string> row{std::to_string(obj.ids[i])};
    for (auto n : names) row.push_back(param_text(c, n));
    row.push_back(num(obj.objective[i]));
    row.push_back(obj.ranked[i] ? "1" : "0");
    csv_row(out, row);
  }
  return out;
}

std::string script_safe_json(const Json& doc) {
  const std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 50);
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

}  // namespace wfod::cli
