// The Daemon: the loop, its sockets and threads, composing the parts in daemon/core (the
// BarKeeper: bars on disk and in memory; the SignalGate; the RunDispatcher: runs and the
// worker; the PublicationStep and the Publisher) over the seams of daemon_seams.hpp, with
// their log lines in daemon_logs.cpp. Its files: daemon.cpp (start-up and run),
// daemon_feeds.cpp (feed sockets, storage checks), daemon_endpoints.cpp (snapshot, ZAP,
// health), daemon_lifecycle.cpp (signals, reload, shutdown); the HTTP endpoint is
// http_endpoint.cpp. Internal to the wfod executable: everything here runs on the loop
// thread except the closures handed to the Worker and the streams' opening at start
// (open_streams_at_start's opener threads, while the loop waits).
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
#include "daemon_logs.hpp"
#include "daemon_seams.hpp"
#include "exit_codes.hpp"
#include "http_endpoint.hpp"
#include "notify.hpp"
#include "socket_monitor.hpp"
#include "watched_socket.hpp"
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

class Daemon {
 public:
  Daemon(config::Config config, std::string config_path)
      : cfg_(std::move(config)),
        config_path_(std::move(config_path)),
        signals_(io_, SIGINT, SIGTERM, SIGHUP) {
    logs_.keeper.on_committed = [this](SymbolState& sym, size_t bars) {
      dispatcher_.on_bars(sym, bars, batch_received_);
    };
    logs_.keeper.on_synced = [this] { signal_gate_.ready_all(streams_); };
    hand_off_.results = &dispatcher_;
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
  DaemonLogs logs_;  // every part's log lines (daemon_logs.cpp)
  WorkerHandOff hand_off_{io_, worker_};
  RunDispatcher dispatcher_{streams_,  keeper_,    signal_gate_, publication_,
                            hand_off_, logs_.runs, cfg_.daemon,  storage_alarms_};
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
  BarKeeper keeper_{logs_.keeper, sync_timer_, group_timer_};
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

  HttpEndpoint http_{io_, cfg_, [this] { return health(); }};  // [publish] http
  // Lines about connections refused at the snapshot socket's cap (the HTTP endpoint has its
  // own rate limit).
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
  Publisher publisher_{seq_numbers_, pub_sink_, storage_alarms_, logs_.publication};
  // Per-bar signals (PROTOCOL §2a) gated on durable bars and undecided runs.
  SignalGate signal_gate_{cfg_.publish.signals, keeper_, publisher_, logs_.signals};
  // A run's publication: payload, the stream's new state, its live state saved.
  LiveStateSave live_save_{live_writer_};
  PublicationStep publication_{
      publisher_, signal_gate_, keeper_, live_save_, logs_.published, cfg_, [this] {
        return dispatcher_.backend_name();
      }};
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
