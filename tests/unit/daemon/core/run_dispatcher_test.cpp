// Tests of scheduling and the worker hand-off (daemon/core/run_dispatcher.cpp): a run once the
// window fills and every k bars after; runs due while one is in flight collapse into one
// follow-up, started after the result is applied; a run holds its last bar's signal until
// its result is decided; results of replaced or removed streams, and after the stop, are
// dropped; a device backend's failure moves to the cpu and runs the same window again there,
// a host backend's is logged, a cpu that cannot be made keeps the failing backend; a result
// whose bars are not synced is published by the next sync pass while the follow-up starts;
// the first runs at start; robust selection's current combo. The worker is a queue of
// tickets answered by hand, the backends fakes, the clock fake, the publication recorded;
// the history is a BarKeeper on real logs (tests/support/keeper_rig.hpp).
#include "wfod/daemon/core/run_dispatcher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/keeper_rig.hpp"
#include "support/parts_fakes.hpp"
#include "support/publisher_fakes.hpp"

namespace wfod::daemon {
namespace {

using test::FakeBackend;
using test::Journal;
using test::SignalRecorder;
using test::Tickets;
using Clock = std::chrono::steady_clock;

class Publications final : public RunPublication {
 public:
  explicit Publications(Journal& journal) : journal_(journal) {}
  void publish(const PublicationKey& key, SymbolStrategy& stream, const HistorySnapshot& snap,
               JobResult& r) override {
    journal_.push_back("publish " + key.first + "." + key.second + " end=" + std::to_string(r.end) +
                       " snap=" + std::to_string(snap.end));
    stream.last_end = r.end;
  }

 private:
  Journal& journal_;
};

class RunRecorder final : public RunEvents {
 public:
  void started(const PublicationKey&, size_t, size_t) override {}
  void coalesced(const PublicationKey&, uint64_t n) override {
    lines.push_back("coalesced " + std::to_string(n));
  }
  void dropped(const PublicationKey&) override { lines.push_back("dropped"); }
  void live_missing(const PublicationKey&, std::string_view why) override {
    lines.push_back("live_missing " + std::string(why));
  }
  void stream_opened(const PublicationKey&, const JobResult&) override {
    lines.push_back("opened");
  }
  void fell_back(std::string_view from, std::string_view to, std::string_view error) override {
    lines.push_back("fell_back " + std::string(from) + " " + std::string(to) + " " +
                    std::string(error));
  }
  void fallback_failed(std::string_view from, std::string_view) override {
    lines.push_back("fallback_failed " + std::string(from));
  }
  void failed(const PublicationKey&, std::string_view error) override {
    lines.push_back("failed " + std::string(error));
  }
  void empty(const PublicationKey&, size_t, uint64_t, double) override { lines.push_back("empty"); }
  void waiting_for_bars(const PublicationKey&, const SymbolStrategy& s, size_t history) override {
    lines.push_back("waiting " + std::to_string(s.sched.min_bars() - history));
  }
  void next_run_after(const PublicationKey&, const SymbolStrategy& s) override {
    lines.push_back("next_run " + std::to_string(s.sched.bars_until_due()));
  }
  std::vector<std::string> lines;
};

// S0.trend: window 5, warmup 2 (a run needs 8 bars), every 3. The keeper's commits reach
// the dispatcher as in the daemon, with the batch's wake-up time `due_at`.
class Dispatch : public ::testing::Test {
 protected:
  explicit Dispatch(config::FsyncPolicy fsync = config::FsyncPolicy::none, bool device = true)
      : rig(1, fsync) {
    daemon.fsync = fsync;
    daemon.checkpoint_every_s = 60;
    cfg.name = "trend";
    cfg.symbols = {"S0"};
    cfg.spec.grid.fast = {2, 3};
    cfg.spec.grid.slow = {4};
    cfg.window = 5;
    cfg.warmup = 2;
    cfg.every = 3;
    rig.recorder.on_committed = [this](SymbolState& sym, size_t bars) {
      dispatcher.on_bars(sym, bars, due_at);
    };
    rig.recorder.on_synced = [this] { gate.ready_all(streams); };
    auto gpu = std::make_unique<FakeBackend>("gpu", device);
    first_backend = gpu.get();
    dispatcher.set_backend(std::move(gpu));
    add_stream();
  }
  SymbolStrategy& add_stream() {
    return streams.insert_or_assign(key, new_stream(cfg, rig.sym("S0"), ++generation))
        .first->second;
  }
  SymbolStrategy& stream() { return streams.at(key); }
  // `n` more bars, one batch.
  void bars(size_t n) {
    rig.batch("S0", next_ts, next_ts + static_cast<int64_t>(n) - 1);
    next_ts += static_cast<int64_t>(n);
  }
  // A run's result over its ticket's window: one combo to publish.
  static JobResult ok(const JobTicket& t) {
    JobResult r;
    r.end = t.input.request.window.end;
    r.sweep.top.push_back(Ranked{t.input.request.strategy.grid.decode(0), {}, 1.0});
    r.sweep.evaluated = 2;
    r.elapsed_ms = 1500;
    return r;
  }
  static JobResult failure(const JobTicket& t, std::string error) {
    JobResult r;
    r.end = t.input.request.window.end;
    r.error = std::move(error);
    r.backend_failed = true;
    return r;
  }
  // The worker's answer to the oldest ticket.
  void answer(const std::function<JobResult(const JobTicket&)>& make = ok) {
    ASSERT_FALSE(hand_off.queue.empty());
    JobTicket t = std::move(hand_off.queue.front());
    hand_off.queue.pop_front();
    dispatcher.on_result(t.key, t.generation, t.input.snap, make(t));
  }
  size_t at(const std::string& entry) const {
    const auto it = std::find(rig.journal.begin(), rig.journal.end(), entry);
    return static_cast<size_t>(it - rig.journal.begin());
  }
  bool has(const std::string& entry) const { return at(entry) < rig.journal.size(); }

  const PublicationKey key{"S0", "trend"};
  config::StrategyConfig cfg;
  config::DaemonConfig daemon;
  test::KeeperRig rig;
  Tickets hand_off{rig.journal};
  Publications publication{rig.journal};
  RunRecorder events;
  test::FakeNumbers numbers{rig.journal};
  test::RecordingSink sink{rig.journal};
  test::RecordingEvents publisher_events;
  StorageAlarms alarms{20, std::chrono::seconds(10)};
  Publisher publisher{numbers, sink, alarms, publisher_events};
  SignalRecorder signal_events;
  StreamMap streams;
  SignalGate gate{true, rig.keeper, publisher, signal_events};
  Clock::time_point now = Clock::time_point{} + std::chrono::seconds(100);
  Clock::time_point due_at = Clock::time_point{} + std::chrono::seconds(99);
  bool cpu_fails = false;
  RunDispatcher dispatcher{streams,
                           rig.keeper,
                           gate,
                           publication,
                           hand_off,
                           events,
                           daemon,
                           alarms,
                           [this]() -> std::unique_ptr<Backend> {
                             if (cpu_fails) throw std::runtime_error("no memory");
                             return std::make_unique<FakeBackend>("cpu", false);
                           },
                           [this] { return now; }};
  const Backend* first_backend = nullptr;
  uint64_t generation = 0;
  int64_t next_ts = 1;
};

TEST_F(Dispatch, ARunOnceTheWindowFillsThenEveryKBars) {
  bars(7);
  EXPECT_TRUE(hand_off.queue.empty());
  bars(1);
  ASSERT_EQ(hand_off.queue.size(), 1u);
  const JobTicket& t = hand_off.queue.front();
  EXPECT_EQ(t.input.request.window.end, 8u);
  EXPECT_EQ(t.input.request.window.bars, 5u);
  EXPECT_EQ(t.input.request.window.warmup, 2u);
  EXPECT_EQ(t.input.snap.end, 8u);
  EXPECT_EQ(t.backend, first_backend);
  EXPECT_EQ(t.generation, stream().generation);
  EXPECT_EQ(t.input.received, due_at);  // when the loop woke with the bars
  EXPECT_EQ(t.input.queued, now);
  EXPECT_EQ(t.plan.every, std::chrono::seconds(60));
  EXPECT_EQ(t.plan.fingerprint, stream().fingerprint_crc);
  answer();
  EXPECT_TRUE(has("publish S0.trend end=8 snap=8"));
  bars(2);
  EXPECT_TRUE(hand_off.queue.empty());
  bars(1);
  ASSERT_EQ(hand_off.queue.size(), 1u);
  EXPECT_EQ(hand_off.queue.front().input.request.window.end, 11u);
  EXPECT_EQ(dispatcher.durations().at("trend").count(), 1u);
}

TEST_F(Dispatch, RunsDueWhileOneIsInFlightCollapseIntoOneFollowUpAfterTheResult) {
  bars(8);
  bars(3);
  bars(3);
  EXPECT_EQ(events.lines, (std::vector<std::string>{"coalesced 1", "coalesced 2"}));
  EXPECT_EQ(hand_off.queue.size(), 1u);  // never a queue of runs
  answer();
  ASSERT_EQ(hand_off.queue.size(), 1u);
  EXPECT_EQ(hand_off.queue.front().input.request.window.end, 14u);  // on the latest bars
  EXPECT_LT(at("publish S0.trend end=8 snap=8"), at("post end=14 on gpu"));
  EXPECT_EQ(dispatcher.coalesced(), 2u);
  dispatcher.retire(stream());  // a reload removes it: its count stays
  streams.erase(key);
  EXPECT_EQ(dispatcher.coalesced(), 2u);
}

TEST_F(Dispatch, ARunHoldsItsLastBarsSignalUntilItsResultIsDecided) {
  bars(8);
  EXPECT_EQ(stream().signals.ready_end(100), 7u);
  answer();
  EXPECT_EQ(stream().signals.ready_end(100), 100u);
  bars(3);
  answer([](const JobTicket& t) {  // nothing to publish: decided all the same
    JobResult r;
    r.end = t.input.request.window.end;
    return r;
  });
  EXPECT_EQ(events.lines, (std::vector<std::string>{"empty"}));
  EXPECT_EQ(stream().signals.ready_end(100), 100u);
}

TEST_F(Dispatch, AResultOfAReplacedOrRemovedStreamIsDropped) {
  bars(8);
  add_stream();  // a reload changed the strategy: a new generation
  answer();
  EXPECT_EQ(events.lines, (std::vector<std::string>{"dropped"}));
  EXPECT_FALSE(has("publish S0.trend end=8 snap=8"));
  bars(3);  // the new stream's first run
  ASSERT_EQ(hand_off.queue.size(), 1u);
  streams.erase(key);
  answer();
  EXPECT_EQ(events.lines, (std::vector<std::string>{"dropped", "dropped"}));
  EXPECT_TRUE(hand_off.queue.empty());
}

TEST_F(Dispatch, ADeviceFailureMovesToTheCpuAndRunsTheSameWindowAgain) {
  bars(8);
  const JobTicket& first = hand_off.queue.front();
  const Backend* failed = first.backend;
  answer([](const JobTicket& t) { return failure(t, "cudaErrorLaunchFailure"); });
  EXPECT_EQ(events.lines, (std::vector<std::string>{"fell_back gpu cpu cudaErrorLaunchFailure"}));
  EXPECT_EQ(dispatcher.backend_name(), "cpu");
  EXPECT_EQ(dispatcher.fallbacks(), 1u);
  EXPECT_EQ(dispatcher.backend_error(), "cudaErrorLaunchFailure");
  ASSERT_EQ(hand_off.queue.size(), 1u);
  EXPECT_EQ(hand_off.queue.front().input.request.window.end, 8u);
  EXPECT_EQ(hand_off.queue.front().backend, &dispatcher.backend());
  EXPECT_FALSE(has("publish S0.trend end=8 snap=8"));
  EXPECT_EQ(failed->name(), "gpu");                // retired, still alive for jobs queued on it
  EXPECT_EQ(stream().signals.ready_end(100), 7u);  // held again by the re-run
  EXPECT_EQ(dispatcher.durations().count("trend"), 0u);  // failures are not durations
  answer();
  EXPECT_TRUE(has("publish S0.trend end=8 snap=8"));
}

class DispatchOnHost : public Dispatch {
 protected:
  DispatchOnHost() : Dispatch(config::FsyncPolicy::none, /*device=*/false) {}
};

TEST_F(DispatchOnHost, AHostBackendsFailureIsLoggedAndTheStreamWaitsForItsNextRun) {
  bars(8);
  answer([](const JobTicket& t) { return failure(t, "std::bad_alloc"); });
  EXPECT_EQ(events.lines, (std::vector<std::string>{"failed std::bad_alloc"}));
  EXPECT_EQ(dispatcher.backend_name(), "gpu");
  EXPECT_EQ(dispatcher.fallbacks(), 0u);
  EXPECT_TRUE(hand_off.queue.empty());
  EXPECT_EQ(stream().signals.ready_end(100), 100u);
  bars(3);
  EXPECT_EQ(hand_off.queue.size(), 1u);
}

TEST_F(Dispatch, ACpuThatCannotBeMadeKeepsTheFailingBackend) {
  cpu_fails = true;
  bars(8);
  answer([](const JobTicket& t) { return failure(t, "cudaErrorMemoryAllocation"); });
  EXPECT_EQ(events.lines,
            (std::vector<std::string>{"fallback_failed gpu", "failed cudaErrorMemoryAllocation"}));
  EXPECT_EQ(dispatcher.backend_name(), "gpu");
  EXPECT_EQ(dispatcher.fallbacks(), 0u);
  EXPECT_TRUE(hand_off.queue.empty());
}

TEST_F(Dispatch, AfterTheStopResultsAreDropped) {
  bars(8);
  bars(3);  // a follow-up is due
  dispatcher.stop();
  answer();
  EXPECT_FALSE(has("publish S0.trend end=8 snap=8"));
  EXPECT_TRUE(hand_off.queue.empty());
  EXPECT_EQ(events.lines, (std::vector<std::string>{"coalesced 1"}));
}

TEST_F(Dispatch, WhatTheSlotReportsBoundsTheHistoryAndLiveOosNullIsSaidOnce) {
  bars(8);
  auto with_slot = [](const JobTicket& t) {
    JobResult r = ok(t);
    r.slot_bars = 8;
    r.bounded = true;
    r.live_missing = "the bars since the last publication are no longer in memory";
    return r;
  };
  answer(with_slot);
  EXPECT_EQ(stream().taken, 8u);
  EXPECT_TRUE(stream().bounded);
  EXPECT_EQ(rig.sym("S0").history.keep(), 5u + 2 + 2);  // BarKeeper::set_needs ran
  bars(3);
  answer(with_slot);
  EXPECT_EQ(events.lines, (std::vector<std::string>{
                              "live_missing the bars since the last publication are no longer "
                              "in memory"}));
}

TEST_F(Dispatch, TheCurrentComboIsTheRestoredWinnerUntilSelectionChoosesOne) {
  stream().winner = stream().spec.grid.decode(1);
  bars(8);
  EXPECT_EQ(hand_off.queue.front().input.selected, std::optional<uint64_t>(1));
  answer([](const JobTicket& t) {
    JobResult r = ok(t);
    r.selection.emplace();
    r.selection->publish = Ranked{t.input.request.strategy.grid.decode(0), {}, 2.0};
    return r;
  });
  EXPECT_EQ(stream().selected, std::optional<uint64_t>(0));
  bars(3);
  EXPECT_EQ(hand_off.queue.front().input.selected, std::optional<uint64_t>(0));
}

TEST_F(Dispatch, AtStartAStreamRunsWaitsOrResumesItsCount) {
  streams.clear();
  bars(6);
  add_stream();
  dispatcher.start_first_runs();
  EXPECT_EQ(events.lines, (std::vector<std::string>{"waiting 2"}));
  streams.clear();
  bars(4);
  add_stream().sched.resume(1);  // resumed one bar after its last publication
  dispatcher.start_first_runs();
  EXPECT_EQ(events.lines.back(), "next_run 2");
  EXPECT_TRUE(hand_off.queue.empty());
  add_stream();  // a reload's new stream: the history is long enough
  dispatcher.start_if_due(key);
  EXPECT_EQ(hand_off.queue.size(), 1u);
}

class DispatchBatch : public Dispatch {
 protected:
  DispatchBatch() : Dispatch(config::FsyncPolicy::batch) {}
};

TEST_F(DispatchBatch, AResultOverUnsyncedBarsIsPublishedByTheNextSyncPass) {
  bars(8);
  bars(3);  // coalesced
  answer();
  // Not yet: its bars are written, not synced. The follow-up starts meanwhile.
  EXPECT_FALSE(has("publish S0.trend end=8 snap=8"));
  ASSERT_EQ(hand_off.queue.size(), 1u);
  EXPECT_EQ(stream().signals.ready_end(100), 7u);  // still held by the waiting result
  ASSERT_TRUE(rig.group_timer.fire());
  EXPECT_LT(at("post end=11 on gpu"), at("fdatasync"));
  EXPECT_LT(at("fdatasync"), at("publish S0.trend end=8 snap=8"));
  EXPECT_EQ(stream().signals.ready_end(100), 10u);  // released; the follow-up holds bar 10
}

TEST_F(DispatchBatch, AWaitingResultOfAStreamReplacedMeanwhileIsNotPublished) {
  bars(8);
  answer();
  add_stream();
  ASSERT_TRUE(rig.group_timer.fire());
  EXPECT_FALSE(has("publish S0.trend end=8 snap=8"));
}

}  // namespace
}  // namespace wfod::daemon
