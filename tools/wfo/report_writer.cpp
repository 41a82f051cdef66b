// Writing the `--report DIR` files of `wfo walk` and `wfo sweep`: runs the extra engine
// evaluations the report needs (every combo's objective), assembles the data (report_data)
// and writes report.html, report.json and the CSV files into DIR.

#include "report_writer.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "args.hpp"
#include "output.hpp"
#include "progress_bar.hpp"
#include "report_selection.hpp"
#include "report_stop.hpp"
#include "report_template.hpp"
#include "trade_list.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& dir, const std::string& what) {
  throw InputError("--report " + dir + ": " + what);
}

// Any failure (open, write, the flush at close) is a WriteError naming the file: a report
// with a truncated file is no report.
void write_file(const std::string& dir, const std::string& name, std::string_view content) {
  report_dir_filled();  // from here on, a stop leaves the (partial) report, not an empty folder
  const fs::path path = fs::path(dir) / name;
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) throw WriteError(path.string(), errno);
  errno = 0;
  const bool written = std::fwrite(content.data(), 1, content.size(), out) == content.size() &&
                       std::fflush(out) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(out) == 0;
  if (!written) throw WriteError(path.string(), write_errno ? write_errno : EIO);
  if (!closed) throw WriteError(path.string(), errno ? errno : EIO);
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void replace_once(std::string& s, std::string_view slot, std::string_view value) {
  const size_t at = s.find(slot);
  if (at == std::string::npos) throw std::logic_error("report template lacks its data slot");
  s.replace(at, slot.size(), value);
}

// report.json, report.html and the CSVs shared by both commands.
std::string write_documents(const std::string& dir, const Json& doc) {
  write_file(dir, "report.json", doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
  write_file(dir, "report.html", render_html(chart_json(doc)));
  return (fs::path(dir) / "report.html").string();
}

// The page of `template_text` with its two slots filled.
std::string fill_page(std::string_view template_text, const std::string& title, const Json& doc) {
  std::string page(template_text);
  // The data slot first: the title could not contain it, but the data could contain the
  // title slot's text.
  replace_once(page, kReportDataSlot, script_safe_json(doc));
  replace_once(page, kReportTitleSlot, html_escape(title));
  return page;
}

// A stale objective.csv from an earlier report would not belong to this one.
void remove_stale_objective_csv(const std::string& dir) {
  std::error_code ec;
  fs::remove(fs::path(dir) / "objective.csv", ec);
}

void write_objective_csv(const std::string& dir, const Grid& grid, const GridObjectives* obj) {
  if (obj)
    write_file(dir, "objective.csv", objective_csv(grid, *obj));
  else
    remove_stale_objective_csv(dir);
}

}  // namespace

void prepare_report_dir(const std::string& dir) {
  if (dir.empty()) throw UsageError("--report needs a directory");
  std::error_code ec;
  // The folders this run creates (deepest first), removed again if it stops before writing.
  std::vector<std::string> created;
  for (fs::path p = fs::absolute(dir, ec).lexically_normal(); !ec && !p.empty();
       p = p.parent_path()) {
    if (fs::exists(p, ec) || p == p.parent_path()) break;
    if (!p.filename().empty()) created.push_back(p.string());
  }
  fs::create_directories(dir, ec);
  if (ec) fail(dir, "cannot create the directory: " + ec.message());
  remember_created_report_dirs(created);
  if (!fs::is_directory(dir, ec)) fail(dir, "not a directory");
  const fs::path probe = fs::path(dir) / ".wfo-report-write-test";
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out) fail(dir, std::string("the directory is not writable: ") + std::strerror(errno));
  }
  fs::remove(probe, ec);
}

RunInputs make_run_inputs(std::string command, std::span<const std::string_view> args,
                          const StrategySetup& setup, const std::string& dir) {
  RunInputs in;
  in.command = std::move(command);
  for (auto a : args) in.args.emplace_back(a);
  in.setup = setup;
  in.report_dir = dir;
  const auto now =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  in.generated_utc = feeds::format_timestamp(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count());
  std::error_code ec;
  const auto bytes = fs::file_size(setup.csv_path, ec);
  in.csv_bytes = ec ? 0 : static_cast<size_t>(bytes);
  const fs::path abs = fs::absolute(setup.csv_path, ec);
  in.csv_absolute = ec ? setup.csv_path : abs.lexically_normal().string();
  return in;
}

std::string render_html(const Json& doc) {
  std::string page(report_template());
  std::string title = "wfo ";
  title += doc.value("kind", std::string("report"));
  title += " report";
  if (doc.contains("inputs")) {
    title += " - " + fs::path(doc["inputs"]["data"]["path"].get<std::string>()).filename().string();
  }
  return fill_page(page, title, doc);
}

std::string render_universe_html(const Json& doc) {
  return fill_page(universe_template(),
                   "wfo universe report - " + doc.value("source", std::string("universe")), doc);
}

void write_page_file(const std::string& dir, const std::string& name, std::string_view content) {
  write_file(dir, name, content);
}

Json walk_report_files(Backend& backend, const WalkReport& r, const RunInputs& in,
                       Precision precision, int threads, const Json* selection) {
  const auto& folds = r.result.folds;
  std::vector<GridObjectives> landscape;
  const uint64_t valid = folds.empty() ? 0 : folds.front().evaluated;
  if (!folds.empty() && valid <= kReportMaxCombos) {
    // Every fold's objectives when the grid has a heatmap and they fit the cap (a heatmap
    // per fold, chosen on click); else only the last fold's.
    size_t from = folds.size() - 1;
    if (heatmap_axes(r.spec.grid) && valid * folds.size() <= kReportMaxCombos) from = 0;
    ProgressBar progress("report");
    const size_t windows = folds.size() - from;
    for (size_t i = from; i < folds.size(); ++i) {
      const Fold& f = folds[i];
      SweepRequest req;
      req.history = r.history;
      req.strategy = r.spec;
      req.window = WindowSpec{f.is_last + 1, f.is_last - f.is_first + 1, r.walk.warmup};
      req.rank = r.rank;
      req.precision = precision;
      req.threads = threads;
      req.memory_budget = r.walk.memory_budget;
      const double done = static_cast<double>(i - from);
      auto cb = progress.callback();
      landscape.push_back(
          evaluate_grid(backend, req, f.index, kReportEvaluateBatch,
                        cb ? std::function<void(double)>([cb, done, windows](double x) {
                          cb((done + x) / static_cast<double>(windows));
                        })
                           : std::function<void(double)>()));
    }
    progress.finish();
  }
  Json doc = walk_report_json(r, in, landscape);
  attach_selection(doc, selection, in.setup.selection);
  Json files = Json::object();
  files["folds.csv"] = folds_csv(r);
  const size_t first_bar = folds.empty() ? 1 : folds.front().oos_first;
  files["equity.csv"] = equity_csv(equity_curve(r.history, first_bar, r.result.oos_returns));
  if (!landscape.empty()) files["objective.csv"] = objective_csv(r.spec.grid, landscape.back());
  // Every trade of the stitched OOS series (wfo trades --walk prints the same).
  files["trades.csv"] = trades_csv(r.history, walk_trades(backend, r.history, r.spec, r.result));
  return Json{{"document", std::move(doc)}, {"files", std::move(files)}};
}

std::string write_report_files(const std::string& dir, const Json& report) {
  const Json& files = report.at("files");
  for (const auto& [name, text] : files.items())
    write_file(dir, name, text.get_ref<const std::string&>());
  if (!files.contains("objective.csv")) remove_stale_objective_csv(dir);
  return write_documents(dir, report.at("document"));
}

std::string write_walk_report(const std::string& dir, Backend& backend, const WalkReport& r,
                              const RunInputs& in, Precision precision, int threads,
                              const Json* selection) {
  return write_report_files(dir, walk_report_files(backend, r, in, precision, threads, selection));
}

std::string write_sweep_report(const std::string& dir, Backend& backend, const SweepReport& r,
                               const SweepRequest& request, const RunInputs& in,
                               const Json* selection) {
  std::optional<GridObjectives> landscape;
  if (r.result.evaluated <= kReportMaxCombos) {
    ProgressBar progress("report");
    landscape = evaluate_grid(backend, request, 0, kReportEvaluateBatch, progress.callback());
    progress.finish();
  }
  std::vector<double> returns;
  if (!r.result.top.empty()) {
    returns = window_returns(backend, r.history, r.spec, r.result.top.front().combo,
                             r.window.first(), r.window.end - 1);
  }
  Json doc = sweep_report_json(r, in, landscape, returns);
  attach_selection(doc, selection, in.setup.selection);
  write_file(dir, "top.csv", top_csv(r));
  write_file(dir, "equity.csv",
             equity_csv(equity_curve(r.history, r.window.first(), returns), "equity"));
  write_objective_csv(dir, r.spec.grid, landscape ? &*landscape : nullptr);
  // Every trade of the top combo in the window (wfo trades prints the same).
  std::vector<Trade> trades;
  if (!r.result.top.empty()) {
    trades = window_trades(backend, r.history, r.spec, r.result.top.front().combo, r.window.first(),
                           r.window.end - 1);
  }
  write_file(dir, "trades.csv", trades_csv(r.history, trades));
  return write_documents(dir, doc);
}

}  // namespace wfod::cli
