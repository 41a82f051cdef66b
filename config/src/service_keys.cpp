// The key tables of the daemon's own tables (PROTOCOL §4): [daemon], [publish], [curve],
// [[feed]] and [[symbol]], each key with its check, its member and what a SIGHUP does with
// it (docs/operations.md "Signals and reload": only what is cheap to apply in place is live;
// sockets, stores, the engine and the keys are built once at start). Checks between keys or
// tables, and of the files values name, are config_loader.cpp's.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "key_rows.hpp"
#include "wfod/config/endpoint.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::config {
namespace {

using detail::TableReader;
constexpr int kMaxInt = std::numeric_limits<int>::max();
constexpr Reload live = Reload::live;
constexpr Reload restart = Reload::restart;

std::string as_written(TableReader&, std::string_view, std::string value) { return value; }

std::string non_empty(TableReader& t, std::string_view key, std::string value) {
  if (value.empty()) t.fail(key, "must not be empty");
  return value;
}

template <EndpointUse use>
std::string endpoint(TableReader& t, std::string_view key, std::string value) {
  if (const std::string problem = endpoint_problem(value, use); !problem.empty()) {
    t.fail(key, "\"" + value + "\": " + problem);
  }
  return value;
}

// "" turns the HTTP endpoint off; anything else must be a listener address.
std::string http_address(TableReader& t, std::string_view key, std::string value) {
  if (!value.empty() && !parse_host_port(value)) {
    t.fail(key, "\"" + value + "\": expected HOST:PORT with PORT 1..65535 (\"\" turns it off)");
  }
  return value;
}

// A TOML date or date-time as the text feeds::parse_timestamp reads (no offset = UTC).
std::string timestamp_text(const toml::node& n) {
  char buf[64];
  auto date_text = [&buf](const toml::date& d) {
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", static_cast<int>(d.year),
                  static_cast<int>(d.month), static_cast<int>(d.day));
    return std::string(buf);
  };
  if (const auto* d = n.as_date()) return date_text(d->get());
  const toml::date_time& dt = n.as_date_time()->get();
  std::string text = date_text(dt.date);
  std::snprintf(buf, sizeof buf, "T%02d:%02d:%02d.%09d", static_cast<int>(dt.time.hour),
                static_cast<int>(dt.time.minute), static_cast<int>(dt.time.second),
                static_cast<int>(dt.time.nanosecond));
  text += buf;
  if (dt.offset) {
    const int minutes = dt.offset->minutes;
    const int magnitude = minutes < 0 ? -minutes : minutes;
    std::snprintf(buf, sizeof buf, "%c%02d:%02d", minutes < 0 ? '-' : '+', magnitude / 60,
                  magnitude % 60);
    text += buf;
  }
  return text;
}

// [daemon] min_ts: a TOML date or date-time (`1971-01-01`, `2000-01-01T00:00:00Z`), the
// same as an ISO-8601 string, or an integer of nanoseconds since the epoch; never negative.
void read_min_ts(TableReader& t, std::string_view key, int64_t& out) {
  const toml::node& n = *t.find(key);
  int64_t ns = 0;
  if (n.is_integer()) {
    ns = n.as_integer()->get();
  } else if (n.is_string() || n.is_date() || n.is_date_time()) {
    const std::string text = n.is_string() ? n.as_string()->get() : timestamp_text(n);
    if (!feeds::parse_timestamp(text, ns)) {
      t.fail(key, "\"" + text +
                      "\" is not a date or time: expected YYYY-MM-DD, "
                      "YYYY-MM-DDTHH:MM:SS[.f][Z|+HH:MM] or integer nanoseconds since the epoch");
    }
  } else if (n.is_time()) {
    t.fail(key, "a time of day without a date: expected a date, a date-time or integer ns");
  } else {
    t.fail(key, "expected a date, a date-time, an ISO-8601 string or integer ns, got " +
                    std::string(detail::type_name(n)));
  }
  if (ns < 0) t.fail(key, "must not be before 1970-01-01 (got " + std::to_string(ns) + " ns)");
  out = ns;
}

// SPEC §1: 1-32 bytes of [A-Za-z0-9._:/-].
std::string symbol_name(TableReader& t, std::string_view key, std::string name) {
  const bool valid =
      !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == ':' || c == '/' || c == '-';
      });
  if (!valid) {
    t.fail(key, "\"" + name + "\" is not a valid symbol (1-32 bytes of [A-Za-z0-9._:/-])");
  }
  return name;
}

}  // namespace

const KeyTable<DaemonConfig>& daemon_keys() {
  using D = DaemonConfig;
  using detail::choice_key, detail::integer_key, detail::parsed_key, detail::string_key,
      detail::word_key;
  static const KeyTable<D> keys{
      string_key<D>(
          "state_dir", restart, [](auto& d) -> auto& { return d.state_dir; }, non_empty),
      // Availability (is there a GPU?) is a run-time question; here only the name is checked.
      word_key<D>("backend", restart, [](auto& d) -> auto& { return d.backend; },
                  {"auto", "cpu", "cuda", "cpu_ref"}),
      parsed_key<D>(
          "precision", restart, [](auto& d) -> auto& { return d.precision; }, parse_precision),
      integer_key<D>(
          "threads", restart, [](auto& d) -> auto& { return d.threads; }, 0, kMaxInt),
      word_key<D>("log_level", live, [](auto& d) -> auto& { return d.log_level; },
                  {"trace", "debug", "info", "warn", "error"}),
      choice_key<D, FsyncPolicy>("fsync", restart, [](auto& d) -> auto& { return d.fsync; },
                                 {{"every", FsyncPolicy::every},
                                  {"batch", FsyncPolicy::batch},
                                  {"none", FsyncPolicy::none}}),
      integer_key<D>(
          "busy_poll_us", restart, [](auto& d) -> auto& { return d.busy_poll_us; }, 0,
          kMaxBusyPollUs),
      integer_key<D>(
          "max_future_s", live, [](auto& d) -> auto& { return d.max_future_s; }, 0, kMaxFutureS),
      Key<D>{"min_ts", live, false,
             [](TableReader& t, D& d, const detail::ReadContext&) {
               read_min_ts(t, "min_ts", d.min_ts_ns);
             },
             [](const D& a, const D& b) { return a.min_ts_ns != b.min_ts_ns; }},
      integer_key<D>(
          "stop_retry_s", live, [](auto& d) -> auto& { return d.stop_retry_s; }, 0, kMaxStopRetryS),
      integer_key<D>(
          "checkpoint_every_s", live, [](auto& d) -> auto& { return d.checkpoint_every_s; }, 0,
          kMaxCheckpointEveryS),
      choice_key<D, CorruptLogPolicy>(
          "on_corrupt_log", restart, [](auto& d) -> auto& { return d.on_corrupt_log; },
          {{"refuse", CorruptLogPolicy::refuse}, {"quarantine", CorruptLogPolicy::quarantine}}),
      // Read at each new connection: a reload applies them to the next one.
      integer_key<D>(
          "max_snapshot_connections", live,
          [](auto& d) -> auto& { return d.max_snapshot_connections; }, 1, kMaxConnections),
      integer_key<D>(
          "max_http_connections", live, [](auto& d) -> auto& { return d.max_http_connections; }, 1,
          kMaxConnections),
      // Read by every check of a config (check-config, start, reload): a reload is planned
      // against the budget it brings.
      integer_key<D>(
          "memory_budget_mb", live, [](auto& d) -> auto& { return d.memory_budget_mb; }, 0,
          kMaxMemoryBudgetMb),
  };
  return keys;
}

const KeyTable<PublishConfig>& publish_keys() {
  using P = PublishConfig;
  using detail::bool_key, detail::integer_key, detail::string_key;
  static const KeyTable<P> keys{
      string_key<P>(
          "endpoint", restart, [](auto& p) -> auto& { return p.endpoint; },
          endpoint<EndpointUse::bind>),
      string_key<P>(
          "snapshot", restart, [](auto& p) -> auto& { return p.snapshot; },
          endpoint<EndpointUse::bind>),
      string_key<P>(
          "http", live, [](auto& p) -> auto& { return p.http; }, http_address),
      integer_key<P>(
          "sndhwm", restart, [](auto& p) -> auto& { return p.sndhwm; }, 0, kMaxInt),
      bool_key<P>(
          "signals", restart, [](auto& p) -> auto& { return p.signals; }),
  };
  return keys;
}

const KeyTable<CurveConfig>& curve_keys() {
  using C = CurveConfig;
  using detail::string_key;
  static const KeyTable<C> keys{
      string_key<C>(
          "key_file", restart, [](auto& c) -> auto& { return c.key_file; }, non_empty),
      string_key<C>(
          "clients_file", restart, [](auto& c) -> auto& { return c.clients_file; }, non_empty),
  };
  return keys;
}

const KeyTable<FeedConfig>& feed_keys() {
  using F = FeedConfig;
  using detail::choice_key, detail::integer_key, detail::string_key;
  static const KeyTable<F> keys{
      string_key<F>(
          "endpoint", restart, [](auto& f) -> auto& { return f.endpoint; },
          endpoint<EndpointUse::connect>, /*required=*/true),
      choice_key<F, FeedFormat>("format", restart, [](auto& f) -> auto& { return f.format; },
                                {{"json", FeedFormat::json}, {"binary", FeedFormat::binary}}),
      integer_key<F>(
          "rcvhwm", restart, [](auto& f) -> auto& { return f.rcvhwm; }, 0, kMaxInt),
      string_key<F>(
          "curve_server_key_file", restart,
          [](auto& f) -> auto& { return f.curve_server_key_file; }, non_empty),
  };
  return keys;
}

const KeyTable<SymbolConfig>& symbol_keys() {
  using S = SymbolConfig;
  using detail::number_key, detail::string_key;
  static const KeyTable<S> keys{
      string_key<S>(
          "name", restart, [](auto& s) -> auto& { return s.name; }, symbol_name,
          /*required=*/true),
      number_key<S>(
          "bars_per_year", restart, [](auto& s) -> auto& { return s.bars_per_year; },
          [](double v) { return v > 0; }, "must be > 0"),
      number_key<S>(
          "stale_after_s", restart, [](auto& s) -> auto& { return s.stale_after_s; },
          [](double v) { return v >= 0; }, "must be >= 0 (0 = off)"),
      // Last: the loader resolves it beside the file and checks it once every key is read.
      string_key<S>(
          "backfill", restart, [](auto& s) -> auto& { return s.backfill; }, as_written),
  };
  return keys;
}

}  // namespace wfod::config
