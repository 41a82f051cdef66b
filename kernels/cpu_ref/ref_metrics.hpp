// cpu_ref window metrics (SPEC §6), straight from their definitions over one window's
// segments: no per-chunk summaries, so it checks the other backends' combine().
#pragma once

#include <span>

#include "ref_returns.hpp"
#include "wfod/metrics.hpp"

namespace wfod::ref {

// Metrics of the window whose bars are `bars` (W = bars.size() >= 1); A = bars_per_year.
Metrics window_metrics(std::span<const BarSegments> bars, double bars_per_year);

}  // namespace wfod::ref
