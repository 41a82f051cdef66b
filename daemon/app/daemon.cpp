// The wfod daemon's event loop: feeds in, bars persisted, sweeps scheduled on the worker,
// parameters published, snapshot requests answered, signals handled. Everything here runs
// on the loop thread except the closures handed to the Worker.

#include "daemon.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "curve_security.hpp"
#include "job.hpp"
#include "notify.hpp"
#include "wfod/backend.hpp"
#include "wfod/daemon/bar_store.hpp"
#include "wfod/daemon/crc32.hpp"
#include "wfod/daemon/fault_backend.hpp"
#include "wfod/daemon/http_status.hpp"
#include "wfod/daemon/ingest.hpp"
#include "wfod/daemon/latency_stats.hpp"
#include "wfod/daemon/live_state.hpp"
#include "wfod/daemon/live_state_writer.hpp"
#include "wfod/daemon/publication.hpp"
#include "wfod/daemon/publication_text.hpp"
#include "wfod/daemon/reload_plan.hpp"
#include "wfod/daemon/scheduler.hpp"
#include "wfod/daemon/sequence_store.hpp"
#include "wfod/daemon/snapshot.hpp"
#include "wfod/feeds/bar_codec.hpp"
#include "wfod/feeds/bar_validator.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "worker.hpp"

namespace wfod::daemon {

namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// A ZeroMQ socket watched by the loop through its ZMQ_FD. The descriptor belongs to
// ZeroMQ: release it (never close it) before the socket goes.
struct WatchedSocket {
  WatchedSocket(asio::io_context& io, zmq::context_t& ctx, zmq::socket_type type)
      : sock(ctx, type), fd(io) {}
  ~WatchedSocket() {
    if (fd.is_open()) fd.release();
  }
  void watch() { fd.assign(sock.get(zmq::sockopt::fd)); }
  bool readable() { return (sock.get(zmq::sockopt::events) & ZMQ_POLLIN) != 0; }

  zmq::socket_t sock;
  asio::posix::stream_descriptor fd;
  std::string endpoint;
  feeds::PayloadFormat format = feeds::PayloadFormat::json;
};

// Everything of a strategy that changes what it computes or when: equal fingerprints mean
// a reload leaves the stream alone.
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
  o << to_string(s.spec.fill) << ' ' << s.spec.costs.commission_bps << ' '
    << s.spec.costs.slippage_bps << ' ' << to_string(s.rank.objective) << ' ' << s.rank.min_trades
    << ' ' << s.rank.max_drawdown << ' ' << (s.rank.min_exposure ? *s.rank.min_exposure : -1.0)
    << ' ' << s.rank.top << ' ' << s.window << ' '
    << (s.warmup ? static_cast<long long>(*s.warmup) : -1LL) << ' ' << s.every;
  return o.str();
}

struct SymbolState {
  config::SymbolConfig cfg;
  std::optional<BarStore> store;
  Series series;  // from the anchor; Ingest appends
  // What jobs read: a copy of `series` that start_job extends in place (a job reads only the
  // bars before its window's end, all written before it was posted); when it is full a
  // larger copy replaces it and in-flight jobs keep the old one alive.
  std::shared_ptr<Series> mirror;
  uint64_t last_seq = 0;
};

struct Stream {
  config::StrategyConfig cfg;
  StrategySpec spec;  // cfg.spec with the symbol's bars_per_year
  size_t warmup = 0;
  StreamScheduler sched{1, 0};
  uint64_t generation = 0;  // a reload that replaces the stream drops older results
  // The last two winners, for live_oos (SPEC §8): the previous publication's winner and
  // the one before it (the exit position at the first live bar).
  std::optional<Combo> winner, before;
  // Robust selection's "current" combo: the last one selected, set when a run's decision is
  // made, before its publication (which may wait for a sync pass while the next run starts).
  std::optional<uint64_t> selected;
  uint64_t last_seq = 0;
  size_t last_end = 0;  // history size the previous publication covered
  std::optional<Json> last_params;
  uint32_t fingerprint_crc = 0;  // CRC32 of fingerprint(cfg): tags its saved live state
  // When the loop woke with the bars that made the next run due (latency_ms in health).
  Clock::time_point due_at = Clock::now();
  // The backend stream this (symbol, strategy) optimises through (worker thread only); a
  // reload that replaces the stream starts a new one.
  std::shared_ptr<StreamSlot> slot = std::make_shared<StreamSlot>();
};

// One HTTP status request: read the head (bounded in size and time), answer, close.
struct HttpSession {
  explicit HttpSession(asio::ip::tcp::socket s) : sock(std::move(s)), timer(sock.get_executor()) {}
  asio::ip::tcp::socket sock;
  asio::steady_timer timer;
  std::string request;
  std::string reply;
};

class Daemon {
 public:
  Daemon(config::Config config, std::string config_path)
      : cfg_(std::move(config)),
        config_path_(std::move(config_path)),
        signals_(io_, SIGINT, SIGTERM, SIGHUP) {}

  int run();

 private:
  bool start_up();
  bool open_symbol(const config::SymbolConfig& s);
  void add_stream(const config::StrategyConfig& s, const std::string& symbol);
  bool open_sockets();
  void restore_live_state(const PublicationKey& key, Stream& stream);

  void run_busy_polling(std::chrono::microseconds busy_poll);
  void arm_feed(WatchedSocket& f);
  void drain_feed(WatchedSocket& f);
  void on_message(std::span<const std::string_view> frames, feeds::PayloadFormat format);
  void log_reject(const feeds::Reject& r, std::string_view where);
  void after_batch();
  void arm_sync_timer();
  void request_sync_pass();
  void sync_pass();

  void start_job(const PublicationKey& key);
  void on_job_done(const PublicationKey& key, uint64_t generation,
                   std::shared_ptr<const Series> snap, JobResult result);
  void publish(const PublicationKey& key, Stream& stream, const Series& snap, JobResult& r);
  void fall_back_to_cpu(const std::string& error);

  bool open_http();
  void accept_http();
  void serve_http(std::shared_ptr<HttpSession> s);

  void arm_snapshot();
  void drain_snapshot();
  void arm_zap();
  void drain_zap();
  HealthInput health() const;

  void arm_signals();
  void arm_watchdog();
  void reload();
  void shut_down();

  asio::io_context io_;
  zmq::context_t zctx_{1};
  config::Config cfg_;
  std::string config_path_;
  asio::signal_set signals_;
  asio::steady_timer watchdog_{io_};
  std::chrono::microseconds watchdog_every_{0};  // 0: systemd asked for no pings
  Clock::time_point started_ = Clock::now();

  std::unique_ptr<Backend> backend_;
  std::string backend_name_;
  std::vector<std::unique_ptr<Backend>> retired_backends_;  // replaced by a fallback
  uint64_t backend_fallbacks_ = 0;
  std::string backend_error_;
  std::optional<SequenceStore> seqs_;
  std::optional<LiveStateStore> live_;          // per-stream winners for live_oos across restarts
  std::optional<LiveStateWriter> live_writer_;  // saves them off the loop thread
  std::map<std::string, SymbolState, std::less<>> symbols_;
  std::optional<Ingest> ingest_;        // the feed path: validator, staging, commits
  std::vector<SymbolState*> by_index_;  // Ingest's target index -> symbol
  asio::steady_timer sync_timer_{io_};  // fsync = batch: the 50 ms sync, disk retries
  bool sync_timer_armed_ = false;
  bool sync_posted_ = false;
  asio::steady_timer group_timer_{io_};  // request_sync_pass(): the group-commit delay
  // Results whose bars are written but not yet synced (fsync batch / every): published by
  // the next sync pass, so one sync covers every publication of a loop turn.
  struct AwaitingSync {
    PublicationKey key;
    uint64_t generation;
    std::shared_ptr<const Series> snap;
    JobResult result;
  };
  std::vector<AwaitingSync> awaiting_sync_;
  feeds::RejectLogLimiter reject_log_{20, std::chrono::seconds(10)};
  std::map<PublicationKey, Stream, std::less<>> streams_;
  PublicationMap last_;
  uint64_t retired_coalesced_ = 0;  // of streams a reload removed
  uint64_t publish_dropped_ = 0;
  uint64_t snapshot_dropped_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  Clock::time_point batch_received_ = Clock::now();  // the loop woke with the feed batch
  LatencyStats latency_;

  std::optional<asio::ip::tcp::acceptor> http_;
  std::unique_ptr<CurveSecurity> curve_;  // [curve]: keys and the ZAP decisions
  std::unique_ptr<WatchedSocket> zap_;    // inproc://zeromq.zap.01, answered on the loop
  feeds::RejectLogLimiter zap_log_{20, std::chrono::seconds(10)};
  uint64_t curve_denied_ = 0;
  std::unique_ptr<WatchedSocket> pub_, rep_;
  std::vector<std::unique_ptr<WatchedSocket>> feeds_;
  Worker worker_;  // last: joined before anything its jobs reference is destroyed
};

bool Daemon::open_symbol(const config::SymbolConfig& s) {
  BarStoreOptions options;
  options.fsync = cfg_.daemon.fsync;
  auto opened = BarStore::open(cfg_.daemon.state_dir, s.name, options);
  if (!opened.ok()) {
    spdlog::critical("symbol {}: cannot open its bar log: {}", s.name, opened.error().message);
    return false;
  }
  OpenedBarStore o = std::move(opened).value();
  if (!o.report.clean()) {
    spdlog::error(
        "symbol {}: bar log {} had a bad tail: {}; {} bytes quarantined to {}, {} intact bars "
        "kept",
        s.name, o.store.path(), o.report.reason, o.report.bytes_quarantined,
        o.report.quarantine_path, o.report.records_loaded);
  }
  SymbolState st;
  st.cfg = s;
  st.series = std::move(o.bars);
  st.last_seq = o.seqs.empty() ? 0 : o.seqs.back();
  st.store.emplace(std::move(o.store));
  spdlog::info("symbol {}: {} persisted bars", s.name, st.series.size());

  if (!s.backfill.empty()) {
    feeds::CsvReadResult csv;
    try {
      csv = feeds::read_csv(s.backfill);
    } catch (const std::exception& e) {
      spdlog::critical("symbol {}: backfill: {}", s.name, e.what());
      return false;
    }
    // Only bars newer than the last persisted one: a restart re-reads the same file, and
    // the overlap must not be appended twice (bars are identified by ts).
    const std::optional<int64_t> last = st.store->last_ts();
    size_t appended = 0, overlap = 0;
    for (size_t i = 0; i < csv.series.size(); ++i) {
      Bar b;
      b.ts_ns = csv.series.ts_ns[i];
      b.open = csv.series.open[i];
      b.high = csv.series.high[i];
      b.low = csv.series.low[i];
      b.close = csv.series.close[i];
      b.volume = csv.series.volume[i];
      if (last && b.ts_ns <= *last) {
        ++overlap;
        continue;
      }
      if (st.series.size() > 0 && b.ts_ns <= st.series.ts_ns.back()) {
        ++overlap;  // not strictly increasing in the file: keep what we have
        continue;
      }
      const AppendResult r = st.store->append(b);
      if (r.state == AppendState::refused) {
        spdlog::critical("symbol {}: backfill append refused: {}", s.name,
                         r.error ? r.error->message : "");
        return false;
      }
      st.series.push_back(b);
      ++appended;
    }
    if (Status f = st.store->flush(); !f.ok()) {
      spdlog::critical("symbol {}: backfill flush: {}", s.name, f.error().message);
      return false;
    }
    spdlog::info("symbol {}: backfill {}: {} bars appended, {} already persisted", s.name,
                 s.backfill, appended, overlap);
  }
  symbols_.emplace(s.name, std::move(st));
  return true;
}

void Daemon::add_stream(const config::StrategyConfig& s, const std::string& symbol) {
  const SymbolState& sym = symbols_.at(symbol);
  Stream st;
  st.cfg = s;
  st.spec = s.spec;
  st.spec.bars_per_year = sym.cfg.bars_per_year;
  st.warmup = s.warmup ? *s.warmup : default_warmup(s.spec.grid);
  st.sched = StreamScheduler(s.every, s.window + st.warmup + 1);
  st.generation = ++generation_;
  st.fingerprint_crc = crc32(fingerprint(s));
  streams_.insert_or_assign(PublicationKey{symbol, s.name}, std::move(st));
}

void Daemon::restore_live_state(const PublicationKey& key, Stream& stream) {
  if (live_writer_) live_writer_->flush();  // a reload: the file holds the newest state
  auto loaded = live_->load(key.first, key.second);
  if (!loaded.ok()) {
    spdlog::error("stream {}.{}: {}", key.first, key.second, loaded.error().message);
    return;
  }
  if (!loaded.value()) return;
  const LiveState& st = *loaded.value();
  const Grid& grid = stream.spec.grid;
  const size_t bars = symbols_.at(key.first).series.size();
  const char* why = nullptr;
  if (st.fingerprint != stream.fingerprint_crc) {
    why = "the strategy changed";
  } else if (st.end > bars || st.winner >= grid.size() ||
             (st.before && *st.before >= grid.size())) {
    why = "it does not fit the persisted bars or the grid";
  } else if (st.seq > seqs_->last(key.first, key.second)) {
    why = "its seq is ahead of publications.seq";
  }
  if (why != nullptr) {
    spdlog::warn("stream {}.{}: saved live state not used ({}): live_oos starts over", key.first,
                 key.second, why);
    return;
  }
  stream.winner = grid.decode(st.winner);
  if (st.before) stream.before = grid.decode(*st.before);
  stream.last_seq = st.seq;
  stream.last_end = st.end;
  stream.last_params = params_json(grid, *stream.winner);
  stream.sched.resume(bars - st.end);
  last_[key] = LastPublication{st.seq, st.payload};
  spdlog::info("stream {}.{}: resumed after publication seq={} at history_bars={} ({} bars since)",
               key.first, key.second, st.seq, st.end, bars - st.end);
}

bool Daemon::open_sockets() {
  try {
    if (cfg_.curve.enabled()) {
      // The ZAP handler first: a CURVE server that accepts a connection before it exists
      // would let the handshake through unauthenticated.
      curve_ = std::make_unique<CurveSecurity>(cfg_.curve);
      zap_ = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::rep);
      zap_->sock.set(zmq::sockopt::linger, 0);
      zap_->sock.bind(kZapEndpoint);
      zap_->watch();
      spdlog::info("curve on: publish and snapshot admit {} client key(s) from {}; server key {}",
                   curve_->clients(), cfg_.curve.clients_file, curve_->public_key());
    }
    pub_ = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::pub);
    if (curve_) curve_->make_server(pub_->sock);
    pub_->sock.set(zmq::sockopt::linger, 1000);
    // Per subscriber: a slow one loses messages beyond this (it sees seq gaps and can
    // re-sync with `get`); the loop never waits for it.
    pub_->sock.set(zmq::sockopt::sndhwm, cfg_.publish.sndhwm);
    pub_->sock.bind(cfg_.publish.endpoint);
    pub_->endpoint = pub_->sock.get(zmq::sockopt::last_endpoint);

    // ROUTER, not REP: wire-compatible with REQ clients (PROTOCOL §3), but a client that
    // stops reading costs a dropped reply (counted) instead of a REP stuck in its send state.
    rep_ = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::router);
    rep_->sock.set(zmq::sockopt::linger, 0);
    rep_->sock.set(zmq::sockopt::router_mandatory, 1);
    rep_->sock.set(zmq::sockopt::sndhwm, 1000);
    if (curve_) curve_->make_server(rep_->sock);
    rep_->sock.set(zmq::sockopt::maxmsgsize, int64_t{1} << 20);
    rep_->sock.bind(cfg_.publish.snapshot);
    rep_->endpoint = rep_->sock.get(zmq::sockopt::last_endpoint);
    rep_->watch();

    for (const config::FeedConfig& f : cfg_.feeds) {
      auto s = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::sub);
      s->sock.set(zmq::sockopt::linger, 0);
      // Bar payloads are at most 4096 bytes, but an oversized frame must be *counted* (reject
      // reason `size`), not cut off by ZeroMQ: libzmq 4.3 drops a peer that exceeds
      // ZMQ_MAXMSGSIZE and never reconnects to it. 16 MiB bounds the memory one hostile
      // message can take; only frames beyond that still cost the connection.
      s->sock.set(zmq::sockopt::maxmsgsize, int64_t{16} << 20);
      // Room for bursts (replays, reconnect catch-up) while a batch is being persisted;
      // beyond it ZeroMQ drops, which the publisher's seq numbers make visible as gaps.
      s->sock.set(zmq::sockopt::rcvhwm, f.rcvhwm);
      s->sock.set(zmq::sockopt::subscribe, std::string(feeds::kTopicPrefix));
      if (!f.curve_server_key_file.empty()) curve_->make_client(s->sock, f.curve_server_key_file);
      s->sock.connect(f.endpoint);
      s->endpoint = f.endpoint;
      s->format = f.format == config::FeedFormat::json ? feeds::PayloadFormat::json
                                                       : feeds::PayloadFormat::binary;
      s->watch();
      feeds_.push_back(std::move(s));
    }
  } catch (const std::exception& e) {  // zmq::error_t, or a key file (never its content)
    spdlog::critical("sockets: {}", e.what());
    return false;
  }
  spdlog::info("publishing on {} sndhwm={}, snapshot on {}, {} feed(s)", pub_->endpoint,
               cfg_.publish.sndhwm, rep_->endpoint, feeds_.size());
  for (size_t i = 0; i < feeds_.size(); ++i) {
    const auto& f = feeds_[i];
    spdlog::info("feed {} ({}) rcvhwm={} curve={}", f->endpoint,
                 f->format == feeds::PayloadFormat::json ? "json" : "binary",
                 f->sock.get(zmq::sockopt::rcvhwm),
                 cfg_.feeds[i].curve_server_key_file.empty() ? "off" : "client");
  }
  return true;
}

bool Daemon::start_up() {
  if (auto level = spdlog::level::from_str(cfg_.daemon.log_level); level != spdlog::level::off) {
    spdlog::set_level(level);
  }
  notify("STATUS=loading state");
  spdlog::info("wfod starting config={} sha256={} state_dir={} log_level={}", cfg_.source,
               cfg_.sha256, cfg_.daemon.state_dir, cfg_.daemon.log_level);
  try {
    backend_ = make_backend(cfg_.daemon.backend);
  } catch (const std::exception& e) {
    spdlog::critical("backend {}: {}", cfg_.daemon.backend, e.what());
    return false;
  }
  if (const char* fault = std::getenv(kBackendFaultEnv); fault != nullptr && *fault != '\0') {
    const auto from = parse_backend_fault(fault);
    if (!from) {
      spdlog::critical("{}=\"{}\": expected sweep:N (N >= 1); it is for tests only",
                       kBackendFaultEnv, fault);
      return false;
    }
    spdlog::warn("{}={}: TEST ONLY, optimisation {} and later will fail", kBackendFaultEnv, fault,
                 *from);
    backend_ = make_fault_backend(std::move(backend_), *from);
  }
  backend_name_ = std::string(backend_->name());
  spdlog::info("backend {} (configured {}), precision {}", backend_name_, cfg_.daemon.backend,
               to_string(cfg_.daemon.precision));

  // Numbers are reserved 64 at a time: one rewrite of publications.seq per 64 publications
  // of a stream instead of one per publication (a crash skips at most 63: a gap).
  SequenceStoreOptions seq_options;
  seq_options.reserve = 64;
  auto seqs = SequenceStore::open(cfg_.daemon.state_dir, seq_options);
  if (!seqs.ok()) {
    spdlog::critical("publication sequence numbers: {}", seqs.error().message);
    return false;
  }
  seqs_.emplace(std::move(seqs).value());
  auto live = LiveStateStore::open(cfg_.daemon.state_dir, cfg_.daemon.fsync);
  if (!live.ok()) {
    spdlog::critical("live state: {}", live.error().message);
    return false;
  }
  live_.emplace(std::move(live).value());
  live_writer_.emplace(*live_, [](const PublicationKey& key, const IoError& e) {
    spdlog::error("stream {}.{}: live state not saved: {}; a restart publishes live_oos null",
                  key.first, key.second, e.message);
  });

  for (const config::SymbolConfig& s : cfg_.symbols) {
    if (!open_symbol(s)) return false;
  }
  std::vector<IngestTarget> targets;
  for (auto& [name, st] : symbols_) {
    targets.push_back({name, &*st.store, &st.series});
    by_index_.push_back(&st);
  }
  ingest_.emplace(std::move(targets), cfg_.daemon.fsync);
  for (const auto& [name, st] : symbols_) {
    if (st.series.size() > 0) {
      ingest_->validator().seed(name, st.series.ts_ns.back(), st.last_seq);
    }
  }
  for (const config::StrategyConfig& s : cfg_.strategies) {
    for (const std::string& sym : s.symbols) add_stream(s, sym);
  }
  for (auto& [key, stream] : streams_) restore_live_state(key, stream);
  std::vector<SequenceStore::Key> keys;
  for (const auto& [key, stream] : streams_) keys.push_back(key);
  if (Status s = seqs_->reserve_all(keys); !s.ok()) {
    spdlog::critical("publication sequence numbers: {}", s.error().message);
    return false;
  }
  if (!open_sockets()) return false;
  return open_http();
}

int Daemon::run() {
  if (!start_up()) {
    notify("STATUS=start-up failed");
    return 1;
  }
  const std::chrono::microseconds busy_poll(cfg_.daemon.busy_poll_us);
  worker_.start(busy_poll);
  arm_signals();
  if (zap_) arm_zap();
  arm_snapshot();
  if (http_) accept_http();
  for (auto& f : feeds_) arm_feed(*f);
  // A first run per stream where the persisted history is already long enough.
  for (auto& [key, stream] : streams_) {
    const SymbolState& sym = symbols_.at(key.first);
    if (stream.sched.on_bars(sym.series.size(), 0)) {
      start_job(key);
    } else {
      spdlog::info("stream {}.{}: waiting for {} bars (have {})", key.first, key.second,
                   stream.sched.min_bars(), sym.series.size());
    }
  }
  notify("READY=1\nSTATUS=serving");
  spdlog::info("wfod serving symbols={} streams={}", symbols_.size(), streams_.size());
  if (const auto every = watchdog_interval()) {
    watchdog_every_ = *every;
    spdlog::info("watchdog ping_every_ms={}", watchdog_every_.count() / 1000);
    notify("WATCHDOG=1");
    arm_watchdog();
  }
  if (busy_poll.count() > 0) {
    spdlog::info("latency mode busy_poll_us={}: the loop and the worker poll before sleeping",
                 busy_poll.count());
    run_busy_polling(busy_poll);
  } else {
    io_.run();
  }
  spdlog::info("wfod stopped exit=0 uptime_s={:.1f}",
               std::chrono::duration<double>(Clock::now() - started_).count());
  return 0;
}

// Latency mode: run ready handlers (poll() also checks the sockets without blocking) and keep
// at it for `busy_poll` after the last one ran, so a bar or a worker's result arriving in
// that time is handled without the loop thread being woken; then block for the next handler.
void Daemon::run_busy_polling(std::chrono::microseconds busy_poll) {
  auto last_work = Clock::now();
  while (!io_.stopped()) {
    if (io_.poll() > 0) {
      last_work = Clock::now();
    } else if (Clock::now() - last_work >= busy_poll) {
      if (io_.run_one() == 0) break;
      last_work = Clock::now();
    }
  }
}

// --- feeds ---

void Daemon::arm_feed(WatchedSocket& f) {
  f.fd.async_wait(asio::posix::stream_descriptor::wait_read,
                  [this, &f](const boost::system::error_code& ec) {
                    if (ec || stopping_) return;
                    drain_feed(f);
                  });
}

void Daemon::drain_feed(WatchedSocket& f) {
  // ZMQ_FD is edge-triggered: read until ZMQ_EVENTS says nothing is left, then re-arm. A
  // flood is cut into batches so snapshot requests and signals are served in between;
  // the rest is read by a posted continuation, since the FD will not signal it again.
  size_t received = 0;
  batch_received_ = Clock::now();
  // Reused across messages: no allocation per bar once their capacity is reached.
  std::vector<zmq::message_t> parts;
  std::vector<std::string_view> frames;
  try {
    while (received < kMaxIngestBatch && f.readable()) {
      parts.clear();
      const auto n =
          zmq::recv_multipart(f.sock, std::back_inserter(parts), zmq::recv_flags::dontwait);
      if (!n) break;
      ++received;
      frames.clear();
      for (const auto& p : parts) frames.push_back(p.to_string_view());
      on_message(frames, f.format);
    }
  } catch (const zmq::error_t& e) {
    spdlog::error("feed {}: receive: {}", f.endpoint, e.what());
  }
  // The batch's bars are written (and synced per policy) before the loop serves anything
  // else: no health reply or publication can see a bar the log does not hold.
  after_batch();
  if (received == kMaxIngestBatch) {
    asio::post(io_, [this, &f] {
      if (!stopping_) drain_feed(f);
    });
  } else {
    arm_feed(f);
  }
}

void Daemon::log_reject(const feeds::Reject& r, std::string_view where) {
  const auto d = reject_log_.on_reject();
  if (!d.log) return;
  if (d.suppressed > 0) {
    spdlog::warn("feed reject reason={} source={} detail=\"{}\" not_logged={}", to_string(r.reason),
                 where, r.detail, d.suppressed);
  } else {
    spdlog::warn("feed reject reason={} source={} detail=\"{}\"", to_string(r.reason), where,
                 r.detail);
  }
}

void Daemon::on_message(std::span<const std::string_view> frames, feeds::PayloadFormat format) {
  const IngestOutcome out = ingest_->on_message(frames, format);
  if (out.reject) {
    log_reject(*out.reject, out.symbol.empty() ? std::string_view("decode") : out.symbol);
    return;
  }
  if (out.gap) {
    spdlog::warn("feed gap symbol={} expected_seq={} got_seq={} backwards={}", out.symbol,
                 out.gap->expected, out.gap->got, out.gap->backwards);
  }
  if (out.refused) {
    spdlog::error("symbol {}: bar not stored: {}", out.symbol, out.refused->message);
  }
}

void Daemon::after_batch() {
  const IngestCommit c = ingest_->commit();
  for (const auto& [index, error] : c.failed) {
    spdlog::error(
        "symbol {}: bar log write failed: {}; accepted bars kept in memory and retried, "
        "publications withheld, health degraded",
        by_index_[index]->cfg.name, error.message);
  }
  for (const size_t index : c.recovered) {
    spdlog::info("symbol {}: bar log written again, backlog persisted", by_index_[index]->cfg.name);
  }
  for (const IngestTouched& t : c.touched) {
    SymbolState& sym = *by_index_[t.index];
    const std::string& name = sym.cfg.name;
    spdlog::debug("symbol {}: +{} bars, {} total", name, t.bars, sym.series.size());
    for (auto it = streams_.lower_bound(PublicationKey{name, std::string()});
         it != streams_.end() && it->first.first == name; ++it) {
      auto& [key, stream] = *it;
      const uint64_t before = stream.sched.coalesced();
      stream.due_at = batch_received_;
      if (stream.sched.on_bars(sym.series.size(), t.bars)) {
        start_job(key);
      } else if (stream.sched.coalesced() != before) {
        spdlog::info("stream {}.{}: run due while one is in flight: coalesced ({} so far)",
                     key.first, key.second, stream.sched.coalesced());
      }
    }
  }
  if (ingest_->has_unsynced() || ingest_->unhealthy() > 0) arm_sync_timer();
}

void Daemon::arm_sync_timer() {
  // fsync = batch: the oldest written-but-unsynced bar is synced within 50 ms even when the
  // feed goes quiet. A failing log is retried every second, so its backlog reaches the disk
  // in order as soon as space returns.
  if (sync_timer_armed_ || stopping_) return;
  sync_timer_armed_ = true;
  const auto after =
      ingest_->unhealthy() > 0 ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(50);
  sync_timer_.expires_after(after);
  sync_timer_.async_wait([this](const boost::system::error_code& ec) {
    sync_timer_armed_ = false;
    if (ec || stopping_) return;
    if (ingest_->unhealthy() > 0) after_batch();  // retries the failing logs' backlog
    sync_pass();
  });
}

void Daemon::request_sync_pass() {
  // Group commit: results that finish within 20 ms of each other share one sync pass (a
  // syncfs over 1,000 logs takes milliseconds to tens of them on the loop thread; one per
  // publication capped publishing at a few hundred per second in bench/load_bench).
  if (sync_posted_) return;
  sync_posted_ = true;
  group_timer_.expires_after(std::chrono::milliseconds(20));
  group_timer_.async_wait([this](const boost::system::error_code& ec) {
    sync_posted_ = false;
    if (!ec && !stopping_) sync_pass();
  });
}

void Daemon::sync_pass() {
  if (Status s = ingest_->sync_all(); !s.ok()) {
    spdlog::error("bar log sync: {}; the unsynced bars are written again", s.error().message);
  }
  std::vector<AwaitingSync> ready;
  ready.swap(awaiting_sync_);
  for (AwaitingSync& a : ready) {
    auto it = streams_.find(a.key);
    if (it == streams_.end() || it->second.generation != a.generation) continue;
    publish(a.key, it->second, *a.snap, a.result);
  }
  if (ingest_->has_unsynced() || ingest_->unhealthy() > 0) arm_sync_timer();
}

// --- jobs ---

void Daemon::start_job(const PublicationKey& key) {
  Stream& stream = streams_.at(key);
  SymbolState& sym = symbols_.at(key.first);
  const size_t bars = sym.series.size();
  std::shared_ptr<Series>& mirror = sym.mirror;
  if (!mirror || mirror->size() > bars || mirror->close.capacity() < bars) {
    auto fresh = std::make_shared<Series>();
    fresh->reserve(std::max<size_t>(2 * bars, 4096));
    mirror = std::move(fresh);
  }
  for (size_t t = mirror->size(); t < bars; ++t)
    mirror->push_back(Bar{sym.series.ts_ns[t], sym.series.open[t], sym.series.high[t],
                          sym.series.low[t], sym.series.close[t], sym.series.volume[t], 0});
  std::shared_ptr<const Series> snap = mirror;

  SweepRequest req;
  req.strategy = stream.spec;
  req.window = WindowSpec{bars, stream.cfg.window, stream.warmup};
  req.rank = stream.cfg.rank;
  req.precision = cfg_.daemon.precision;
  req.threads = cfg_.daemon.threads;
  JobInput in{snap, req, stream.winner, stream.before, stream.last_end, stream.slot,
              stream.cfg.has_selection
                  ? std::optional<selection::SelectionSpec>(stream.cfg.selection)
                  : std::nullopt,
              // after a restart nothing was selected yet: the restored winner is current
              stream.selected ? stream.selected
              : stream.winner ? std::optional<uint64_t>(stream.winner->id)
                              : std::nullopt,
              stream.due_at, Clock::now()};
  const uint64_t generation = stream.generation;
  Backend* backend = backend_.get();  // kept alive after a fallback (retired_backends_)
  spdlog::debug("sweep start stream={}.{} history_bars={} window_bars={}", key.first, key.second,
                bars, stream.cfg.window);

  worker_.post([this, key, generation, in = std::move(in), backend]() mutable {
    std::shared_ptr<const Series> history = in.snap;
    JobResult out = run_job(*backend, in);
    const std::optional<Combo> next = next_live_winner(out);
    asio::post(io_, [this, key, generation, history, out = std::move(out)]() mutable {
      on_job_done(key, generation, history, std::move(out));
    });
    if (next) warm_live_tracker(in, *next);
  });
}

void Daemon::fall_back_to_cpu(const std::string& error) {
  // A failing device (allocation, kernel, lost GPU) must not stop publication: the CPU
  // backend computes the same results (SPEC §9). The old backend stays alive: jobs already
  // queued hold a pointer to it (and fail over again, harmlessly, if it keeps failing).
  const std::string from = backend_name_;
  std::unique_ptr<Backend> cpu;
  try {
    cpu = make_backend("cpu");
  } catch (const std::exception& e) {
    spdlog::critical("backend fallback from={} to=cpu failed: {}", from, e.what());
    return;
  }
  retired_backends_.push_back(std::move(backend_));
  backend_ = std::move(cpu);
  backend_name_ = std::string(backend_->name());
  ++backend_fallbacks_;
  backend_error_ = error;
  spdlog::error("backend fallback from={} to={} error=\"{}\": optimising on the CPU from now on",
                from, backend_name_, error);
  notify("STATUS=serving on the cpu backend after a " + from + " failure");
}

void Daemon::on_job_done(const PublicationKey& key, uint64_t generation,
                         std::shared_ptr<const Series> snap, JobResult result) {
  if (stopping_) return;
  result.marks.taken = Clock::now();
  auto it = streams_.find(key);
  if (it == streams_.end() || it->second.generation != generation) {
    spdlog::info("stream {}.{}: result of a replaced or removed strategy dropped", key.first,
                 key.second);
    return;
  }
  Stream& stream = it->second;
  if (result.stream_opened) {
    const StreamStats& st = result.stream_stats;
    spdlog::info(
        "stream {}.{} opened backend={} incremental={} history_bars={} chunk={} "
        "footprint_mb={:.1f} open_s={:.3f}",
        key.first, key.second, result.sweep.backend, st.incremental, st.bars, st.chunk,
        static_cast<double>(st.footprint_bytes) / 1e6, st.open_seconds);
    if (!result.stream_fallback.empty())
      spdlog::warn(
          "stream {}.{}: full sweeps on every run (the incremental stream does not fit: {})",
          key.first, key.second, result.stream_fallback);
  }
  if (result.backend_failed && backend_name_ != "cpu") {
    fall_back_to_cpu(result.error);
    if (backend_name_ == "cpu") {
      start_job(key);  // the same run again, on the CPU; the scheduler still counts it running
      return;
    }
  }
  if (result.selection && result.selection->publish)
    stream.selected = result.selection->publish->combo.id;
  if (!result.error.empty()) {
    spdlog::error("sweep failed stream={}.{} error=\"{}\"", key.first, key.second, result.error);
  } else if (result.sweep.top.empty()) {
    spdlog::warn(
        "sweep empty stream={}.{} window_bars={} evaluated={} sweep_ms={:.1f}: no combo passed "
        "the constraints, nothing published",
        key.first, key.second, stream.cfg.window, result.sweep.evaluated, result.elapsed_ms);
  } else if (cfg_.daemon.fsync != config::FsyncPolicy::none &&
             symbols_.at(key.first).store->has_unsynced()) {
    // PROTOCOL §2: the covered bars must be persisted first; the next sync pass publishes.
    awaiting_sync_.push_back({key, generation, snap, std::move(result)});
    request_sync_pass();
  } else {
    publish(key, stream, *snap, result);
  }
  if (stream.sched.on_job_done()) start_job(key);
}

void Daemon::publish(const PublicationKey& key, Stream& stream, const Series& snap, JobResult& r) {
  // Robust selection may hold the current combo or publish nothing (docs/spec-10-selection.md).
  if (r.selection && !r.selection->publish) {
    spdlog::warn("stream {}.{}: nothing published: selection reason={}", key.first, key.second,
                 r.selection->reason);
    return;
  }
  SymbolState& sym = symbols_.at(key.first);
  // PROTOCOL §2: only after the covered bars are persisted.
  if (!sym.store->healthy()) {
    if (Status s = sym.store->flush(); !s.ok() || !sym.store->healthy()) {
      spdlog::error("stream {}.{}: bars not persisted (disk error); publication withheld",
                    key.first, key.second);
      return;
    }
  }
  auto seq = seqs_->next(key.first, key.second);
  if (!seq.ok()) {
    spdlog::error("stream {}.{}: no sequence number: {}; publication withheld", key.first,
                  key.second, seq.error().message);
    return;
  }
  const size_t end = r.end;  // the mirror may hold newer bars by now
  const Ranked& best = r.selection ? *r.selection->publish : r.sweep.top.front();
  const Json params = params_json(stream.spec.grid, best.combo);

  PublicationInput in;
  in.symbol = key.first;
  in.strategy = key.second;
  in.seq = seq.value();
  in.published_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  in.window_bars = stream.cfg.window;
  in.first_ts = snap.ts_ns[end - stream.cfg.window];
  in.last_ts = snap.ts_ns[end - 1];
  in.grid = &stream.spec.grid;
  in.result = &r.sweep;
  in.changed = !stream.last_params || *stream.last_params != params;
  in.elapsed_ms = r.elapsed_ms;
  in.backend = r.sweep.backend.empty() ? backend_name_ : r.sweep.backend;
  in.config_version = cfg_.sha256;
  if (r.selection) {
    in.published = &best;
    in.selection = r.selection->json;
  }
  if (r.live && stream.last_seq > 0) {
    in.live_oos = LiveOos{stream.last_seq, end - stream.last_end, *r.live};
  }
  const std::string payload = publication_text(in);  // = publication_json(in).dump()
  const std::string topic = "params." + key.first + "." + key.second;
  try {
    // Never blocks: a PUB drops per subscriber at its high-water mark; a refusal of the
    // whole message (EAGAIN) is counted.
    if (!pub_->sock.send(zmq::buffer(topic),
                         zmq::send_flags::sndmore | zmq::send_flags::dontwait) ||
        !pub_->sock.send(zmq::buffer(payload), zmq::send_flags::dontwait)) {
      ++publish_dropped_;
    }
  } catch (const zmq::error_t& e) {
    ++publish_dropped_;
    spdlog::error("stream {}.{}: send: {}", key.first, key.second, e.what());
  }
  r.marks.sent = Clock::now();
  latency_.record(r.marks);
  // The next block of sequence numbers, now that this publication is out (not in the next's).
  if (Status s = seqs_->top_up(key.first, key.second); !s.ok()) {
    spdlog::warn("stream {}.{}: sequence numbers not reserved ahead: {}", key.first, key.second,
                 s.error().message);
  }
  spdlog::debug(
      "latency stream={}.{} seq={} ingest_ms={:.3f} handoff_ms={:.3f} job_ms={:.3f} "
      "result_ms={:.3f} publish_ms={:.3f}",
      key.first, key.second, in.seq, ms_between(r.marks.received, r.marks.queued),
      ms_between(r.marks.queued, r.marks.started), ms_between(r.marks.started, r.marks.finished),
      ms_between(r.marks.finished, r.marks.taken), ms_between(r.marks.taken, r.marks.sent));
  // sweep_ms: the whole job (stream run, selection, live_oos); optimise_ms: the stream run.
  spdlog::info(
      "published topic={} seq={} combo_id={} {}={:.4g} changed={} sweep_ms={:.1f} "
      "optimise_ms={:.2f} history_bars={} evaluated={} skipped={}",
      topic, in.seq, best.combo.id, to_string(stream.cfg.rank.objective), best.objective,
      in.changed, r.elapsed_ms, r.optimise_ms, end, r.sweep.evaluated, r.sweep.skipped);
  notify("STATUS=serving; last publication " + topic + " seq " + std::to_string(in.seq));

  stream.before = stream.winner;
  stream.winner = best.combo;
  stream.last_seq = in.seq;
  stream.last_end = end;
  stream.last_params = params;
  last_[key] = LastPublication{in.seq, payload};
  // After the send: a crash in between leaves the previous state, so the next start's
  // live_oos refers to an older publication (still a true statement), never to one unsent.
  LiveState live{stream.fingerprint_crc, in.seq, end, best.combo.id, std::nullopt, payload};
  if (stream.before) live.before = stream.before->id;
  live_writer_->post(key, std::move(live));  // written off the loop thread
}

// --- ZAP: CURVE client authentication ([curve] clients_file) ---

void Daemon::arm_zap() {
  zap_->fd.async_wait(asio::posix::stream_descriptor::wait_read,
                      [this](const boost::system::error_code& ec) {
                        if (ec || stopping_) return;
                        drain_zap();
                      });
}

void Daemon::drain_zap() {
  try {
    std::vector<zmq::message_t> parts;
    while (zap_->readable()) {
      parts.clear();
      if (!zmq::recv_multipart(zap_->sock, std::back_inserter(parts), zmq::recv_flags::dontwait)) {
        break;
      }
      std::vector<std::string> frames;
      for (const auto& p : parts) frames.push_back(p.to_string());
      const CurveSecurity::Decision d = curve_->answer(frames);
      if (!d.admitted) {
        ++curve_denied_;
        if (zap_log_.on_reject().log) {
          spdlog::warn("curve denied client_key={} address={} (not in [curve] clients_file)",
                       d.client.empty() ? "-" : d.client, d.address);
        }
      } else {
        spdlog::debug("curve admitted client_key={} address={}", d.client, d.address);
      }
      for (size_t i = 0; i < d.reply.size(); ++i) {
        (void)zap_->sock.send(zmq::buffer(d.reply[i]), i + 1 < d.reply.size()
                                                           ? zmq::send_flags::sndmore
                                                           : zmq::send_flags::none);
      }
    }
  } catch (const zmq::error_t& e) {
    spdlog::error("zap: {}", e.what());
  }
  arm_zap();
}

// --- snapshot ---

void Daemon::arm_snapshot() {
  rep_->fd.async_wait(asio::posix::stream_descriptor::wait_read,
                      [this](const boost::system::error_code& ec) {
                        if (ec || stopping_) return;
                        drain_snapshot();
                      });
}

void Daemon::drain_snapshot() {
  try {
    std::vector<zmq::message_t> parts;
    while (rep_->readable()) {
      parts.clear();
      const auto n =
          zmq::recv_multipart(rep_->sock, std::back_inserter(parts), zmq::recv_flags::dontwait);
      if (!n) break;
      // ROUTER envelope: [identity, "" (REQ's delimiter; absent from a bare DEALER), frames].
      size_t first = 1;
      const bool delimited = parts.size() > 1 && parts[1].size() == 0;
      if (delimited) first = 2;
      std::vector<std::string> frames;
      for (size_t i = first; i < parts.size(); ++i) frames.push_back(parts[i].to_string());
      const std::string reply = snapshot_reply(frames, last_, [this] { return health(); });
      try {
        bool sent = rep_->sock.send(parts[0], zmq::send_flags::sndmore | zmq::send_flags::dontwait)
                        .has_value();
        if (sent && delimited) {
          sent = rep_->sock
                     .send(zmq::message_t(), zmq::send_flags::sndmore | zmq::send_flags::dontwait)
                     .has_value();
        }
        if (sent) sent = rep_->sock.send(zmq::buffer(reply), zmq::send_flags::dontwait).has_value();
        if (!sent) ++snapshot_dropped_;
      } catch (const zmq::error_t&) {
        ++snapshot_dropped_;  // EHOSTUNREACH: the client left before its reply
      }
    }
  } catch (const zmq::error_t& e) {
    spdlog::error("snapshot: {}", e.what());
  }
  arm_snapshot();
}

HealthInput Daemon::health() const {
  HealthInput h;
  h.backend = backend_name_;
  h.uptime_s = std::chrono::duration<double>(Clock::now() - started_).count();
  for (const auto& [name, sym] : symbols_) {
    SymbolHealth s;
    s.bars = sym.series.size();
    if (sym.series.size() > 0) s.last_ts = sym.series.ts_ns.back();
    h.symbols[name] = s;
    if (!sym.store->healthy()) h.degraded = true;
  }
  const feeds::FeedStats& st = ingest_->validator().stats();
  for (feeds::RejectReason reason : feeds::kAllRejectReasons) {
    h.rejects[std::string(to_string(reason))] = st.rejected(reason);
  }
  h.gaps = st.gaps;
  h.publish_dropped = publish_dropped_;
  h.backend_fallbacks = backend_fallbacks_;
  h.backend_error = backend_error_;
  h.curve_denied = curve_denied_;
  h.snapshot_dropped = snapshot_dropped_;
  for (const auto& [name, sym] : symbols_) {
    h.storage.pending_bars += sym.store->pending();
    h.storage.write_errors += sym.store->stats().write_errors + sym.store->stats().sync_errors;
    if (!sym.store->healthy()) {
      h.storage.ok = false;
      if (h.storage.error.empty() && sym.store->last_error()) {
        h.storage.error = name + ": " + sym.store->last_error()->message;
      }
    }
  }
  h.coalesced = retired_coalesced_;
  for (const auto& [key, stream] : streams_) h.coalesced += stream.sched.coalesced();
  h.latency = latency_.json();
  return h;
}

// --- HTTP status ([publish] http) ---

bool Daemon::open_http() {
  if (cfg_.publish.http.empty()) return true;
  const auto address = parse_http_address(cfg_.publish.http);
  if (!address) {
    spdlog::error("[publish] http = \"{}\": expected HOST:PORT; serving without HTTP status",
                  cfg_.publish.http);
    return true;
  }
  try {
    asio::ip::tcp::resolver resolver(io_);
    const auto endpoints = resolver.resolve(address->first, std::to_string(address->second));
    const asio::ip::tcp::endpoint endpoint = endpoints.begin()->endpoint();
    http_.emplace(io_);
    http_->open(endpoint.protocol());
    http_->set_option(asio::socket_base::reuse_address(true));
    http_->bind(endpoint);
    http_->listen();
    spdlog::info("HTTP /metrics and /healthz on {}:{}", endpoint.address().to_string(),
                 http_->local_endpoint().port());
  } catch (const boost::system::system_error& e) {
    // Monitoring is optional: a taken port must not stop parameter publication.
    spdlog::error("[publish] http = \"{}\": {}; serving without HTTP status", cfg_.publish.http,
                  e.what());
    http_.reset();
  }
  return true;
}

void Daemon::accept_http() {
  http_->async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket sock) {
    if (stopping_) return;
    if (!ec) serve_http(std::make_shared<HttpSession>(std::move(sock)));
    accept_http();
  });
}

void Daemon::serve_http(std::shared_ptr<HttpSession> s) {
  // A client that never finishes its request is dropped after 5 s.
  s->timer.expires_after(std::chrono::seconds(5));
  s->timer.async_wait([s](const boost::system::error_code& ec) {
    if (ec) return;
    boost::system::error_code ignored;
    s->sock.close(ignored);
  });
  asio::async_read_until(
      s->sock, asio::dynamic_buffer(s->request, kMaxHttpRequestBytes), "\r\n\r\n",
      [this, s](const boost::system::error_code& ec, size_t) {
        if (ec) {  // closed, timed out, or a head larger than kMaxHttpRequestBytes
          boost::system::error_code ignored;
          s->sock.close(ignored);
          s->timer.cancel();
          return;
        }
        s->reply = http_response(s->request, health());
        asio::async_write(s->sock, asio::buffer(s->reply),
                          [s](const boost::system::error_code&, size_t) {
                            boost::system::error_code ignored;
                            s->sock.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
                            s->sock.close(ignored);
                            s->timer.cancel();
                          });
      });
}

// --- signals, reload, shutdown ---

void Daemon::arm_signals() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      reload();
      arm_signals();
    } else {
      spdlog::info("wfod stopping signal={}", signo == SIGTERM ? "SIGTERM" : "SIGINT");
      shut_down();
    }
  });
}

void Daemon::arm_watchdog() {
  // The ping is sent from the loop itself: a loop that is stuck (a handler that never
  // returns, a deadlock) stops pinging and systemd restarts us. A degraded bar log does not
  // stop the pings: a restart would not fix the disk, and health reports it.
  watchdog_.expires_after(watchdog_every_);
  watchdog_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping_) return;
    notify("WATCHDOG=1");
    arm_watchdog();
  });
}

void Daemon::reload() {
  if (config_path_.empty()) {
    spdlog::warn("SIGHUP: running the embedded demo configuration; nothing to reload");
    return;
  }
  notify("RELOADING=1");
  spdlog::info("reload start config={}", config_path_);
  config::Config next;
  try {
    next = config::load_config(config_path_);
  } catch (const std::exception& e) {
    spdlog::error("reload failed config={} error=\"{}\": keeping the running configuration",
                  config_path_, e.what());
    notify("READY=1\nSTATUS=serving (reload failed)");
    return;
  }
  if (next.sha256 == cfg_.sha256) {
    spdlog::info("reload unchanged config={} sha256={}", config_path_, cfg_.sha256);
    notify("READY=1\nSTATUS=serving");
    return;
  }
  // Non-strategy keys: the cheap ones apply in place, the rest wait for a restart (sockets,
  // stores and the engine are set up once). One line says which is which.
  const ReloadPlan plan = plan_reload(cfg_, next);
  if (cfg_.daemon.log_level != next.daemon.log_level) {
    spdlog::set_level(spdlog::level::from_str(next.daemon.log_level));
    cfg_.daemon.log_level = next.daemon.log_level;
  }
  if (cfg_.publish.http != next.publish.http) {
    boost::system::error_code ignored;
    if (http_) http_->close(ignored);
    http_.reset();
    cfg_.publish.http = next.publish.http;
    open_http();
    if (http_) accept_http();
  }
  if (!plan.restart.empty()) {
    spdlog::warn(
        "reload needs_restart=\"{}\": these keys keep their running values until a restart",
        join_keys(plan.restart));
  }
  // Strategies: streams are (symbol, strategy); a stream whose strategy is unchanged keeps
  // its schedule, winner and live_oos history; a changed one starts over.
  std::map<PublicationKey, const config::StrategyConfig*> wanted;
  for (const config::StrategyConfig& s : next.strategies) {
    for (const std::string& sym : s.symbols) {
      if (!symbols_.count(sym)) {
        spdlog::warn("SIGHUP: strategy {} on new symbol {}: needs a restart", s.name, sym);
        continue;
      }
      wanted[PublicationKey{sym, s.name}] = &s;
    }
  }
  std::vector<PublicationKey> to_start;
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (!wanted.count(it->first)) {
      spdlog::info("SIGHUP: stream {}.{} removed", it->first.first, it->first.second);
      retired_coalesced_ += it->second.sched.coalesced();
      last_.erase(it->first);
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [key, s] : wanted) {
    const auto it = streams_.find(key);
    if (it != streams_.end() && fingerprint(it->second.cfg) == fingerprint(*s)) continue;
    spdlog::info("SIGHUP: stream {}.{} {}", key.first, key.second,
                 it == streams_.end() ? "added" : "changed: re-optimising from scratch");
    // `changed` (PROTOCOL §2) compares with the previous publication, whatever the reload.
    std::optional<Json> last_params;
    if (it != streams_.end()) {
      retired_coalesced_ += it->second.sched.coalesced();
      last_params = it->second.last_params;
    }
    add_stream(*s, key.first);
    streams_.at(key).last_params = std::move(last_params);
    to_start.push_back(key);
  }
  // Keep the running [daemon], [publish], [[feed]] and [[symbol]] settings (logged above);
  // take the new strategies and the new config_version.
  cfg_.strategies = next.strategies;
  cfg_.sha256 = next.sha256;
  spdlog::info(
      "reload done config={} sha256={} streams={} started={} applied_live=\"{}\" "
      "needs_restart=\"{}\"",
      config_path_, cfg_.sha256, streams_.size(), to_start.size(), join_keys(plan.live),
      join_keys(plan.restart));
  for (const PublicationKey& key : to_start) {
    Stream& stream = streams_.at(key);
    if (stream.sched.on_bars(symbols_.at(key.first).series.size(), 0)) start_job(key);
  }
  notify("READY=1\nSTATUS=serving");
}

void Daemon::shut_down() {
  if (stopping_) return;
  stopping_ = true;
  notify("STOPPING=1");
  signals_.cancel();
  watchdog_.cancel();
  sync_timer_.cancel();
  group_timer_.cancel();
  boost::system::error_code ignored;
  if (rep_) rep_->fd.cancel(ignored);
  if (zap_) zap_->fd.cancel(ignored);
  if (http_) http_->close(ignored);
  for (auto& f : feeds_) f->fd.cancel(ignored);
  // Queued sweeps are abandoned; a running one finishes (its result is dropped).
  worker_.stop();
  if (live_writer_) live_writer_->flush();  // every stream's last publication on disk
  // Every staged or pending bar written, then one sync pass (one syncfs for many logs, not
  // a fdatasync per log: 1,000 symbols must stop well inside TimeoutStopSec).
  (void)ingest_->commit();
  if (Status s = ingest_->sync_all(); !s.ok()) {
    spdlog::error("final sync: {}", s.error().message);
  }
  for (auto& [name, sym] : symbols_) {
    if (!sym.store->healthy()) {
      spdlog::error("symbol {}: {} accepted bars could not be written at shutdown: {}", name,
                    sym.store->pending(),
                    sym.store->last_error() ? sym.store->last_error()->message : "");
    }
  }
  if (Status s = seqs_->close(); !s.ok()) {
    spdlog::error("publication sequence numbers: final write: {}", s.error().message);
  }
  const uint64_t suppressed = reject_log_.pending_suppressed();
  if (suppressed > 0) spdlog::warn("{} feed rejects were not logged (rate limit)", suppressed);
  io_.stop();
}

}  // namespace

int run_daemon(config::Config config, std::string config_path) {
  Daemon d(std::move(config), std::move(config_path));
  return d.run();
}

}  // namespace wfod::daemon
