// Robust selection for the daemon: selection::select() plus the compact "selection" object
// of the publication. Pure apart from the backend calls; the worker keeps the current id.
#include "wfod/daemon/core/selection_step.hpp"

#include <cmath>

namespace wfod::daemon {
namespace {

Json real(double v) { return finite_or_null(v); }

Json id_or_null(const std::optional<Ranked>& r) { return r ? Json(r->combo.id) : Json(nullptr); }

}  // namespace

Json selection_publication_json(const selection::SelectionReport& rep,
                                const selection::SelectionSpec& spec) {
  Json j = Json::object();
  j["reason"] = std::string(selection::to_string(rep.decision.reason));
  j["changed"] = rep.decision.changed;
  j["raw_id"] = id_or_null(rep.raw);
  j["winner_id"] = id_or_null(rep.winner);
  if (rep.plateau && rep.winner) {
    j["plateau"] = {{"id", rep.plateau->id},
                    {"params", params_json(rep.winner->combo)},
                    {"score", real(rep.plateau->score)},
                    {"stat", selection::to_string(spec.plateau_stat)},
                    {"neighbours", rep.plateau->neighbours}};
  } else {
    j["plateau"] = nullptr;
  }
  if (rep.current) {
    j["current"] = {{"id", rep.current->id}, {"objective", real(rep.current->objective)}};
  } else {
    j["current"] = nullptr;
  }
  j["margin"] = real(rep.decision.margin);
  // What winner and current are compared by (and what current.objective holds).
  j["compares"] = spec.plateau ? "plateau_score" : "objective";
  if (rep.dsr) {
    j["dsr"] = {{"dsr", real(rep.dsr->dsr)},
                {"expected_max_sharpe", real(rep.dsr->expected_max_sharpe)},
                {"sharpe", real(rep.dsr->inputs.winner.sharpe)},
                {"trials", rep.dsr->inputs.trials},
                {"sharpe_var", real(rep.dsr->inputs.sharpe_var)},
                {"bars", rep.dsr->inputs.winner.bars},
                {"skew", real(rep.dsr->inputs.winner.skew)},
                {"kurt", real(rep.dsr->inputs.winner.kurt)},
                {"passes", rep.dsr_passes}};
  } else {
    j["dsr"] = nullptr;
  }
  if (rep.pbo) {
    j["pbo"] = {{"pbo", real(rep.pbo->pbo)},
                {"blocks", rep.pbo->blocks},
                {"splits", rep.pbo->splits_with_winner},
                {"median_logit", real(rep.pbo->q[3])},
                {"slope", real(rep.pbo->slope)},
                {"intercept", real(rep.pbo->intercept)}};
  } else {
    j["pbo"] = nullptr;
  }
  return j;
}

SelectionOutcome selection_step(Backend& backend, const SweepRequest& request,
                                const SweepResult& result, std::optional<uint64_t> current,
                                const selection::SelectionSpec& spec) {
  SweepRequest quiet = request;
  quiet.progress = nullptr;  // the sweep already reported its progress
  selection::BackendWindow window(backend, quiet);
  return selection_step(window, result, current, spec);
}

SelectionOutcome selection_step(selection::WindowSource& window, const SweepResult& result,
                                std::optional<uint64_t> current,
                                const selection::SelectionSpec& spec) {
  SelectionOutcome out;
  out.report = selection::select(window, result, current, spec);
  out.publish = out.report.published;
  out.changed = out.report.decision.changed;
  out.reason = std::string(selection::to_string(out.report.decision.reason));
  if (out.report.current && out.report.current->valid)
    out.current_objective = out.report.current->objective;
  if (out.report.dsr) out.dsr = out.report.dsr->dsr;
  out.json = selection_publication_json(out.report, spec);
  return out;
}

}  // namespace wfod::daemon
