// A combo's returns over a range: the backend's positions through for_each_segment.
#include "wfod/combo_returns.hpp"

#include <stdexcept>
#include <string>

#include "wfod/segments.hpp"

namespace wfod {

std::vector<double> combo_returns(Backend& backend, const HistoryView& h, const StrategySpec& spec,
                                  const Combo& combo, size_t first, size_t end) {
  if (first == 0 || end < first || end > h.size()) {
    throw std::invalid_argument("combo_returns: bars [" + std::to_string(first) + ", " +
                                std::to_string(end) + ") outside the history of " +
                                std::to_string(h.size()) + " bars");
  }
  const std::vector<int8_t> p = backend.positions(h.prefix(end), spec, combo);
  std::vector<double> out;
  out.reserve(end - first);
  for_each_segment(
      h, spec.fill, spec.costs.per_unit(), p, first, end, position_or_flat(p, first - 2),
      [&](size_t, const BarSegments& s) { out.push_back(s.exit_value + s.body_value); });
  return out;
}

}  // namespace wfod
