// The growth metrics (total_return, cagr, calmar: SPEC §6) of the combos a run reports, from
// their total returns carried in double-double (wfod/detail/exact_growth.hpp). Host only.
//
// Why: the hot loops keep a plain running product of 1 + s_t. It rounds at every bar, about
// n * 2^-53 in all: no error for the equity and the drawdown, but total_return = product - 1
// cancels where the product is near 1, cagr multiplies that error by A/n and calmar divides
// it by the drawdown. On real minute bars cpu's calmar came out 3e-9 relative from cpu_ref's,
// past SPEC §9's 1e-9 (tests/oracle/metrics_oracle.py). So the reported combos' total
// returns are carried again from their window returns: cheap for K combos, and every other
// metric, and the ranking of all the rest, stays as the sweep made it.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "wfod/metrics.hpp"
#include "wfod/ranking.hpp"

namespace wfod::detail {

double exact_total_return(std::span<const double> returns);

// Whether metrics made from a plain running product over m.bars bars (the hot loops') are
// within half of SPEC §9's tolerance in total_return, cagr and calmar whatever the product's
// rounding: a bound of (3n + 64) * 2^-53 on its relative error, carried into cagr (times A/n)
// and calmar (over the drawdown). Then a reported combo needs no exact total return: on daily
// bars nearly always; near a zero return, or at minute annualisation, it does.
bool plain_growth_suffices(const Metrics& m, double bars_per_year);

// total_return, cagr and calmar of m from an accurate total return; m.bars and
// m.max_drawdown as they are. cagr = expm1(A/n * log1p(tr)): pow(1 + tr, A/n) would round
// 1 + tr first. -1 when 1 + tr <= 0 (SPEC §6).
void set_total_return(Metrics& m, double total_return, double bars_per_year);

// Each ranked combo's total_return, cagr and calmar from its window's strategy returns
// (window_returns(combo), SPEC §2) where the plain product may not suffice
// (plain_growth_suffices), its objective again where it is one of them, and the list
// re-sorted (higher objective, then lower id, SPEC §7): ranks can move only among combos
// whose objectives agreed to the plain product's rounding.
void refine_growth(std::vector<Ranked>& top, const RankSpec& rank, double bars_per_year,
                   const std::function<std::vector<double>(const Combo&)>& window_returns);

}  // namespace wfod::detail
