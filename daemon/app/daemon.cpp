// The wfod daemon's event loop: start-up (stores, backend, symbols, streams, sockets, first
// runs) and the loop itself. The rest of the Daemon class lives in daemon_feeds.cpp,
// daemon_endpoints.cpp and daemon_lifecycle.cpp; its state and parts in daemon_impl.hpp.

#include "daemon.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "daemon_impl.hpp"
#include "wfod/daemon/store/bar_log_reader.hpp"
#include "wfod/env_knobs.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::daemon {
namespace loop {

bool Daemon::open_symbol(const config::SymbolConfig& s) {
  BarStoreOptions options;
  options.fsync = cfg_.daemon.fsync;
  options.on_corrupt = cfg_.daemon.on_corrupt_log;
  options.load_newest =
      BarKeeper::bars_to_load(cfg_.strategies, s.name, dispatcher_.backend().streams_bounded());
  auto opened = BarStore::open(cfg_.daemon.state_dir, s.name, options);
  if (!opened.ok()) {
    if (is_content_error(opened.error())) {
      // PROTOCOL §4 on_corrupt_log = refuse: nothing is bound or published yet, and the
      // file is as it was; the operator decides.
      exit_code_ = kExitCorruptLog;
      spdlog::critical("symbol {}: {}; stopping (exit 3)", s.name, opened.error().message);
    } else {
      spdlog::critical("symbol {}: cannot open its bar log: {}", s.name, opened.error().message);
    }
    return false;
  }
  OpenedBarStore o = std::move(opened).value();
  SymbolState st;
  if (o.report.corrupt) {
    st.quarantined_bars = o.report.records_quarantined;
    spdlog::error(
        "symbol {}: bar log {} was corrupt: {}; on_corrupt_log=quarantine moved {} bytes ({} "
        "bars) to {}, running on the {} bars before them; health degraded until a restart "
        "with the log repaired; no publication goes behind the last one published",
        s.name, o.store.path(), o.report.reason, o.report.bytes_quarantined,
        o.report.records_quarantined, o.report.quarantine_path, o.report.records_loaded);
  } else if (!o.report.clean()) {
    spdlog::error(
        "symbol {}: bar log {} had a torn tail (a crash mid-append): {}; {} bytes quarantined "
        "to {}, {} intact bars kept",
        s.name, o.store.path(), o.report.reason, o.report.bytes_quarantined,
        o.report.quarantine_path, o.report.records_loaded);
  }
  st.cfg = s;
  st.history.start_at(o.first);
  for (size_t t = 0; t < o.bars.size(); ++t)
    st.history.push_back(Bar{o.bars.ts_ns[t], o.bars.open[t], o.bars.high[t], o.bars.low[t],
                             o.bars.close[t], o.bars.volume[t], 0});
  st.last_seq = o.seqs.empty() ? 0 : o.seqs.back();
  st.store.emplace(std::move(o.store));
  spdlog::info("symbol {}: {} persisted bars, the newest {} loaded", s.name, st.history.size(),
               o.bars.size());

  if (!s.backfill.empty()) {
    feeds::CsvReadResult csv;
    try {
      csv = feeds::read_csv(s.backfill);
    } catch (const std::exception& e) {
      spdlog::critical("symbol {}: backfill: {}", s.name, e.what());
      return false;
    }
    for (const std::string& note : csv.notes) {
      spdlog::info("symbol {}: backfill {}: {}", s.name, s.backfill, note);
    }
    // Only bars newer than the last persisted one: a restart re-reads the same file, and
    // the overlap must not be appended twice (bars are identified by ts).
    const std::optional<int64_t> last = st.store->last_ts();
    size_t appended = 0, overlap = 0, future = 0;
    std::optional<int64_t> first_future;
    // Rows stamped in the future are skipped like feed bars (PROTOCOL §1 `future`): one would
    // hold the symbol, every later feed bar being out_of_order against it.
    const int64_t now_ns = feeds::BarValidator::system_now_ns();
    const int64_t max_ahead_ns = int64_t{cfg_.daemon.max_future_s} * 1'000'000'000;
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
      if (st.history.size() > 0 && b.ts_ns <= st.history.last_ts()) {
        ++overlap;  // not strictly increasing in the file: keep what we have
        continue;
      }
      if (max_ahead_ns > 0 && b.ts_ns > now_ns && b.ts_ns - now_ns > max_ahead_ns) {
        if (!first_future) first_future = b.ts_ns;
        ++future;
        continue;
      }
      const AppendResult r = st.store->append(b);
      if (r.state == AppendState::refused) {
        spdlog::critical("symbol {}: backfill append refused: {}", s.name,
                         r.error ? r.error->message : "");
        return false;
      }
      st.history.push_back(b);
      ++appended;
    }
    if (Status f = st.store->flush(); !f.ok()) {
      spdlog::critical("symbol {}: backfill flush: {}", s.name, f.error().message);
      return false;
    }
    spdlog::info("symbol {}: backfill {}: {} bars appended, {} already persisted", s.name,
                 s.backfill, appended, overlap);
    if (future > 0) {
      spdlog::error(
          "symbol {}: backfill {}: {} rows stamped more than max_future_s={} after the clock "
          "skipped (not persisted), the first at {}",
          s.name, s.backfill, future, cfg_.daemon.max_future_s,
          feeds::format_timestamp(*first_future));
    }
  }
  keeper_.add(std::move(st));
  return true;
}

void Daemon::add_stream(const config::StrategyConfig& s, const std::string& symbol) {
  SymbolStrategy st = new_stream(s, keeper_.at(symbol), ++generation_);
  publisher_.stream_started(PublicationKey{symbol, s.name});
  streams_.insert_or_assign(PublicationKey{symbol, s.name}, std::move(st));
}

void Daemon::restore_live_state(const PublicationKey& key, SymbolStrategy& stream) {
  if (live_writer_) live_writer_->flush();  // a reload: the file holds the newest state
  auto loaded = live_->load(key.first, key.second);
  if (!loaded.ok()) {
    spdlog::error("stream {}.{}: {}", key.first, key.second, loaded.error().message);
    return;
  }
  if (!loaded.value()) return;
  const LiveState& st = *loaded.value();
  const Grid& grid = stream.spec.grid;
  const size_t bars = keeper_.at(key.first).history.size();
  const char* why = nullptr;
  if (st.seq > seqs_->last(key.first, key.second)) {
    why = "its seq is ahead of publications.seq";
  } else {
    // A publication that went out: whatever else changed, clients hold its parameters, so
    // `get` keeps answering with it and no new one may end before its window.
    LastPublication last{st.seq, st.payload};
    // `changed` (PROTOCOL §2) compares with that publication even if the stream starts over.
    if (const Json saved = Json::parse(st.payload, nullptr, false); saved.is_object()) {
      if (saved.contains("params")) stream.last_params = saved["params"];
      // When it went out: /metrics' last publication time does not restart with the daemon.
      if (const auto p = saved.find("published_ns"); p != saved.end() && p->is_number_integer())
        last.published_ns = p->get<int64_t>();
    }
    publisher_.restore(key, std::move(last), payload_window_last_ts(st.payload));
    if (st.fingerprint != stream.fingerprint_crc) {
      why = "the strategy changed";
    } else if (st.end > bars || st.winner >= grid.size() ||
               (st.before && *st.before >= grid.size())) {
      why = "it does not fit the persisted bars or the grid";
    }
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
  stream.last_params = params_json(*stream.winner);
  stream.sched.resume(bars - st.end);
  spdlog::info("stream {}.{}: resumed after publication seq={} at history_bars={} ({} bars since)",
               key.first, key.second, st.seq, st.end, bars - st.end);
}

namespace {

// A bind or connect that failed, already worded for the operator: which socket, its
// endpoint, the errno text.
struct EndpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Binds or connects `sock`; a failure names the socket ("publish", "snapshot", "feed") and
// the endpoint, e.g. "cannot bind [publish] endpoint tcp://127.0.0.1:5560: Address already
// in use". Two sockets failing the same way must not log the same line.
void attach(zmq::socket_t& sock, std::string_view which, const std::string& endpoint) {
  const bool bind = which != "feed";
  try {
    if (bind) {
      sock.bind(endpoint);
    } else {
      sock.connect(endpoint);
    }
  } catch (const zmq::error_t& e) {
    throw EndpointError("cannot " + std::string(bind ? "bind" : "connect") + " [" +
                        std::string(which) + "] endpoint " + endpoint + ": " + e.what());
  }
}

}  // namespace

// Every stream opened on the persisted history now, while memory holds all of it, so the
// history can then keep only the tail the streams need (the worker is not running yet).
void Daemon::open_streams_at_start() {
  std::vector<std::pair<const PublicationKey, SymbolStrategy>*> todo;
  for (auto& entry : streams_) todo.push_back(&entry);
  auto open_one = [this](const PublicationKey& key, SymbolStrategy& stream) {
    const SymbolState& sym = keeper_.at(key.first);
    const HistorySnapshot snap = sym.history.snapshot();
    const auto t0 = Clock::now();
    if (restore_checkpoint(key, stream, snap)) return;
    try {
      // Bars older than memory holds come from the bar log.
      stream.slot->open_from(dispatcher_.backend(),
                             stream_spec_of(request_for(stream, snap.end, cfg_.daemon)), snap,
                             sym.store->path());
    } catch (const std::exception& e) {
      spdlog::error("stream {}.{}: cannot open at start ({}); the first run tries again", key.first,
                    key.second, e.what());
      return;
    }
    stream.taken = stream.slot->bars();
    stream.bounded = stream.slot->bounded();
    const StreamStats& st = stream.slot->stats();
    spdlog::info(
        "stream {}.{} opened backend={} replayed_bars={} bounded={} footprint_mb={:.1f} "
        "open_s={:.3f}{}{}",
        key.first, key.second, dispatcher_.backend_name(), snap.end, stream.bounded,
        static_cast<double>(st.footprint_bytes) / 1e6, ms_between(t0, Clock::now()) / 1e3,
        stream.slot->fallback_reason().empty() ? "" : " fallback=", stream.slot->fallback_reason());
  };
  // Streams restore (or replay) independently: on the cpu backend, several at a time, so a
  // restart's time is the slowest stream's share, not the sum (each touches tens of MB of
  // fresh state). Each thread touches only its streams; the symbols and the checkpoint store
  // are only read. The cuda backend opens its streams one after the other.
  const auto cores = static_cast<size_t>(available_cores());
  const size_t threads = dispatcher_.backend().streams_open_concurrently()
                             ? std::min<size_t>(todo.size(), cores)
                             : std::min<size_t>(todo.size(), 1);
  std::atomic<size_t> next{0}, opened{0};
  std::atomic<bool> done{false};
  // The engine's pool: a refused thread's streams are taken by the others (this one too).
  // On a thread of its own, so that this one hears SIGTERM / SIGINT meanwhile: opening a large
  // grid over a long history takes minutes, and a stop must not wait for it (issue 43 item 1).
  std::thread opener([&] {
    run_workers(static_cast<int>(threads), [&](int) {
      for (size_t i = next++; i < todo.size(); i = next++) {
        open_one(todo[i]->first, todo[i]->second);
        ++opened;
      }
    });
    done = true;
  });
  int stop_signal = 0;
  std::function<void()> arm = [&] {
    signals_.async_wait([&](const boost::system::error_code& ec, int signo) {
      if (ec) return;
      if (signo == SIGHUP) {
        spdlog::warn(
            "SIGHUP while the streams open at start: ignored (the configuration read at start "
            "is the one opening); send it again once wfod serves");
        arm();
        return;
      }
      stop_signal = signo;
    });
  };
  arm();
  while (!done && stop_signal == 0) io_.run_for(std::chrono::milliseconds(50));
  if (stop_signal != 0) stop_while_opening(stop_signal, opened.load(), todo.size());
  opener.join();
  signals_.cancel();  // a signal from now on waits for run()'s arm_signals()
  io_.restart();
  io_.poll();
  io_.restart();
  for (auto& [name, sym] : keeper_.symbols()) {
    keeper_.set_needs(sym, history_needs(streams_, name));
    sym.history.compact();
    spdlog::info("symbol {}: {} bars from the anchor, {} in memory ({:.1f} MB)", name,
                 sym.history.size(), sym.history.size() - sym.history.base(),
                 static_cast<double>(sym.history.footprint_bytes()) / 1e6);
  }
}

// SIGTERM / SIGINT while streams open at start: the bars accepted so far (the backfill) are
// written and the process ends at once, leaving the opening threads to the exit (their
// streams are only memory; a restart opens them again from the bar logs and checkpoints).
void Daemon::stop_while_opening(int signo, size_t opened, size_t streams) {
  spdlog::info(
      "wfod stopping signal={} while the streams open at start ({} of {} open): not "
      "waiting for the rest",
      signo == SIGTERM ? "SIGTERM" : "SIGINT", opened, streams);
  notify("STOPPING=1");
  int code = kExitOk;
  const StopFlush flushed = keeper_.flush_at_stop(std::chrono::seconds(cfg_.daemon.stop_retry_s),
                                                  std::chrono::milliseconds(200));
  if (!flushed.lost.empty()) {
    spdlog::critical("{} accepted bars lost at shutdown: exit {}", flushed.lost_bars(),
                     kExitBarsLost);
    code = kExitBarsLost;
  }
  if (Status st = seqs_->close(); !st.ok()) {
    spdlog::error("publication sequence numbers: final write: {}", st.error().message);
  }
  spdlog::default_logger()->flush();
  std::_Exit(code);
}

// A stream's checkpoint, if it matches the strategy and the bar log: the stream resumes
// after the bars it covers (the first run advances it through the rest). Anything wrong is
// said loudly and the caller replays from the anchor instead.
bool Daemon::restore_checkpoint(const PublicationKey& key, SymbolStrategy& stream,
                                const HistorySnapshot& snap) {
  const auto t0 = Clock::now();
  auto loaded = checkpoints_->load(key.first, key.second);
  std::string why;
  if (!loaded.ok()) {
    why = loaded.error().message;
  } else if (!loaded.value()) {
    spdlog::info("stream {}.{}: no checkpoint: replaying {} bars from the anchor", key.first,
                 key.second, snap.end);
    return false;
  } else {
    const Checkpoint& c = *loaded.value();
    if (c.fingerprint != stream.fingerprint_crc) {
      why = "it was written for another version of the strategy";
    } else if (c.bars == 0 || c.bars > snap.end) {
      why = "it covers " + std::to_string(c.bars) + " bars, the bar log holds " +
            std::to_string(snap.end);
    } else if (keeper_.bar_ts(keeper_.at(key.first), c.bars - 1) != c.last_ts) {
      why = "its last bar's ts does not match the bar log's bar " + std::to_string(c.bars - 1);
    } else {
      try {
        stream.slot->restore(dispatcher_.backend(),
                             stream_spec_of(request_for(stream, c.bars, cfg_.daemon)), c.blob,
                             c.bars);
        stream.taken = c.bars;
        stream.bounded = stream.slot->bounded();
        spdlog::info("stream {}.{}: resumed from checkpoint at bar {} ({} bars since) in {:.3f} s",
                     key.first, key.second, c.bars, snap.end - c.bars,
                     ms_between(t0, Clock::now()) / 1e3);
        return true;
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
  }
  spdlog::warn("stream {}.{}: checkpoint {} not used ({}): replaying {} bars from the anchor",
               key.first, key.second, checkpoints_->path(key.first, key.second), why, snap.end);
  return false;
}

bool Daemon::open_sockets() {
  try {
    // The ZAP handler first: a CURVE server that accepts a connection before it exists
    // would let the handshake through unauthenticated. Also without CURVE: it caps the
    // snapshot socket's connections.
    zap_ = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::rep);
    zap_->sock.set(zmq::sockopt::linger, 0);
    zap_->sock.bind(kZapEndpoint);
    zap_->watch();
    if (cfg_.curve.enabled()) {
      curve_ = std::make_unique<CurveSecurity>(cfg_.curve);
      spdlog::info("curve on: publish and snapshot admit {} client key(s) from {}; server key {}",
                   curve_->clients(), cfg_.curve.clients_file, curve_->public_key());
    }
    pub_ = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::pub);
    if (curve_) curve_->make_server(pub_->sock);
    pub_->sock.set(zmq::sockopt::linger, 1000);
    // Per subscriber: a slow one loses messages beyond this (it sees seq gaps and can
    // re-sync with `get`); the loop never waits for it.
    pub_->sock.set(zmq::sockopt::sndhwm, cfg_.publish.sndhwm);
    attach(pub_->sock, "publish", cfg_.publish.endpoint);
    pub_->endpoint = pub_->sock.get(zmq::sockopt::last_endpoint);

    // ROUTER, not REP: wire-compatible with REQ clients (PROTOCOL §3), but a client that
    // stops reading costs a dropped reply (counted) instead of a REP stuck in its send state.
    rep_ = std::make_unique<WatchedSocket>(io_, zctx_, zmq::socket_type::router);
    rep_->sock.set(zmq::sockopt::linger, 0);
    rep_->sock.set(zmq::sockopt::router_mandatory, 1);
    rep_->sock.set(zmq::sockopt::sndhwm, 1000);
    if (curve_) curve_->make_server(rep_->sock);
    // Requests are tiny, but a frame up to this size still gets its "frame too large" reply;
    // libzmq drops a peer that sends a larger one without a word (docs/protocol.md §3).
    rep_->sock.set(zmq::sockopt::maxmsgsize, kMaxSnapshotReceiveBytes);
    // Every handshake through the ZAP handler, which refuses connections past the cap; a
    // connection that never completes its handshake (a bare TCP connect) is closed after
    // 10 s instead of libzmq's 30.
    rep_->sock.set(zmq::sockopt::zap_domain, kSnapshotZapDomain);
    rep_->sock.set(zmq::sockopt::handshake_ivl, 10000);
    snapshot_monitor_ = std::make_unique<SocketMonitor>(io_, zctx_, rep_->sock,
                                                        ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED,
                                                        [this](const SocketEvent& e) {
                                                          if (e.event == ZMQ_EVENT_ACCEPTED) {
                                                            snapshot_connections_.insert(e.value);
                                                          } else {
                                                            snapshot_connections_.erase(e.value);
                                                          }
                                                        });
    attach(rep_->sock, "snapshot", cfg_.publish.snapshot);
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
      // Before the connect: its first events too. A session libzmq ends for good (a frame
      // over maxmsgsize is a protocol error, which it does not reconnect) shows here.
      WatchedSocket* feed = s.get();
      s->monitor = std::make_unique<SocketMonitor>(
          io_, zctx_, s->sock,
          ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_DELAYED | ZMQ_EVENT_CONNECT_RETRIED |
              ZMQ_EVENT_DISCONNECTED,
          [this, feed](const SocketEvent& e) { on_feed_event(*feed, e); });
      attach(s->sock, "feed", f.endpoint);
      s->endpoint = f.endpoint;
      s->format = f.format == config::FeedFormat::json ? feeds::PayloadFormat::json
                                                       : feeds::PayloadFormat::binary;
      s->watch();
      feeds_.push_back(std::move(s));
    }
  } catch (const EndpointError& e) {
    spdlog::critical("{}", e.what());
    return false;
  } catch (const std::exception& e) {  // a socket option, or a key file (never its content)
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

// Each bar log, feed, snapshot and HTTP connection holds a descriptor: a limit below what
// the configuration may hold at once starves new clients and /healthz (accept fails with
// EMFILE). The soft limit is raised to the hard one (systemd's LimitNOFILE= sets both).
void Daemon::check_open_files_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
  if (rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max == RLIM_INFINITY ? rlim_t{1} << 20 : rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  // ZeroMQ's own (context, inproc pipes, per socket), the journal, reads of old bars: 128.
  const uint64_t needed = cfg_.symbols.size() + cfg_.feeds.size() +
                          static_cast<uint64_t>(cfg_.daemon.max_snapshot_connections) +
                          static_cast<uint64_t>(cfg_.daemon.max_http_connections) + 128;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < needed) {
    spdlog::warn(
        "open files limit {} is below what this configuration may hold at once (~{}: {} bar "
        "logs, {} feeds, max_snapshot_connections {}, max_http_connections {}, 128 for ZeroMQ "
        "and the rest): raise it (LimitNOFILE= in the unit) or lower the caps",
        rl.rlim_cur, needed, cfg_.symbols.size(), cfg_.feeds.size(),
        cfg_.daemon.max_snapshot_connections, cfg_.daemon.max_http_connections);
  } else {
    spdlog::info("open files limit {}", rl.rlim_cur);
  }
}

// Never a seq at or below one a client may have seen (issue 43 item 3): each stream goes on
// from the highest of publications.seq and its streams/*.live file, which a deleted,
// overwritten or older publications.seq would otherwise send back to 1. Each raise is
// logged with the file it came from.
bool Daemon::raise_seq_floors() {
  auto saved = live_->saved_seqs();
  if (!saved.ok()) {
    spdlog::critical("publication sequence numbers: {}", saved.error().message);
    return false;
  }
  std::map<SequenceStore::Key, uint64_t> floors;
  std::map<SequenceStore::Key, std::string> from;
  for (const LiveStateStore::SavedSeq& s : saved.value()) {
    const SequenceStore::Key key{s.symbol, s.strategy};
    floors[key] = s.seq;
    from[key] = s.path;
  }
  auto raised = seqs_->raise_floors(floors);
  if (!raised.ok()) {
    spdlog::critical("publication sequence numbers: {}", raised.error().message);
    return false;
  }
  for (const auto& [key, before] : raised.value()) {
    spdlog::warn(
        "stream {}.{}: publication seq continues after {} from {} (publications.seq had {})",
        key.first, key.second, floors.at(key), from.at(key), before);
  }
  spdlog::info(
      "publication seqs: the highest of {} ({} streams) and {} live state files in {}/streams; "
      "{} raised",
      seqs_->path(), seqs_->entries().size(), saved.value().size(), cfg_.daemon.state_dir,
      raised.value().size());
  return true;
}

bool Daemon::start_up() {
  if (auto level = spdlog::level::from_str(cfg_.daemon.log_level); level != spdlog::level::off) {
    spdlog::set_level(level);
  }
  notify("STATUS=loading state");
  spdlog::info("wfod starting config={} sha256={} state_dir={} log_level={}", cfg_.source,
               cfg_.sha256, cfg_.daemon.state_dir, cfg_.daemon.log_level);
  // state_dir is the configuration's path: one that cannot be created (under /proc,
  // through a file, read-only) is a configuration error, reported before anything is built.
  if (auto made = make_dirs(posix_file_ops(), cfg_.daemon.state_dir); !made.ok()) {
    spdlog::critical("state_dir {}: cannot create it: {}", cfg_.daemon.state_dir,
                     made.error().message);
    exit_code_ = kExitBadConfig;
    return false;
  }
  auto watch = StateDirWatch::open(cfg_.daemon.state_dir);
  if (!watch.ok()) {
    spdlog::critical("state_dir {}: {}", cfg_.daemon.state_dir, watch.error().message);
    return false;
  }
  state_dir_.emplace(std::move(watch).value());
  // One wfod per state_dir (issue 43 item 3): the bar logs' locks are per symbol, so two
  // daemons with different symbols both ran and overwrote each other's publications.seq.
  // Taken before anything in the directory is read or written; held until the process ends.
  auto lock = StateDirLock::acquire(cfg_.daemon.state_dir);
  if (!lock.ok()) {
    spdlog::critical("{}", lock.error().message);
    return false;
  }
  state_lock_.emplace(std::move(lock).value());
  std::unique_ptr<Backend> backend;
  try {
    // What "auto" / "cuda" found and why (the device's compute capability against the
    // architectures built in): one line either way, a fall back to cpu at warn level.
    BackendChoice choice = choose_backend(cfg_.daemon.backend);
    if (choice.cuda_fallback) {
      spdlog::warn("{}", choice.detail);
    } else if (!choice.detail.empty()) {
      spdlog::info("{}", choice.detail);
    }
    backend = std::move(choice.backend);
  } catch (const std::exception& e) {
    spdlog::critical("backend {}: {}", cfg_.daemon.backend, e.what());
    return false;
  }
  if (const char* fault = env_value(Env::test_backend_fault); fault != nullptr && *fault != '\0') {
    const auto from = parse_backend_fault(fault);
    if (!from) {
      spdlog::critical("{}=\"{}\": expected sweep:N (N >= 1); it is for tests only",
                       kBackendFaultEnv, fault);
      return false;
    }
    spdlog::warn("{}={}: TEST ONLY, optimisation {} and later will fail", kBackendFaultEnv, fault,
                 *from);
    backend = make_fault_backend(std::move(backend), *from);
  }
  dispatcher_.set_backend(std::move(backend));
  spdlog::info("backend {} (configured {}), precision {}", dispatcher_.backend_name(),
               cfg_.daemon.backend, to_string(cfg_.daemon.precision));

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
  if (!raise_seq_floors()) return false;
  auto checkpoints = CheckpointStore::open(cfg_.daemon.state_dir);
  if (!checkpoints.ok()) {
    spdlog::critical("stream checkpoints: {}", checkpoints.error().message);
    return false;
  }
  checkpoints_.emplace(std::move(checkpoints).value());
  dispatcher_.set_checkpoints(&*checkpoints_);
  // From the writer's thread: StorageAlarms is thread-safe; the loop's storage check clears
  // the alarm once a save succeeds again (LiveStateWriter::failing).
  live_writer_.emplace(*live_, [this](const PublicationKey& key, const IoError& e) {
    const StorageAlarms::Decision d =
        storage_alarms_.raise("live state", "live state not saved: " + e.message);
    if (d.log)
      spdlog::error("stream {}.{}: live state not saved: {}; a restart publishes live_oos null{}",
                    key.first, key.second, e.message, not_logged_note(d.suppressed));
  });

  check_open_files_limit();
  for (const config::SymbolConfig& s : cfg_.symbols) {
    if (!open_symbol(s)) return false;
  }
  keeper_.start(cfg_.daemon.fsync);
  keeper_.validator().set_max_future(std::chrono::seconds(cfg_.daemon.max_future_s));
  // Feed bars only: the backfill above was appended without the validator.
  keeper_.validator().set_min_ts(cfg_.daemon.min_ts_ns);
  for (const auto& [name, st] : keeper_.symbols()) {
    if (st.history.size() == 0) continue;
    const int64_t last = st.history.last_ts();
    keeper_.validator().seed(name, last, st.last_seq);
    // A far-future bar persisted by a daemon without the future check (or with it off)
    // still holds the symbol: every real bar is out_of_order until the clock passes it.
    const int64_t ahead_ns = last - feeds::BarValidator::system_now_ns();
    if (cfg_.daemon.max_future_s > 0 && ahead_ns / 1'000'000'000 > cfg_.daemon.max_future_s) {
      spdlog::error(
          "symbol {}: the last persisted bar is stamped {}, {} s ahead of the clock: bars "
          "up to it are rejected as out_of_order. To drop it, stop wfod, cut it from {} (a "
          "bar is the file's last 64 bytes: truncate -s -64 FILE) and restart",
          name, feeds::format_timestamp(last), ahead_ns / 1'000'000'000, st.store->path());
    }
  }
  for (const config::StrategyConfig& s : cfg_.strategies) {
    for (const std::string& sym : s.symbols) add_stream(s, sym);
  }
  for (auto& [key, stream] : streams_) restore_live_state(key, stream);
  open_streams_at_start();
  signal_gate_.follow_at_start(streams_);
  std::vector<SequenceStore::Key> keys;
  for (const auto& [key, stream] : streams_) keys.push_back(key);
  if (Status s = seqs_->reserve_all(keys); !s.ok()) {
    spdlog::critical("publication sequence numbers: {}", s.error().message);
    return false;
  }
  if (!open_sockets()) return false;
  return http_.open(true, exit_code_);
}

int Daemon::run() {
  if (!start_up()) {
    notify("STATUS=start-up failed");
    return exit_code_ != kExitOk ? exit_code_ : kExitStartFailed;
  }
  const std::chrono::microseconds busy_poll(cfg_.daemon.busy_poll_us);
  worker_.start(busy_poll);
  arm_signals();
  arm_zap();
  snapshot_monitor_->arm();
  arm_snapshot();
  if (http_.listening()) http_.accept();
  for (auto& f : feeds_) {
    arm_feed(*f);
    f->monitor->arm();
  }
  arm_storage_check();
  // A first run per stream where the persisted history is already long enough.
  dispatcher_.start_first_runs();
  notify("READY=1\nSTATUS=serving");
  spdlog::info("wfod serving symbols={} streams={}", keeper_.symbols().size(), streams_.size());
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
  spdlog::info("wfod stopped exit={} uptime_s={:.1f}", exit_code_,
               std::chrono::duration<double>(Clock::now() - started_).count());
  return exit_code_;
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

}  // namespace loop

int run_daemon(config::Config config, std::string config_path) {
  loop::Daemon d(std::move(config), std::move(config_path));
  const int code = d.run();
  if (d.worker_abandoned()) {
    // A job still runs on the worker's detached thread: destroying the daemon would pull its
    // streams from under it. Everything to keep is on disk (shut_down).
    spdlog::default_logger()->flush();
    std::_Exit(code);
  }
  return code;
}

}  // namespace wfod::daemon
