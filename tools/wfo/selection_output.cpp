// The "selection" JSON object and text lines of wfo sweep/walk: raw and plateau winners,
// the hysteresis decision, DSR with its inputs and the PBO block. Non-finite numbers are
// null, as everywhere in wfo's JSON (spec-notes 10).
#include "selection_output.hpp"

#include <cmath>
#include <cstdio>

#include "json_output.hpp"

namespace wfod::cli {
namespace {

Json combo_json(const std::optional<Ranked>& r) {
  if (!r) return nullptr;
  return {
      {"id", r->combo.id}, {"params", params_json(r->combo)}, {"objective", real(r->objective)}};
}

Json dsr_json(const selection::SelectionReport& rep, const selection::SelectionSpec& spec) {
  if (!rep.dsr) return nullptr;
  const auto& d = *rep.dsr;
  return {{"dsr", real(d.dsr)},
          {"expected_max_sharpe", real(d.expected_max_sharpe)},
          {"sharpe", real(d.inputs.winner.sharpe)},
          {"trials", d.inputs.trials},
          {"sharpe_var", real(d.inputs.sharpe_var)},
          {"bars", d.inputs.winner.bars},
          {"skew", real(d.inputs.winner.skew)},
          {"kurt", real(d.inputs.winner.kurt)},
          {"min_dsr", spec.min_dsr ? real(*spec.min_dsr) : Json(nullptr)},
          {"passes", rep.dsr_passes}};
}

Json pbo_json(const selection::SelectionReport& rep) {
  if (!rep.pbo) return nullptr;
  const auto& p = *rep.pbo;
  Json counts = Json::array();
  for (uint64_t c : p.histogram) counts.push_back(c);
  return {{"pbo", real(p.pbo)},
          {"blocks", p.blocks},
          {"block_bars", rep.pbo_layout.block_bars},
          {"remainder_bars", rep.pbo_layout.remainder_bars},
          {"splits", p.splits},
          {"splits_with_winner", p.splits_with_winner},
          {"combos", p.combos},
          {"excluded_nonpositive", p.excluded_nonpositive},
          {"logit",
           {{"min", real(p.q[0])},
            {"q05", real(p.q[1])},
            {"q25", real(p.q[2])},
            {"median", real(p.q[3])},
            {"q75", real(p.q[4])},
            {"q95", real(p.q[5])},
            {"max", real(p.q[6])},
            {"mean", real(p.mean_logit)}}},
          {"histogram", {{"lo", real(p.hist_lo)}, {"hi", real(p.hist_hi)}, {"counts", counts}}},
          {"degradation",
           {{"slope", real(p.slope)},
            {"intercept", real(p.intercept)},
            {"points", p.regression_points}}},
          {"prob_oos_loss", real(p.prob_oos_loss)}};
}

}  // namespace

Json selection_json(const selection::SelectionReport& rep, const selection::SelectionSpec& spec,
                    Objective objective) {
  Json j = Json::object();
  j["objective"] = std::string(to_string(objective));
  j["raw"] = combo_json(rep.raw);
  if (rep.plateau) {
    j["plateau"] = combo_json(rep.winner);
    j["plateau"]["score"] = real(rep.plateau->score);
    j["plateau"]["stat"] = selection::to_string(spec.plateau_stat);
    j["plateau"]["neighbours"] = rep.plateau->neighbours;
    j["plateau"]["worst_counted"] = rep.plateau->worst_counted;
  } else {
    j["plateau"] = nullptr;
  }
  j["winner"] = combo_json(rep.winner);
  if (rep.current) {
    j["current"] = {{"id", rep.current->id},
                    {"in_grid", rep.current->in_grid},
                    {"valid", rep.current->valid},
                    {"passes", rep.current->passes},
                    {"objective", real(rep.current->objective)}};
  } else {
    j["current"] = nullptr;
  }
  j["published"] = combo_json(rep.published);
  if (rep.published) j["published"]["metrics"] = metrics_json(rep.published->metrics);
  j["changed"] = rep.decision.changed;
  j["reason"] = std::string(selection::to_string(rep.decision.reason));
  // What winner and current are compared by (and what current.objective holds).
  j["hysteresis"] = {{"abs", spec.hysteresis_abs},
                     {"rel", spec.hysteresis_rel},
                     {"margin", real(rep.decision.margin)},
                     {"compares", spec.plateau ? "plateau_score" : "objective"}};
  j["dsr"] = dsr_json(rep, spec);
  j["pbo"] = pbo_json(rep);
  if (!rep.pbo) j["pbo_skipped"] = rep.pbo_skipped;
  return j;
}

std::string selection_text(const selection::SelectionReport& rep,
                           const selection::SelectionSpec& spec, const Grid&) {
  std::string out;
  char line[256];
  auto id_text = [](const std::optional<Ranked>& r) {
    return r ? std::to_string(r->combo.id) : std::string("none");
  };
  std::snprintf(line, sizeof line, "selection: raw %s, winner %s%s, published %s (%s)\n",
                id_text(rep.raw).c_str(), id_text(rep.winner).c_str(),
                spec.plateau ? " (plateau)" : "", id_text(rep.published).c_str(),
                std::string(selection::to_string(rep.decision.reason)).c_str());
  out += line;
  if (rep.dsr) {
    std::snprintf(line, sizeof line,
                  "  DSR %.4f (SR %.4f/bar vs E[max] %.4f, N %llu, T %lld, skew %.3f, kurt %.3f)\n",
                  rep.dsr->dsr, rep.dsr->inputs.winner.sharpe, rep.dsr->expected_max_sharpe,
                  static_cast<unsigned long long>(rep.dsr->inputs.trials),
                  static_cast<long long>(rep.dsr->inputs.winner.bars), rep.dsr->inputs.winner.skew,
                  rep.dsr->inputs.winner.kurt);
    out += line;
  }
  if (rep.pbo) {
    std::snprintf(line, sizeof line,
                  "  PBO %.4f (S %zu, %llu splits, median logit %.3f, degradation slope %.3f)\n",
                  rep.pbo->pbo, rep.pbo->blocks,
                  static_cast<unsigned long long>(rep.pbo->splits_with_winner), rep.pbo->q[3],
                  rep.pbo->slope);
    out += line;
  } else {
    out += "  PBO skipped: " + rep.pbo_skipped + "\n";
  }
  return out;
}

}  // namespace wfod::cli
