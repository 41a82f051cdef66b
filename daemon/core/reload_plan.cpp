// The reload plan: each changed key outside [[strategy]] and whether a SIGHUP applies it in
// place, as its row in the key tables says (wfod/config/config_keys.hpp). Keys are named as
// the config file names them (feed[1].endpoint, symbol[BTCUSD].backfill).
#include "wfod/daemon/core/reload_plan.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "wfod/config/config_keys.hpp"

namespace wfod::daemon {
namespace {

void add(const std::string& key, bool live, ReloadPlan& plan) {
  (live ? plan.live : plan.restart).push_back(key);
}

// Every key of one table whose member differs, under `prefix` ("daemon", "feed[0]").
template <class Struct>
void compare(const config::KeyTable<Struct>& keys, const Struct& a, const Struct& b,
             const std::string& prefix, ReloadPlan& plan) {
  for (const config::Key<Struct>& k : keys) {
    if (k.differs(a, b))
      add(prefix + "." + std::string(k.name), k.reload == config::Reload::live, plan);
  }
}

}  // namespace

ReloadPlan plan_reload(const config::Config& a, const config::Config& b) {
  ReloadPlan p;
  compare(config::daemon_keys(), a.daemon, b.daemon, "daemon", p);
  compare(config::publish_keys(), a.publish, b.publish, "publish", p);
  compare(config::curve_keys(), a.curve, b.curve, "curve", p);
  // Feeds by their place in the file; one added or removed needs a restart.
  const size_t nf = std::max(a.feeds.size(), b.feeds.size());
  for (size_t i = 0; i < nf; ++i) {
    const std::string k = "feed[" + std::to_string(i) + "]";
    if (i >= a.feeds.size() || i >= b.feeds.size()) {
      add(k, false, p);
    } else {
      compare(config::feed_keys(), a.feeds[i], b.feeds[i], k, p);
    }
  }
  // Symbols by name; one added or removed needs a restart.
  std::map<std::string, const config::SymbolConfig*> before;
  for (const auto& s : a.symbols) before[s.name] = &s;
  for (const auto& s : b.symbols) {
    const std::string k = "symbol[" + s.name + "]";
    const auto it = before.find(s.name);
    if (it == before.end()) {
      add(k + " (added)", false, p);
      continue;
    }
    compare(config::symbol_keys(), *it->second, s, k, p);
    before.erase(it);
  }
  for (const auto& [name, s] : before) add("symbol[" + name + "] (removed)", false, p);
  return p;
}

std::string join_keys(const std::vector<std::string>& keys) {
  if (keys.empty()) return "none";
  std::string out;
  for (const std::string& k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

}  // namespace wfod::daemon
