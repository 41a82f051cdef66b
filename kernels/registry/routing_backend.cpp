// The routing backend behind "auto" (routing_backend.hpp): the device backend's refusals, asked
// for before each call, send that call to the host backend, whose results then name it.
#include "registry/routing_backend.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "wfod/selection/selection_extension.hpp"

namespace wfod::detail {
namespace {

class RoutingBackend final : public Backend, public selection::SelectionExtension {
 public:
  RoutingBackend(std::unique_ptr<Backend> device, std::unique_ptr<Backend> host)
      : device_(std::move(device)), host_(std::move(host)) {}

  std::string_view name() const override { return device_->name(); }
  // Whatever either backend runs (what the device refuses, the host answers for: a stream of
  // a rules strategy, SPEC §5a, or with stops, SPEC §5b, runs on the host).
  Support supports(Work work, const StrategySpec& strategy) const override {
    return device_takes(work, strategy) ? Support::yes() : host_->supports(work, strategy);
  }

  // Where the strategy's sweeps run: the device's preparation, or the host's (which holds
  // nothing) for what the device refuses.
  std::shared_ptr<PreparedHistory> prepare(const HistoryView& h, const StrategySpec& s,
                                           const PrepareSpec& spec) override {
    return on(Work::sweep, s).prepare(h, s, spec);
  }
  // The backend the sweep would run on.
  SweepMemory sweep_memory(const SweepRequest& req) const override {
    return device_takes(Work::sweep, req.strategy) ? device_->sweep_memory(req)
                                                   : host_->sweep_memory(req);
  }
  SweepResult sweep(const SweepRequest& req) override {
    return on(Work::sweep, req.strategy).sweep(req);
  }
  std::vector<Metrics> evaluate(const SweepRequest& req, std::span<const uint64_t> ids) override {
    return on(Work::sweep, req.strategy).evaluate(req, ids);
  }
  std::vector<Summary> block_summaries(const SweepRequest& req,
                                       std::span<const size_t> cuts) override {
    return on(Work::selection, req.strategy).block_summaries(req, cuts);
  }
  // Where the sweep of the strategy runs: the device backend (which answers positions for
  // every family it sweeps; the cuda one on the host) unless it refuses the strategy (a rules
  // program too deep for a device thread, SPEC §5a), whose positions the host backend then
  // gives, as it gave the sweep.
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& s,
                                const Combo& c) override {
    return on(Work::sweep, s).positions(h, s, c);
  }
  // positions() runs where the sweep runs: on the device backend (this is its answer) or on
  // the host backend (cpu, which keeps no state between calls: its positions and sweeps
  // share nothing).
  bool positions_overlap_sweep() const override { return device_->positions_overlap_sweep(); }
  // Per strategy, like every call: the device's source where the device runs the strategy and
  // has one, else the host's (cuda has none: auto follows a rules winner on the cpu backend's
  // positions).
  PositionsOf positions_source() const override {
    PositionsOf device = device_->positions_source(), host = host_->positions_source();
    if (!device || !host) return device ? device : host;
    const Backend* dev = device_.get();
    return [dev, device, host](const HistoryView& h, const StrategySpec& s, const Combo& c) {
      return dev->supports(Work::sweep, s).ok() ? device(h, s, c) : host(h, s, c);
    };
  }
  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    return on(Work::stream, spec.strategy).open_stream(spec, h);
  }
  // The device's answers: streams of the families it refuses open on the host backend, but a
  // caller planning for every family must plan for the device's.
  bool streams_bounded() const override { return device_->streams_bounded(); }
  bool streams_open_concurrently() const override { return device_->streams_open_concurrently(); }
  bool runs_on_device() const override { return device_->runs_on_device(); }
  uint64_t device_memory_free() const override { return device_->device_memory_free(); }
  // The backend the stream would open on: the device's where it takes the family.
  StreamMemory stream_memory(const StreamSpec& spec) const override {
    return device_takes(Work::stream, spec.strategy) ? device_->stream_memory(spec)
                                                     : host_->stream_memory(spec);
  }
  // Where open_stream opens it: a stream the device takes restores there (its refusal
  // included, "the cuda backend restores no streams": the caller then opens and replays); one
  // it refuses (a grid with stops, SPEC §5b) was opened, and checkpointed, on the host, which
  // restores it.
  std::unique_ptr<Stream> restore_stream(const StreamSpec& spec,
                                         std::span<const uint8_t> blob) override {
    return on(Work::stream, spec.strategy).restore_stream(spec, blob);
  }

  selection::SelectionExtension* selection() override { return this; }
  // The device's extension where it takes the family (its refusals for the plan go up to
  // selection::robust_scores, which runs the host pipeline on this backend); the host
  // backend's robust selection where it does not.
  selection::RobustScores robust_scores(const SweepRequest& req,
                                        const selection::RobustOptions& options) override {
    if (!device_takes(Work::selection, req.strategy))
      return selection::robust_scores(*host_, req, options);
    if (selection::SelectionExtension* ext = device_->selection())
      return ext->robust_scores(req, options);
    return selection::host_robust_scores(*device_, req, options);
  }
  // What the device backend kept of its sweep of this request (the sweep went there when it
  // takes the family); nothing when the host ran it.
  std::optional<std::vector<double>> kept_returns(const SweepRequest& req,
                                                  const Combo& combo) override {
    if (!device_takes(Work::sweep, req.strategy)) return std::nullopt;
    selection::SelectionExtension* ext = device_->selection();
    return ext ? ext->kept_returns(req, combo) : std::nullopt;
  }

 private:
  Backend& on(Work work, const StrategySpec& strategy) {
    return device_takes(work, strategy) ? *device_ : *host_;
  }
  // Whether "auto" gives the device this work. Rules strategies (SPEC §5a) stay on the host
  // under auto: the cuda backend's rules path (kernels/cuda/rules_*) was merged on 2026-12-07
  // with its device parity run (CudaRulesParity) still to come, and auto must not move a
  // verified path to an unverified one. `--backend cuda` runs them on the device; drop this
  // clause once CudaRulesParity has passed on a GPU.
  bool device_takes(Work work, const StrategySpec& strategy) const {
    return strategy.grid.family != Family::rules && device_->supports(work, strategy).ok();
  }

  std::unique_ptr<Backend> device_;
  std::unique_ptr<Backend> host_;
};

}  // namespace

std::unique_ptr<Backend> make_routing_backend(std::unique_ptr<Backend> device,
                                              std::unique_ptr<Backend> host) {
  if (!device || !host) throw std::invalid_argument("the routing backend needs two backends");
  return std::make_unique<RoutingBackend>(std::move(device), std::move(host));
}

}  // namespace wfod::detail
