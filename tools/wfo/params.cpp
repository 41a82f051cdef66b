// A combo's parameters by name, in the order wfo prints them: the family's (SPEC §5), then
// the vol filter's when the grid has one. Shared by the table and JSON printers.

#include "params.hpp"

#include <stdexcept>

#include "wfod/grid_params.hpp"

namespace wfod::cli {

std::vector<std::string_view> param_names(const Grid& g) {
  std::vector<std::string_view> names;
  for (const AxisValues& axis : axis_values(g)) names.push_back(axis.name);
  return names;
}

std::string param_text(const Combo& c, std::string_view name) {
  for (const ParamValue& p : combo_params(c))
    if (p.name == name) return param_value_text(p);
  throw std::logic_error("param_text: unknown parameter " + std::string(name));
}

}  // namespace wfod::cli
