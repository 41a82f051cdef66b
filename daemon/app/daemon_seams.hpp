// The parts' seams over the daemon's own (daemon_seams.cpp): what daemon/core asks of the loop,
// the worker, the sockets and the stores that only the executable has.
#pragma once

// <utility> first: Boost.Asio's awaitable.hpp uses std::exchange without including it.
// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "job_checkpoint.hpp"
#include "watched_socket.hpp"
#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/publication_step.hpp"
#include "wfod/daemon/core/publisher.hpp"
#include "wfod/daemon/core/run_dispatcher.hpp"
#include "wfod/daemon/publish/live_state_writer.hpp"
#include "wfod/daemon/store/sequence_store.hpp"
#include "worker.hpp"

namespace wfod::daemon::loop {

// The Publisher's: the sequence store and the PUB socket, both opened by start_up after the
// Daemon is made.
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

// The BarKeeper's: a timer of the loop.
class AsioLoopTimer final : public LoopTimer {
 public:
  explicit AsioLoopTimer(asio::io_context& io) : timer_(io) {}
  void start(std::chrono::milliseconds after, std::function<void()> fired) override;
  void cancel() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

// The RunDispatcher's: the Worker runs the job's body, then posts its result back to the loop.
class WorkerHandOff final : public JobHandOff {
 public:
  WorkerHandOff(asio::io_context& io, Worker& worker) : io_(io), worker_(worker) {}
  void post(JobTicket ticket) override;
  RunDispatcher* results = nullptr;  // set by the Daemon

 private:
  asio::io_context& io_;
  Worker& worker_;
};

// The PublicationStep's: the live-state writer's thread (started by start_up).
class LiveStateSave final : public LiveStateSink {
 public:
  explicit LiveStateSave(std::optional<LiveStateWriter>& writer) : writer_(writer) {}
  void save(const PublicationKey& key, LiveState state) override {
    writer_->post(key, std::move(state));  // written off the loop thread
  }

 private:
  std::optional<LiveStateWriter>& writer_;
};

}  // namespace wfod::daemon::loop
