// cpu_ref's evaluation of a compiled rules strategy (SPEC §5a): the target position p_t of
// one combo at every bar from the anchor, in float64 exactly as SPEC writes it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ref_indicators.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::ref {

// The optional vol_filter of a rules combo (SPEC §5, applied as to every family).
struct RulesVolFilter {
  int vol_short = 0, vol_long = 0;
  double vol_threshold = 0;
};

// p_t in {-1, 0, +1} for every bar of cache.history(), `values` in program.params order.
// `volume` is the bars' volume column (ref::strategy_positions passes the history's
// HistoryView::volume); required, one value a bar, only when the program reads `volume`. Throws
// RuleError where an indicator's period or width is out of range for these values
// (rules::check_arguments), std::invalid_argument for a missing volume column. `valid` is the
// caller's (rules::combo_valid): it is not read here.
std::vector<int8_t> rules_positions(IndicatorCache& cache, const rules::Program& program,
                                    const std::vector<double>& values,
                                    const RulesVolFilter* vol = nullptr,
                                    std::span<const double> volume = {});

}  // namespace wfod::ref
