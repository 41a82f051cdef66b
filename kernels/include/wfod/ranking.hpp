// Ranking (SPEC §7): objectives, constraints, deterministic ties, top-K.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "wfod/grid.hpp"
#include "wfod/metrics.hpp"

namespace wfod {

enum class Objective { sharpe, sortino, calmar, total_return, cagr, profit_factor };
std::string_view to_string(Objective);
Objective parse_objective(std::string_view);

struct RankSpec {
  Objective objective = Objective::sharpe;
  int64_t min_trades = 1;
  double max_drawdown = 1.0;
  std::optional<double> min_exposure;
  size_t top = 10;
};

struct Ranked {
  Combo combo;  // combo.id is the grid id
  Metrics metrics;
  double objective = 0;
};

double objective_value(const Metrics&, Objective);
// SPEC §7 constraints; a combo that fails one is not ranked.
bool passes_constraints(const Metrics&, const RankSpec&);
// Valid combos left unranked, by the SPEC §7 constraint they fail; a combo that fails
// several counts under each. Tells "nothing passed min_trades" from "nothing was valid".
struct ConstraintTally {
  uint64_t min_trades = 0, max_drawdown = 0, min_exposure = 0;
  // Counts one combo that failed passes_constraints().
  void count(const Metrics&, const RankSpec&);
  void merge(const ConstraintTally&);
};

// Strict "a ranks before b": higher objective, then lower id. NaN objectives rank last.
bool ranks_before(double obj_a, uint64_t id_a, double obj_b, uint64_t id_b);

// Keeps the best K candidates seen; merge() joins per-thread collectors deterministically.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) {}
  // Offer a candidate (already known to pass the constraints).
  void offer(const Ranked& r);
  void merge(const TopK& other);
  // Best first.
  std::vector<Ranked> sorted() const;
  size_t capacity() const { return k_; }

 private:
  size_t k_;
  std::vector<Ranked> heap_;  // min-heap on rank: the worst kept candidate at the front
};

}  // namespace wfod
