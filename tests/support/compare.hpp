// Comparison helpers shared by the unit and parity tests: tolerant float comparison with
// readable failure messages, and field-by-field Metrics comparison (SPEC §9 tolerances).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "wfod/metrics.hpp"
#include "wfod/ranking.hpp"
#include "wfod/summary.hpp"

namespace wfod::test {

// |got - want| <= max(rel * max(|got|, |want|), abs). NaN matches nothing (no metric of SPEC
// is ever NaN), infinities only themselves.
inline bool close_enough(double got, double want, double rel, double abs) {
  if (std::isnan(got) || std::isnan(want)) return false;
  if (std::isinf(got) || std::isinf(want)) return got == want;
  const double scale = std::max(std::fabs(got), std::fabs(want));
  return std::fabs(got - want) <= std::max(rel * scale, abs);
}

inline ::testing::AssertionResult near(const std::string& what, double got, double want, double rel,
                                       double abs) {
  if (close_enough(got, want, rel, abs)) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(17);
  os << what << ": got " << got << ", want " << want << " (diff " << (got - want) << ", rel "
     << (want != 0 ? (got - want) / want : got - want) << ", tolerance rel " << rel << " abs "
     << abs << ")";
  return ::testing::AssertionFailure() << os.str();
}

struct RealField {
  const char* name;
  double Metrics::*member;
};
struct IntField {
  const char* name;
  int64_t Metrics::*member;
};
inline constexpr RealField kRealFields[] = {{"total_return", &Metrics::total_return},
                                            {"cagr", &Metrics::cagr},
                                            {"sharpe", &Metrics::sharpe},
                                            {"sortino", &Metrics::sortino},
                                            {"max_drawdown", &Metrics::max_drawdown},
                                            {"calmar", &Metrics::calmar},
                                            {"win_rate", &Metrics::win_rate},
                                            {"profit_factor", &Metrics::profit_factor},
                                            {"exposure", &Metrics::exposure}};
inline constexpr IntField kIntFields[] = {{"trades", &Metrics::trades},
                                          {"wins", &Metrics::wins},
                                          {"long_bars", &Metrics::long_bars},
                                          {"short_bars", &Metrics::short_bars},
                                          {"flat_bars", &Metrics::flat_bars},
                                          {"changes", &Metrics::changes},
                                          {"bars", &Metrics::bars}};

// Integer metrics identical; real metrics within rel / abs. Returns the mismatches, one a line.
inline std::string metrics_mismatch(const Metrics& got, const Metrics& want, double rel,
                                    double abs) {
  std::ostringstream os;
  os.precision(17);
  for (const IntField& f : kIntFields) {
    if (got.*f.member != want.*f.member)
      os << "  " << f.name << ": got " << got.*f.member << ", want " << want.*f.member << "\n";
  }
  for (const RealField& f : kRealFields) {
    const double g = got.*f.member, w = want.*f.member;
    if (!close_enough(g, w, rel, abs))
      os << "  " << f.name << ": got " << g << ", want " << w << " (diff " << (g - w) << ")\n";
  }
  return os.str();
}

inline ::testing::AssertionResult metrics_near(const Metrics& got, const Metrics& want,
                                               double rel = 1e-9, double abs = 1e-12) {
  const std::string m = metrics_mismatch(got, want, rel, abs);
  if (m.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "metrics differ:\n" << m;
}

inline std::string describe(const Metrics& m) {
  std::ostringstream os;
  os.precision(10);
  for (const IntField& f : kIntFields) os << f.name << "=" << m.*f.member << " ";
  for (const RealField& f : kRealFields) os << f.name << "=" << m.*f.member << " ";
  return os.str();
}

inline std::vector<uint64_t> ids_of(const std::vector<Ranked>& top) {
  std::vector<uint64_t> ids;
  for (const Ranked& r : top) ids.push_back(r.combo.id);
  return ids;
}

// The discrete fields of two Summaries (bars, flags, positions, counts) are equal.
inline void expect_same_summary_counts(const Summary& a, const Summary& b) {
  EXPECT_EQ(a.bars, b.bars);
  EXPECT_EQ(a.nonpositive, b.nonpositive);
  EXPECT_EQ(a.head_pos, b.head_pos);
  EXPECT_EQ(a.tail_pos, b.tail_pos);
  EXPECT_EQ(a.single_run, b.single_run);
  EXPECT_EQ(a.closed_trades, b.closed_trades);
  EXPECT_EQ(a.closed_wins, b.closed_wins);
  EXPECT_EQ(a.long_bars, b.long_bars);
  EXPECT_EQ(a.short_bars, b.short_bars);
  EXPECT_EQ(a.changes, b.changes);
}

// The float fields of a Summary, in declaration order (for field-by-field comparisons).
inline std::array<double, 13> summary_reals(const Summary& s) {
  return {s.sum,      s.sum_sq,         s.down_sq,        s.growth,   s.peak,
          s.trough,   s.drawdown,       s.head_ret,       s.tail_ret, s.head_abs,
          s.tail_abs, s.closed_win_sum, s.closed_loss_sum};
}

// Two Summaries equal field by field, every float bit for bit. (Never memcmp whole Summaries:
// the padding after the flags is not a value, and a copy need not preserve it.)
inline void expect_same_summary_bits(const Summary& a, const Summary& b, const std::string& what) {
  SCOPED_TRACE(what);
  expect_same_summary_counts(a, b);
  const auto ra = summary_reals(a), rb = summary_reals(b);
  for (size_t f = 0; f < ra.size(); ++f)
    EXPECT_EQ(std::bit_cast<uint64_t>(ra[f]), std::bit_cast<uint64_t>(rb[f]))
        << "real field " << f << ": " << ra[f] << " vs " << rb[f];
}

}  // namespace wfod::test
