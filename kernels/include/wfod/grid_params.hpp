// A grid's axes and a combo's parameters by name, in canonical order (SPEC §5): the one
// place that knows which field holds which parameter, for every printer, report and
// publication (so a new family or parameter is added here, not in each of them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wfod/grid.hpp"

namespace wfod {

// How a parameter's values are written: periods as integers, widths/levels/thresholds as
// decimals, choices by their SPEC names.
enum class ParamKind { integer, real, name };

// One axis: its name and values, as numbers (integer/real) or names.
struct AxisValues {
  std::string_view name;
  ParamKind kind = ParamKind::integer;
  std::vector<double> numbers;          // integer and real axes
  std::vector<std::string_view> names;  // name axes
  size_t size() const { return kind == ParamKind::name ? names.size() : numbers.size(); }
};

// One parameter of a combo.
struct ParamValue {
  std::string_view name;
  ParamKind kind = ParamKind::integer;
  double number = 0;      // integer and real parameters
  std::string_view text;  // name parameters
};

// The grid's axes in canonical order (the family's, then the stops' and the filter's when
// present). A rules grid's (SPEC §5a) are its params by name, each an integer axis where every
// value is integral, else a real one; their names view the grid's program.
std::vector<AxisValues> axis_values(const Grid&);
// The combo's parameters in the same order (its grid's axes); a rules parameter is an integer
// where its value is integral. A rules combo's names view its program (shared with its grid),
// so they live as long as the combo or the grid does.
std::vector<ParamValue> combo_params(const Combo&);
// A parameter's value as text: "12", "1.5", "sma" (reals: shortest round-trip text).
std::string param_value_text(const ParamValue&);

}  // namespace wfod
