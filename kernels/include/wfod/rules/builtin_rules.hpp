// The four built-in families (SPEC §5) written as SPEC §5a rule text, one text per value of
// their categorical parameters (ma, side, entry, style, source), and the values of their
// numeric parameters for a combo. SPEC §5a says each gives the family's positions bar for bar.
#pragma once

#include <vector>

#include "wfod/grid.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::rules {

// The rules text of `combo`'s family at its categorical values (ma, side, entry, style,
// source); the numeric parameters become `params`. std::invalid_argument for a rules combo.
RulesText builtin_rules(const Combo& combo);
// The values of builtin_rules(combo).params for `combo`, in that order (a rules combo: its
// own values).
std::vector<double> builtin_values(const Combo& combo);

}  // namespace wfod::rules
