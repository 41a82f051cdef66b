// Backend::prepare's default: a preparation that holds nothing but what was asked, for the
// backends whose calls build what they need per call (cpu, cpu_ref).
#include <memory>

#include "wfod/backend.hpp"

namespace wfod {

std::shared_ptr<PreparedHistory> Backend::prepare(const HistoryView& history, const StrategySpec&,
                                                  const PrepareSpec& spec) {
  PrepareSpec resolved = spec;
  resolved.bars = prepared_bars(spec.bars, history.size());
  return std::make_shared<PreparedHistory>(resolved);
}

}  // namespace wfod
