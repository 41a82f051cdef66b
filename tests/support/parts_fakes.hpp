// Fakes of the seams of the daemon's parts above the BarKeeper (daemon/core: the signals, the
// runs), shared by their tests: a backend that only has a name and a device flag, the worker
// as a queue of tickets answered by hand, the signals' events kept as lines.
#pragma once

#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/publisher_fakes.hpp"
#include "wfod/backend.hpp"
#include "wfod/daemon/core/run_dispatcher.hpp"
#include "wfod/daemon/core/signal_gate.hpp"

namespace wfod::test {

using daemon::JobHandOff;
using daemon::JobTicket;
using daemon::SignalEvents;

class FakeBackend final : public Backend {
 public:
  FakeBackend(std::string name, bool device) : name_(std::move(name)), device_(device) {}
  std::string_view name() const override { return name_; }
  bool runs_on_device() const override { return device_; }
  // The dispatcher only hands the backend to the worker; these tests run no job.
  SweepResult sweep(const SweepRequest&) override { throw std::logic_error("not here"); }
  std::vector<Metrics> evaluate(const SweepRequest&, std::span<const uint64_t>) override {
    throw std::logic_error("not here");
  }
  std::vector<Summary> block_summaries(const SweepRequest&, std::span<const size_t>) override {
    throw std::logic_error("not here");
  }
  std::vector<int8_t> positions(const HistoryView&, const StrategySpec&, const Combo&) override {
    throw std::logic_error("not here");
  }

 private:
  std::string name_;
  bool device_;
};

// The worker: tickets queue up until a test answers them.
class Tickets final : public JobHandOff {
 public:
  explicit Tickets(Journal& journal) : journal_(journal) {}
  void post(JobTicket t) override {
    journal_.push_back("post end=" + std::to_string(t.input.request.window.end) + " on " +
                       std::string(t.backend->name()));
    queue.push_back(std::move(t));
  }
  std::deque<JobTicket> queue;

 private:
  Journal& journal_;
};

// The signals' events as lines: "stopped 0", "unknown 2 why", "following 1 7 300", ...
class SignalRecorder final : public SignalEvents {
 public:
  void send_failed(const PublicationKey&, std::string_view error) override {
    lines.push_back("send_failed " + std::string(error));
  }
  void stopped(const PublicationKey&, size_t bar, std::string_view) override {
    lines.push_back("stopped " + std::to_string(bar));
  }
  void unknown_positions(const PublicationKey&, uint64_t seq, std::string_view why) override {
    lines.push_back("unknown " + std::to_string(seq) + " " + std::string(why));
  }
  void not_followed(const PublicationKey&, std::string_view) override {
    lines.push_back("not_followed");
  }
  void following(const PublicationKey&, uint64_t combo, uint64_t seq, size_t bar) override {
    lines.push_back("following " + std::to_string(combo) + " " + std::to_string(seq) + " " +
                    std::to_string(bar));
  }
  void resume_later(const PublicationKey&, std::string_view) override {
    lines.push_back("resume_later");
  }
  std::vector<std::string> lines;
};

}  // namespace wfod::test
