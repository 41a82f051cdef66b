// What a finished sweep or walk hands to its printers (table or JSON): the result plus the
// inputs needed to describe it (window bars and timestamps, grid, ranking).
#pragma once

#include <string>

#include "data_facts.hpp"
#include "wfod/backend.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {

struct SweepReport {
  std::string csv_path;
  std::string strategy_name;  // from --config; empty otherwise
  HistoryView history;
  StrategySpec spec;
  RankSpec rank;
  WindowSpec window;
  SweepResult result;
  Precision precision_requested = Precision::exact;
  const DataFacts* data = nullptr;  // bars per year's source, gaps (--json says them)
};

struct WalkReport {
  std::string csv_path;
  std::string strategy_name;
  HistoryView history;
  StrategySpec spec;
  RankSpec rank;
  WalkSpec walk;
  WalkResult result;
  std::string backend;
  const DataFacts* data = nullptr;  // bars per year's source, gaps (--json says them)
};

}  // namespace wfod::cli
