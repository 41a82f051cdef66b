// The daemon's loop state, shared by the files that implement it (daemon.cpp: start-up and
// run; daemon_feeds.cpp: bars in; daemon_jobs.cpp: runs and publications;
// daemon_endpoints.cpp: snapshot, ZAP and HTTP; daemon_lifecycle.cpp: signals, reload and
// shutdown; daemon_signals.cpp: per-bar signals). Internal to the wfod executable:
// everything here runs on the loop thread except the closures handed to the Worker and the
// streams' opening at start (open_streams_at_start's opener threads, while the loop waits).
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "curve_security.hpp"
#include "exit_codes.hpp"
#include "job_checkpoint.hpp"
#include "notify.hpp"
#include "socket_monitor.hpp"
#include "wfod/backend.hpp"
#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/fault_backend.hpp"
#include "wfod/daemon/core/feed_link.hpp"
#include "wfod/daemon/core/ingest.hpp"
#include "wfod/daemon/core/publisher.hpp"
#include "wfod/daemon/core/reload_plan.hpp"
#include "wfod/daemon/core/run_dispatcher.hpp"
#include "wfod/daemon/core/run_scheduler.hpp"
#include "wfod/daemon/core/signal_gate.hpp"
#include "wfod/daemon/core/storage_alarms.hpp"
#include "wfod/daemon/core/streams.hpp"
#include "wfod/daemon/publish/bar_interval.hpp"
#include "wfod/daemon/publish/http_status.hpp"
#include "wfod/daemon/publish/latency_stats.hpp"
#include "wfod/daemon/publish/live_state_writer.hpp"
#include "wfod/daemon/publish/log_text.hpp"
#include "wfod/daemon/publish/publication.hpp"
#include "wfod/daemon/publish/publication_text.hpp"
#include "wfod/daemon/publish/signal_follower.hpp"
#include "wfod/daemon/publish/snapshot.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/daemon/store/checkpoint_store.hpp"
#include "wfod/daemon/store/crc32.hpp"
#include "wfod/daemon/store/live_state.hpp"
#include "wfod/daemon/store/sequence_store.hpp"
#include "wfod/daemon/store/state_dir_lock.hpp"
#include "wfod/daemon/store/state_dir_watch.hpp"
#include "wfod/daemon/store/symbol_history.hpp"
#include "wfod/feeds/bar_codec.hpp"
#include "wfod/feeds/bar_validator.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "worker.hpp"

namespace wfod::daemon::loop {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// How long a stop waits for the job running on the worker (docs/operations.md "Stopping"):
// with the bar flush and the checkpoints the whole stop stays within 5 s of SIGTERM.
inline constexpr std::chrono::milliseconds kWorkerStopBudget{2000};

inline double ms_between(Clock::time_point a, Clock::time_point b) {
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
  // Feeds only: the session's state from the socket's monitor (after `sock`: destroyed
  // before it).
  FeedLink link;
  std::unique_ptr<SocketMonitor> monitor;
};

// The Publisher's seams over the daemon's own (daemon_jobs.cpp): the sequence store and the
// PUB socket, both opened by start_up after the Daemon is made, and its events as the log
// lines the integration tests and operators read.
class SequenceNumbers final : public PublicationNumbers {
 public:
  explicit SequenceNumbers(std::optional<SequenceStore>& seqs) : seqs_(seqs) {}
  Result<uint64_t> next(std::string_view symbol, std::string_view strategy) override;
  Status top_up(std::string_view symbol, std::string_view strategy) override;

 private:
  std::optional<SequenceStore>& seqs_;
};

class PubSocketSink final : public MessageSink {
 public:
  explicit PubSocketSink(const std::unique_ptr<WatchedSocket>& pub) : pub_(pub) {}
  SendResult send(std::string_view topic, std::string_view payload) override;

 private:
  const std::unique_ptr<WatchedSocket>& pub_;
};

class PublicationLog final : public PublisherEvents {
 public:
  void selection_withheld(const PublicationKey& key, std::string_view reason) override;
  void behind_published(const PublicationKey& key, int64_t window_last_ts,
                        int64_t published_last_ts) override;
  void caught_up(const PublicationKey& key) override;
  void not_persisted(const PublicationKey& key, std::string_view error,
                     uint64_t suppressed) override;
  void no_sequence_number(const PublicationKey& key, std::string_view error,
                          uint64_t suppressed) override;
  void sequence_numbers_back() override;
  void send_failed(const PublicationKey& key, std::string_view error) override;
  void top_up_failed(const PublicationKey& key, std::string_view error,
                     uint64_t suppressed) override;
};

// The BarKeeper's seams over the loop: an Asio timer, and its events as the log lines the
// integration tests and operators read, with the follow-ups the Daemon gives it.
class AsioLoopTimer final : public LoopTimer {
 public:
  explicit AsioLoopTimer(asio::io_context& io) : timer_(io) {}
  void start(std::chrono::milliseconds after, std::function<void()> fired) override;
  void cancel() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

class BarKeeperLog final : public BarKeeperEvents {
 public:
  void log_failing(const SymbolState& sym, const IoError& error) override;
  void log_recovered(const SymbolState& sym) override;
  void sync_failed(const IoError& error) override;
  void file_lost(const SymbolState& sym, const IoError& error) override;
  void file_back(const SymbolState& sym) override;
  void committed(SymbolState& sym, size_t bars) override;
  void synced() override { on_synced(); }

  std::function<void(SymbolState&, size_t)> on_committed;
  std::function<void()> on_synced;
};

// The SignalGate's events as log lines.
class SignalLog final : public SignalEvents {
 public:
  void send_failed(const PublicationKey& key, std::string_view error) override;
  void stopped(const PublicationKey& key, size_t bar, std::string_view error) override;
  void unknown_positions(const PublicationKey& key, uint64_t seq, std::string_view why) override;
  void not_followed(const PublicationKey& key, std::string_view error) override;
  void following(const PublicationKey& key, uint64_t combo, uint64_t seq, size_t bar) override;
  void resume_later(const PublicationKey& key, std::string_view error) override;
};

// The RunDispatcher's seams over the daemon's own: the Worker (the job's body, then its
// result posted back to the loop), and its events as log lines (and sd_notify's STATUS).
class WorkerHandOff final : public JobHandOff {
 public:
  WorkerHandOff(asio::io_context& io, Worker& worker) : io_(io), worker_(worker) {}
  void post(JobTicket ticket) override;
  RunDispatcher* results = nullptr;  // set by the Daemon

 private:
  asio::io_context& io_;
  Worker& worker_;
};

class RunLog final : public RunEvents {
 public:
  void started(const PublicationKey& key, size_t bars, size_t window) override;
  void coalesced(const PublicationKey& key, uint64_t so_far) override;
  void dropped(const PublicationKey& key) override;
  void live_missing(const PublicationKey& key, std::string_view why) override;
  void stream_opened(const PublicationKey& key, const JobResult& result) override;
  void fell_back(std::string_view from, std::string_view to, std::string_view error) override;
  void fallback_failed(std::string_view from, std::string_view error) override;
  void failed(const PublicationKey& key, std::string_view error) override;
  void empty(const PublicationKey& key, size_t window, uint64_t evaluated,
             double elapsed_ms) override;
  void waiting_for_bars(const PublicationKey& key, const SymbolStrategy& stream,
                        size_t history) override;
  void next_run_after(const PublicationKey& key, const SymbolStrategy& stream) override;
};

// One HTTP status request: read the head (bounded in size and time), answer, close.
struct HttpSession {
  explicit HttpSession(asio::ip::tcp::socket s) : sock(std::move(s)), timer(sock.get_executor()) {}
  asio::ip::tcp::socket sock;
  asio::steady_timer timer;
  std::string request;
  std::string reply;
  bool answering = false;  // its request is read: no longer a candidate to close at the cap
  void close() {
    boost::system::error_code ignored;
    sock.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    sock.close(ignored);
    timer.cancel();
  }
};

// The RunPublication the dispatcher calls is Daemon::publish.
class Daemon final : private RunPublication {
 public:
  Daemon(config::Config config, std::string config_path)
      : cfg_(std::move(config)),
        config_path_(std::move(config_path)),
        signals_(io_, SIGINT, SIGTERM, SIGHUP) {
    keeper_log_.on_committed = [this](SymbolState& sym, size_t bars) {
      dispatcher_.on_bars(sym, bars, batch_received_);
    };
    hand_off_.results = &dispatcher_;
    keeper_log_.on_synced = [this] { signal_gate_.ready_all(streams_); };
  }

  int run();
  // The stop left a job running on the worker (Worker::stop_within): the caller must end the
  // process without destroying this Daemon (the job still uses its streams).
  bool worker_abandoned() const { return worker_abandoned_; }

 private:
  bool start_up();
  // Raises the soft RLIMIT_NOFILE to the hard one; warns when it is below what the
  // configuration may hold at once.
  void check_open_files_limit();
  bool raise_seq_floors();
  bool open_symbol(const config::SymbolConfig& s);
  void add_stream(const config::StrategyConfig& s, const std::string& symbol);
  bool open_sockets();
  void restore_live_state(const PublicationKey& key, SymbolStrategy& stream);

  void run_busy_polling(std::chrono::microseconds busy_poll);
  void arm_feed(WatchedSocket& f);
  void drain_feed(WatchedSocket& f);
  // A feed socket's monitor event (FeedLink): connected, (re)connecting, disconnected.
  void on_feed_event(WatchedSocket& f, const SocketEvent& e);
  // Re-connects the feeds whose session ended without libzmq reconnecting them, and waits
  // for the next such check.
  void arm_feed_check();
  void check_feeds();
  void on_message(std::span<const std::string_view> frames, const WatchedSocket& feed);
  // `feed`: the endpoint the message came from (PROTOCOL §1: each reject line names it).
  void log_reject(const feeds::Reject& r, std::string_view where, std::string_view feed);
  void log_gap(const feeds::SeqGap& g, std::string_view symbol, std::string_view feed);
  // The state directory and the open bar logs, every second and at stop (StateDirWatch,
  // BarStore::check_file): a problem degrades health and is logged once when it starts.
  void arm_storage_check();
  void check_storage();

  void open_streams_at_start();
  // SIGTERM / SIGINT during open_streams_at_start: flush the bar logs and end the process.
  [[noreturn]] void stop_while_opening(int signo, size_t opened, size_t streams);
  bool restore_checkpoint(const PublicationKey& key, SymbolStrategy& stream,
                          const HistorySnapshot& snap);
  void save_checkpoints_at_stop();
  // The run's publication through publisher_ (its rules), then the stream's winners, its
  // signals' new combo and its live state.
  void publish(const PublicationKey& key, SymbolStrategy& stream, const HistorySnapshot& snap,
               JobResult& r) override;

  // at_start: a failure stops the start-up; on SIGHUP it is logged and HTTP stays off.
  bool open_http(bool at_start);
  void accept_http();
  // A new connection, within [daemon] max_http_connections: at the cap the oldest one still
  // sending its request is closed first, or, when every one is being answered, this one gets
  // 503 "too many connections".
  void admit_http(asio::ip::tcp::socket sock);
  void serve_http(std::shared_ptr<HttpSession> s);
  size_t http_open() const;
  // A connection refused or closed at a cap (snapshot or HTTP), logged under one rate limit.
  void log_connection_cap(feeds::RejectLogLimiter& limit, std::string_view socket, size_t open,
                          int max, std::string_view what);

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

  // Due runs to the worker and their results back (core/run_dispatcher.cpp); it owns the
  // backend and those a fallback retired. Before the streams: a backend outlives the engine
  // streams it opened (their slots are in streams_). Its references are to members below.
  RunLog run_log_;
  WorkerHandOff hand_off_{io_, worker_};
  RunDispatcher dispatcher_{streams_,  keeper_,  signal_gate_, *this,
                            hand_off_, run_log_, cfg_.daemon,  storage_alarms_};
  // Problems of the state directory and of the files rewritten in it (seq, live state,
  // checkpoints): health degraded while raised; their log lines share one rate limit.
  // Before the stores: the live-state writer and the worker report into it to the end.
  StorageAlarms storage_alarms_{20, std::chrono::seconds(10)};
  std::optional<StateDirLock> state_lock_;  // <state_dir>/wfod.lock, held while we run
  std::optional<SequenceStore> seqs_;
  std::optional<LiveStateStore> live_;          // per-stream winners for live_oos across restarts
  std::optional<LiveStateWriter> live_writer_;  // saves them off the loop thread
  std::optional<CheckpointStore> checkpoints_;  // exact stream states: a restart resumes
  std::optional<StateDirWatch> state_dir_;      // is state_dir still there and writable?
  asio::steady_timer storage_timer_{io_};
  // Every symbol's bars on disk and in memory, the feed path, the fsync policy and what
  // waits on it (core/bar_keeper.cpp), over the loop's two timers.
  AsioLoopTimer sync_timer_{io_};   // fsync = batch: the 50 ms sync, disk retries
  AsioLoopTimer group_timer_{io_};  // the group commit of results awaiting a sync
  BarKeeperLog keeper_log_;
  BarKeeper keeper_{keeper_log_, sync_timer_, group_timer_};
  feeds::RejectLogLimiter reject_log_{20, std::chrono::seconds(10)};
  // Publisher seq gaps are logged under their own limit: a publisher whose every bar is a
  // gap must not flood the log, nor crowd out the reject lines.
  feeds::RejectLogLimiter gap_log_{20, std::chrono::seconds(10)};
  StreamMap streams_;
  uint64_t snapshot_dropped_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  bool worker_abandoned_ = false;
  // What run() returns (exit_codes.hpp): set by a failed start-up's cause, or by shut_down()
  // when accepted bars could not be written.
  int exit_code_ = kExitOk;
  Clock::time_point batch_received_ = Clock::now();  // the loop woke with the feed batch
  LatencyStats latency_;

  std::optional<asio::ip::tcp::acceptor> http_;
  std::list<std::weak_ptr<HttpSession>> http_sessions_;  // open ones, oldest first
  uint64_t http_refused_ = 0;
  asio::steady_timer http_retry_{io_};  // an accept that failed for want of descriptors
  // Lines about connections refused at a cap, per socket (each its own rate limit).
  feeds::RejectLogLimiter http_cap_log_{20, std::chrono::seconds(10)};
  feeds::RejectLogLimiter snapshot_cap_log_{20, std::chrono::seconds(10)};
  std::unique_ptr<CurveSecurity> curve_;  // [curve]: keys and the ZAP decisions
  std::unique_ptr<WatchedSocket> zap_;    // inproc://zeromq.zap.01, answered on the loop
  feeds::RejectLogLimiter zap_log_{20, std::chrono::seconds(10)};
  uint64_t curve_denied_ = 0;
  // The last SIGHUP's outcome and the refused ones (health last_reload, /metrics).
  std::optional<HealthInput::Reload> last_reload_;
  uint64_t reload_failures_ = 0;
  std::unique_ptr<WatchedSocket> pub_, rep_;
  // Publications (PROTOCOL §2) by their rules: the last one per stream (snapshots), the
  // window floor, the PUB's drops (publications and signals).
  SequenceNumbers seq_numbers_{seqs_};
  PubSocketSink pub_sink_{pub_};
  PublicationLog publication_log_;
  Publisher publisher_{seq_numbers_, pub_sink_, storage_alarms_, publication_log_};
  // Per-bar signals (PROTOCOL §2a) gated on durable bars and undecided runs.
  SignalLog signal_log_;
  SignalGate signal_gate_{cfg_.publish.signals, keeper_, publisher_, signal_log_};
  // The snapshot socket's connections (their fds, from its monitor), capped in the ZAP
  // handler at [daemon] max_snapshot_connections. After rep_: destroyed before it.
  std::unique_ptr<SocketMonitor> snapshot_monitor_;
  std::set<uint32_t> snapshot_connections_;
  uint64_t snapshot_refused_ = 0;
  std::vector<std::unique_ptr<WatchedSocket>> feeds_;
  asio::steady_timer feed_timer_{io_};                              // the next FeedLink::check_at
  feeds::RejectLogLimiter feed_log_{20, std::chrono::seconds(10)};  // disconnect lines
  Worker worker_;  // last: joined before anything its jobs reference is destroyed
};

}  // namespace wfod::daemon::loop
