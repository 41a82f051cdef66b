// Compact log forms of publication values (log_text.hpp).
#include "wfod/daemon/publish/log_text.hpp"

namespace wfod::daemon {

std::string params_log_text(const Json& params) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : params.items()) {
    if (!first) out += ',';
    first = false;
    out += key;
    out += '=';
    out += value.is_string() ? value.get<std::string>() : value.dump();
  }
  out += '}';
  return out;
}

}  // namespace wfod::daemon
