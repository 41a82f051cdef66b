// A combo's parameters by name, in the order wfo prints them: the family's (SPEC §5), then
// the vol filter's when the grid has one. Shared by the table and JSON printers.

#include "params.hpp"

#include <cstdio>
#include <stdexcept>

namespace wfod::cli {

std::vector<std::string_view> param_names(const Grid& g) {
  std::vector<std::string_view> names;
  if (g.family == Family::ma_cross) {
    names = {"fast", "slow", "ma", "side", "entry"};
  } else {
    names = {"n", "source", "side"};
  }
  if (g.has_vol_filter()) {
    names.insert(names.end(), {"vol_short", "vol_long", "vol_threshold"});
  }
  return names;
}

std::string param_text(const Combo& c, std::string_view name) {
  if (name == "fast") return std::to_string(c.fast);
  if (name == "slow") return std::to_string(c.slow);
  if (name == "ma") return std::string(to_string(c.ma));
  if (name == "side") return std::string(to_string(c.side));
  if (name == "entry") return std::string(to_string(c.entry));
  if (name == "n") return std::to_string(c.n);
  if (name == "source") return std::string(to_string(c.source));
  if (name == "vol_short") return std::to_string(c.vol_short);
  if (name == "vol_long") return std::to_string(c.vol_long);
  if (name == "vol_threshold") {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", c.vol_threshold);
    return buf;
  }
  throw std::logic_error("param_text: unknown parameter " + std::string(name));
}

}  // namespace wfod::cli
