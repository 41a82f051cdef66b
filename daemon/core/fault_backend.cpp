// The test-only faulting Backend: counts optimisations (sweep and Stream::advance together,
// so it keeps working when the worker moves to streams) and throws from the configured one
// on; everything else is passed to the wrapped backend untouched.
#include "wfod/daemon/core/fault_backend.hpp"

#include <atomic>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "wfod/selection/selection_extension.hpp"

namespace wfod::daemon {
namespace {

struct Counter {
  std::atomic<uint64_t> calls{0};
  uint64_t fail_from = 0;
  void tick() {
    const uint64_t n = ++calls;
    if (n >= fail_from) {
      throw std::runtime_error("injected backend fault (" + std::string(kBackendFaultEnv) +
                               "): optimisation " + std::to_string(n) +
                               ": CUDA error 2 (cudaErrorMemoryAllocation) out of memory");
    }
  }
};

class FaultStream final : public Stream {
 public:
  FaultStream(std::unique_ptr<Stream> inner, std::shared_ptr<Counter> counter)
      : inner_(std::move(inner)), counter_(std::move(counter)) {}
  SweepResult advance(std::span<const Bar> new_bars) override {
    counter_->tick();
    return inner_->advance(new_bars);
  }
  StreamStats stats() const override { return inner_->stats(); }

 private:
  std::unique_ptr<Stream> inner_;
  std::shared_ptr<Counter> counter_;
};

class FaultBackend final : public Backend {
 public:
  FaultBackend(std::unique_ptr<Backend> inner, uint64_t fail_from)
      : inner_(std::move(inner)),
        name_(std::string(inner_->name()) + "+fault"),
        counter_(std::make_shared<Counter>()) {
    counter_->fail_from = fail_from;
  }
  std::string_view name() const override { return name_; }
  Support supports(Work work, const StrategySpec& s) const override {
    return inner_->supports(work, s);
  }
  SweepResult sweep(const SweepRequest& r) override {
    counter_->tick();
    return inner_->sweep(r);
  }
  std::vector<Metrics> evaluate(const SweepRequest& r, std::span<const uint64_t> ids) override {
    return inner_->evaluate(r, ids);
  }
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& s,
                                const Combo& c) override {
    return inner_->positions(h, s, c);
  }
  std::vector<Summary> block_summaries(const SweepRequest& r,
                                       std::span<const size_t> cuts) override {
    return inner_->block_summaries(r, cuts);
  }
  PositionsOf positions_source() const override { return inner_->positions_source(); }
  selection::SelectionExtension* selection() override { return inner_->selection(); }
  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    return std::make_unique<FaultStream>(inner_->open_stream(spec, h), counter_);
  }
  // It fails as a device would (the daemon must move to the cpu backend); its streams wrap
  // the inner ones without their bar queries, so they are not bounded.
  bool runs_on_device() const override { return true; }
  uint64_t device_memory_free() const override { return inner_->device_memory_free(); }
  StreamMemory stream_memory(const StreamSpec& spec) const override {
    return inner_->stream_memory(spec);
  }

 private:
  std::unique_ptr<Backend> inner_;
  std::string name_;
  std::shared_ptr<Counter> counter_;
};

}  // namespace

std::optional<uint64_t> parse_backend_fault(const std::string& text) {
  constexpr std::string_view kPrefix = "sweep:";
  if (text.rfind(kPrefix, 0) != 0) return std::nullopt;
  uint64_t n = 0;
  const char* b = text.data() + kPrefix.size();
  const char* e = text.data() + text.size();
  const auto [end, ec] = std::from_chars(b, e, n);
  if (ec != std::errc() || end != e || n == 0) return std::nullopt;
  return n;
}

std::unique_ptr<Backend> make_fault_backend(std::unique_ptr<Backend> inner, uint64_t fail_from) {
  return std::make_unique<FaultBackend>(std::move(inner), fail_from);
}

}  // namespace wfod::daemon
