// The streams' records and what is computed from one alone (streams.hpp).
#include "wfod/daemon/core/streams.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {
namespace {

// A rules program's compiled identity (SPEC §5a): its params, its indicators and the nodes of
// its conditions and `valid`, everything that decides a position or a combo's validity, and
// nothing of how the text is laid out (columns, spaces, comments): editing a rule's meaning
// changes it, re-indenting the file does not.
void program_identity(std::ostream& o, const rules::Program& p) {
  o << "rules{";
  for (const std::string& name : p.params) o << name.size() << ':' << name << ',';
  auto arg = [&o](const rules::Arg& a) {
    if (a.is_param) {
      o << '$' << a.param;
    } else {
      o << a.value;
    }
  };
  o << '|';
  for (const rules::Indicator& i : p.indicators) {
    o << i.name.size() << ':' << i.name << '=' << rules::to_string(i.kind) << '(';
    arg(i.period);
    if (i.width) {
      o << ';';
      arg(*i.width);
    }
    o << ')' << (i.high_low ? "hl" : "") << (i.used ? "u" : "") << ',';
  }
  auto condition = [&o](const rules::Condition& c) {
    o << '|';
    for (const rules::Node& n : c.nodes) {
      o << static_cast<int>(n.op) << (n.exact ? "e" : "") << ' ' << n.index << ' ' << n.lhs_begin
        << ' ' << n.rhs_begin << ' ' << n.value << ';';
    }
  };
  for (const rules::Condition& c : p.conditions) condition(c);
  condition(p.valid);
  o << '}';
}

}  // namespace

std::string fingerprint(const config::StrategyConfig& s) {
  std::ostringstream o;
  o.precision(17);
  auto list = [&o](const auto& v) {
    o << '[';
    for (const auto& x : v) o << x << ',';
    o << ']';
  };
  auto enums = [&o](const auto& v) {
    o << '[';
    for (const auto& x : v) o << to_string(x) << ',';
    o << ']';
  };
  const Grid& g = s.spec.grid;
  o << to_string(g.family);
  list(g.fast);
  list(g.slow);
  enums(g.ma);
  enums(g.side);
  enums(g.entry);
  list(g.n);
  enums(g.source);
  list(g.vol_short);
  list(g.vol_long);
  list(g.vol_threshold);
  // The level families' axes, only where present: the text of the older families' strategies
  // (which tags their saved live state) stays what it was.
  if (g.family == Family::bollinger) {
    list(g.k);
    enums(g.style);
  }
  if (g.family == Family::rsi_reversion) {
    list(g.lo);
    list(g.hi);
  }
  // Stops and rules (SPEC §5a, §5b), likewise only where present: a stop axis edited, or a
  // rule's meaning, starts the stream over (its checkpoint and saved state no longer match).
  if (g.has_stops()) {
    o << "stops";
    list(g.stop_loss);
    list(g.take_profit);
    list(g.trailing_stop);
  }
  if (g.family == Family::rules && g.program) {
    program_identity(o, *g.program);
    for (const std::vector<double>& axis : g.rule_axes) list(axis);
  }
  o << to_string(s.spec.fill) << ' ' << s.spec.costs.commission_bps << ' '
    << s.spec.costs.slippage_bps << ' ' << to_string(s.rank.objective) << ' ' << s.rank.min_trades
    << ' ' << s.rank.max_drawdown << ' ' << (s.rank.min_exposure ? *s.rank.min_exposure : -1.0)
    << ' ' << s.rank.top << ' ' << s.window << ' '
    << (s.warmup ? static_cast<long long>(*s.warmup) : -1LL) << ' ' << s.every;
  return o.str();
}

SymbolStrategy new_stream(const config::StrategyConfig& s, const SymbolState& sym,
                          uint64_t generation) {
  SymbolStrategy st;
  st.cfg = s;
  st.spec = s.spec;
  st.spec.bars_per_year = sym.cfg.bars_per_year;
  st.warmup = s.warmup ? *s.warmup : default_warmup(s.spec.grid);
  st.sched = RunScheduler(s.every, s.window + st.warmup + 1);
  st.generation = generation;
  st.fingerprint_crc = crc32(fingerprint(s));
  // live_oos reads the winner's positions since the previous publication: a few runs apart.
  st.slot->set_tracker_keep(s.window + st.warmup + 2 * s.every + kHistoryMargin);
  // Signals go to the bars accepted from now on (a restart or a reload does not repeat any).
  st.signals.start_at(sym.history.size());
  return st;
}

SweepRequest request_for(const SymbolStrategy& stream, size_t end,
                         const config::DaemonConfig& daemon) {
  SweepRequest req;
  req.strategy = stream.spec;
  req.window = WindowSpec{end, stream.cfg.window, stream.warmup};
  req.rank = stream.cfg.rank;
  req.precision = daemon.precision;
  req.threads = daemon.threads;
  return req;
}

std::vector<HistoryNeed> history_needs(const StreamMap& streams, std::string_view symbol) {
  std::vector<HistoryNeed> needs;
  for (auto it = streams.lower_bound(PublicationKey{std::string(symbol), std::string()});
       it != streams.end() && it->first.first == symbol; ++it) {
    const SymbolStrategy& s = it->second;
    HistoryNeed& n = needs.emplace_back();
    n.bounded = s.bounded;
    n.keep = s.cfg.window + s.warmup + 2;
    n.every = s.cfg.every;
    n.taken = s.taken;
    n.last_end = s.last_end;
    if (s.signals.following()) n.signals_from = s.signals.needs_from();
  }
  return needs;
}

StreamChanges stream_changes(const StreamMap& running,
                             const std::vector<config::StrategyConfig>& next,
                             const std::function<bool(std::string_view)>& has_symbol) {
  StreamChanges out;
  std::map<PublicationKey, const config::StrategyConfig*> wanted;
  for (const config::StrategyConfig& s : next) {
    for (const std::string& sym : s.symbols) {
      if (!has_symbol(sym)) {
        out.new_symbols.emplace_back(s.name, sym);
        continue;
      }
      wanted[PublicationKey{sym, s.name}] = &s;
    }
  }
  for (const auto& [key, stream] : running) {
    if (!wanted.count(key)) out.removed.push_back(key);
  }
  for (const auto& [key, s] : wanted) {
    const auto it = running.find(key);
    if (it != running.end() && fingerprint(it->second.cfg) == fingerprint(*s)) continue;
    out.started.push_back({key, s, it != running.end()});
  }
  return out;
}

}  // namespace wfod::daemon
