// The reload table: each non-strategy key and whether a SIGHUP applies it in place. Keys are
// named as the config file names them (feed[1].endpoint, symbol[BTCUSD].backfill).
#include "wfod/daemon/reload_plan.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace wfod::daemon {
namespace {

void compare(bool changed, const std::string& key, bool live, ReloadPlan& plan) {
  if (changed) (live ? plan.live : plan.restart).push_back(key);
}

}  // namespace

ReloadPlan plan_reload(const config::Config& a, const config::Config& b) {
  ReloadPlan p;
  const auto& d0 = a.daemon;
  const auto& d1 = b.daemon;
  compare(d0.log_level != d1.log_level, "daemon.log_level", true, p);
  compare(d0.max_future_s != d1.max_future_s, "daemon.max_future_s", true, p);
  compare(d0.stop_retry_s != d1.stop_retry_s, "daemon.stop_retry_s", true, p);
  compare(d0.checkpoint_every_s != d1.checkpoint_every_s, "daemon.checkpoint_every_s", true, p);
  compare(d0.state_dir != d1.state_dir, "daemon.state_dir", false, p);
  compare(d0.backend != d1.backend, "daemon.backend", false, p);
  compare(d0.precision != d1.precision, "daemon.precision", false, p);
  compare(d0.threads != d1.threads, "daemon.threads", false, p);
  compare(d0.fsync != d1.fsync, "daemon.fsync", false, p);
  compare(d0.busy_poll_us != d1.busy_poll_us, "daemon.busy_poll_us", false, p);
  compare(d0.on_corrupt_log != d1.on_corrupt_log, "daemon.on_corrupt_log", false, p);
  compare(a.publish.http != b.publish.http, "publish.http", true, p);
  compare(a.publish.endpoint != b.publish.endpoint, "publish.endpoint", false, p);
  compare(a.publish.snapshot != b.publish.snapshot, "publish.snapshot", false, p);
  compare(a.publish.sndhwm != b.publish.sndhwm, "publish.sndhwm", false, p);
  compare(a.curve.key_file != b.curve.key_file, "curve.key_file", false, p);
  compare(a.curve.clients_file != b.curve.clients_file, "curve.clients_file", false, p);
  const size_t nf = std::max(a.feeds.size(), b.feeds.size());
  for (size_t i = 0; i < nf; ++i) {
    const std::string k = "feed[" + std::to_string(i) + "]";
    if (i >= a.feeds.size() || i >= b.feeds.size()) {
      compare(true, k, false, p);
      continue;
    }
    const auto& f0 = a.feeds[i];
    const auto& f1 = b.feeds[i];
    compare(f0.endpoint != f1.endpoint, k + ".endpoint", false, p);
    compare(f0.format != f1.format, k + ".format", false, p);
    compare(f0.rcvhwm != f1.rcvhwm, k + ".rcvhwm", false, p);
    compare(f0.curve_server_key_file != f1.curve_server_key_file, k + ".curve_server_key_file",
            false, p);
  }
  std::map<std::string, const config::SymbolConfig*> before;
  for (const auto& s : a.symbols) before[s.name] = &s;
  for (const auto& s : b.symbols) {
    const std::string k = "symbol[" + s.name + "]";
    const auto it = before.find(s.name);
    if (it == before.end()) {
      compare(true, k + " (added)", false, p);
      continue;
    }
    compare(it->second->bars_per_year != s.bars_per_year, k + ".bars_per_year", false, p);
    compare(it->second->backfill != s.backfill, k + ".backfill", false, p);
    compare(it->second->stale_after_s != s.stale_after_s, k + ".stale_after_s", false, p);
    before.erase(it);
  }
  for (const auto& [name, s] : before) compare(true, "symbol[" + name + "] (removed)", false, p);
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
