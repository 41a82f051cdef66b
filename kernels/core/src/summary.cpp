// Summary monoid (SPEC §6): host entry points; the math itself lives in
// wfod/detail/summary_math.hpp so the CUDA backend compiles the very same code.
#include "wfod/summary.hpp"

#include <algorithm>

#include "src/growth_refine.hpp"
#include "wfod/detail/summary_math.hpp"

namespace wfod {

Summary summarize_bar(const BarSegments& b) { return detail::summarize_bar_hd(b); }
Summary combine(const Summary& l, const Summary& r) { return detail::combine_hd(l, r); }
Metrics finalize(const Summary& s, double bars_per_year) {
  return detail::finalize_hd(s, bars_per_year);
}

void SequentialMetrics::add(const BarSegments& b) {
  builder_.add(b);
  const double s = b.exit_value + b.body_value;
  equity_ *= 1.0 + s;
  peak_ = std::max(peak_, equity_);
  drawdown_ = std::max(drawdown_, 1.0 - equity_ / peak_);
  growth_.times_one_plus(s);
}

Metrics SequentialMetrics::finish(double bars_per_year) const {
  Summary s = builder_.summary();
  s.drawdown = drawdown_;
  Metrics m = finalize(s, bars_per_year);
  // total_return, cagr and calmar (with the literal drawdown) from the exact product.
  detail::set_total_return(m, growth_.total_return(), bars_per_year);
  return m;
}

}  // namespace wfod
