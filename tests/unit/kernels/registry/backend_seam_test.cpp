// The backend seam (wfod/backend.hpp): the capability query (Backend::supports), refusals as
// wfod::Unsupported (still a std::invalid_argument for every existing catch site), the
// routing backend "auto" hands out with a device (registry/routing_backend.cpp), and robust
// selection through the optional extension with the host pipeline as its fallback.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "registry/routing_backend.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/daemon/core/engine_slot.hpp"
#include "wfod/selection/selection_extension.hpp"
#include "wfod/support.hpp"

namespace wfod {
namespace {

Grid seam_ma_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3, 6};
  g.slow = {12, 25};
  return g;
}

Grid channel_grid() {
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {10, 20};
  return g;
}

SweepRequest request_on(const HistoryView& h, const Grid& g) {
  SweepRequest req;
  req.history = h;
  req.strategy.grid = g;
  req.window = WindowSpec{h.size(), 200, default_warmup(g)};
  req.threads = 1;
  return req;
}

// A stand-in for a device backend: answers through cpu what it accepts, refuses the
// channel_breakout family's sweeps, selection and streams by name, counts what it ran, and
// has a selection extension that can be told to refuse its plan.
class PickyBackend final : public Backend, public selection::SelectionExtension {
 public:
  std::string_view name() const override { return "picky"; }
  Support supports(Work, const StrategySpec& s) const override {
    if (s.grid.family == Family::channel_breakout)
      return Support::no("the picky backend does not run the channel_breakout family");
    return Support::yes();
  }
  SweepResult sweep(const SweepRequest& r) override {
    require(supports(Work::sweep, r.strategy));
    ++ran;
    return cpu_->sweep(r);
  }
  std::vector<Metrics> evaluate(const SweepRequest& r, std::span<const uint64_t> ids) override {
    require(supports(Work::sweep, r.strategy));
    ++ran;
    return cpu_->evaluate(r, ids);
  }
  std::vector<Summary> block_summaries(const SweepRequest& r,
                                       std::span<const size_t> cuts) override {
    require(supports(Work::selection, r.strategy));
    ++ran;
    return cpu_->block_summaries(r, cuts);
  }
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& s,
                                const Combo& c) override {
    ++ran;
    return cpu_->positions(h, s, c);
  }
  std::unique_ptr<Stream> open_stream(const StreamSpec& spec, const HistoryView& h) override {
    require(supports(Work::stream, spec.strategy));
    ++ran;
    return cpu_->open_stream(spec, h);
  }
  selection::SelectionExtension* selection() override { return this; }
  selection::RobustScores robust_scores(const SweepRequest& r,
                                        const selection::RobustOptions& o) override {
    require(supports(Work::selection, r.strategy));
    ++extension_ran;
    if (refuse_plan) throw Unsupported("picky: the plan does not fit");
    return selection::host_robust_scores(*cpu_, r, o);
  }
  // Returns it was told to keep, for any request of a family it takes.
  std::optional<std::vector<double>> kept_returns(const SweepRequest& r, const Combo&) override {
    if (!supports(Work::sweep, r.strategy).ok()) return std::nullopt;
    return kept;
  }

  int ran = 0;
  std::optional<std::vector<double>> kept;
  int extension_ran = 0;
  bool refuse_plan = false;

 private:
  std::unique_ptr<Backend> cpu_ = make_backend("cpu");
};

void expect_same(const SweepResult& a, const SweepResult& b) {
  ASSERT_EQ(a.top.size(), b.top.size());
  for (size_t i = 0; i < a.top.size(); ++i) {
    EXPECT_EQ(a.top[i].combo.id, b.top[i].combo.id);
    EXPECT_EQ(a.top[i].objective, b.top[i].objective);
  }
  EXPECT_EQ(a.evaluated, b.evaluated);
  EXPECT_EQ(a.ranked, b.ranked);
}

void expect_same(const selection::RobustScores& a, const selection::RobustScores& b) {
  ASSERT_EQ(a.objective.size(), b.objective.size());
  for (size_t i = 0; i < a.objective.size(); ++i) {
    EXPECT_EQ(a.state[i], b.state[i]);
    if (!std::isnan(a.objective[i])) {
      EXPECT_EQ(a.objective[i], b.objective[i]);
    } else {
      EXPECT_TRUE(std::isnan(b.objective[i]));
    }
  }
  EXPECT_EQ(a.ranked, b.ranked);
}

// The routing backend "auto" builds, over a PickyBackend as its device and cpu as its host;
// another cpu backend beside it to compare with.
struct Routed {
  Routed() {
    auto device = std::make_unique<PickyBackend>();
    picky = device.get();
    backend = detail::make_routing_backend(std::move(device), make_backend("cpu"));
  }
  PickyBackend* picky = nullptr;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Backend> cpu = make_backend("cpu");
};

TEST(BackendSeam, HostBackendsRefuseNothingAndHaveNoSelectionExtension) {
  for (const char* name : {"cpu", "cpu_ref"}) {
    SCOPED_TRACE(name);
    auto be = make_backend(name);
    for (const Grid& g : {seam_ma_grid(), channel_grid()})
      for (Work w : {Work::sweep, Work::selection, Work::stream}) {
        StrategySpec s;
        s.grid = g;
        EXPECT_TRUE(be->supports(w, s).ok());
      }
    EXPECT_EQ(be->selection(), nullptr);
  }
}

TEST(BackendSeam, RefusalsAreUnsupportedAndStillInvalidArguments) {
  const Series series = test::random_walk(600, 7);
  const HistoryView h = HistoryView::of(series);
  PickyBackend picky;
  const SweepRequest req = request_on(h, channel_grid());
  const Support s = picky.supports(Work::sweep, req.strategy);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.refusal, "the picky backend does not run the channel_breakout family");
  try {
    picky.sweep(req);
    FAIL() << "a refused sweep ran";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()), s.refusal);
  }
  EXPECT_THROW(picky.sweep(req), std::invalid_argument);
  EXPECT_EQ(picky.ran, 0);

  // The defaults: a backend that restores no streams, a stream that answers no queries.
  auto ref = make_backend("cpu_ref");
  StreamSpec spec;
  spec.strategy.grid = seam_ma_grid();
  spec.window = 200;
  spec.warmup = default_warmup(spec.strategy.grid);
  try {
    ref->restore_stream(spec, {});
    FAIL() << "cpu_ref restored a stream";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()), "the cpu_ref backend restores no streams");
  }
  auto stream = ref->open_stream(spec, h);
  EXPECT_THROW(stream->checkpoint(), Unsupported);
  EXPECT_THROW(stream->positions(spec.strategy.grid.decode(0), 0, 1), Unsupported);
}

TEST(RoutingBackend, SendsWhatTheDeviceRefusesToTheHost) {
  const Series series = test::random_walk(600, 11);
  const HistoryView h = HistoryView::of(series);
  Routed r;
  EXPECT_EQ(r.backend->name(), "picky");

  const SweepRequest on_device = request_on(h, seam_ma_grid());
  const SweepRequest on_host = request_on(h, channel_grid());
  for (Work w : {Work::sweep, Work::selection, Work::stream})
    EXPECT_TRUE(r.backend->supports(w, on_host.strategy).ok());

  expect_same(r.backend->sweep(on_device), r.cpu->sweep(on_device));
  EXPECT_EQ(r.picky->ran, 1);
  expect_same(r.backend->sweep(on_host), r.cpu->sweep(on_host));
  const std::vector<uint64_t> ids{0, 1};
  r.backend->evaluate(on_host, ids);
  const std::vector<size_t> cuts{on_host.window.first() + 100};
  r.backend->block_summaries(on_host, cuts);
  StreamSpec spec;
  spec.strategy = on_host.strategy;
  spec.window = 200;
  spec.warmup = on_host.window.warmup;
  EXPECT_NE(r.backend->open_stream(spec, h), nullptr);
  EXPECT_EQ(r.picky->ran, 1);  // none of the refused family reached the device

  // Positions and restoring streams go where the sweep and the stream went: to the host for
  // the family the device refuses (the stream it opened, it restores)...
  r.backend->positions(h, on_host.strategy, on_host.strategy.grid.decode(0));
  EXPECT_EQ(r.picky->ran, 1);
  const std::unique_ptr<Stream> hosted = r.backend->open_stream(spec, h);
  EXPECT_EQ(r.backend->restore_stream(spec, hosted->checkpoint())->stats().bars, h.size());
  // ... and to the device for the family it takes, its refusal included.
  r.backend->positions(h, on_device.strategy, on_device.strategy.grid.decode(0));
  EXPECT_EQ(r.picky->ran, 2);
  StreamSpec device_spec = spec;
  device_spec.strategy = on_device.strategy;
  try {
    r.backend->restore_stream(device_spec, {});
    FAIL() << "restored";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()), "the picky backend restores no streams");
  }
}

TEST(RoutingBackend, RobustSelectionUsesTheExtensionOrTheHostPipeline) {
  const Series series = test::random_walk(600, 13);
  const HistoryView h = HistoryView::of(series);
  Routed r;
  const selection::RobustOptions options;

  const SweepRequest on_device = request_on(h, seam_ma_grid());
  const auto want = selection::host_robust_scores(*r.cpu, on_device, options);
  expect_same(selection::robust_scores(*r.backend, on_device, options), want);
  EXPECT_EQ(r.picky->extension_ran, 1);
  // The extension refuses its plan: the host pipeline runs on the routed backend.
  r.picky->refuse_plan = true;
  const int ran = r.picky->ran;
  expect_same(selection::robust_scores(*r.backend, on_device, options), want);
  EXPECT_EQ(r.picky->extension_ran, 2);
  EXPECT_GT(r.picky->ran, ran);  // the host pipeline's evaluate() went to the device backend
  // A family the device refuses: cpu's host pipeline, the extension never asked.
  const SweepRequest on_host = request_on(h, channel_grid());
  expect_same(selection::robust_scores(*r.backend, on_host, options),
              selection::host_robust_scores(*r.cpu, on_host, options));
  EXPECT_EQ(r.picky->extension_ran, 2);
  // Without routing, a backend without the extension runs the host pipeline on itself.
  expect_same(selection::robust_scores(*r.cpu, on_device, options), want);
}

// select()'s kept returns come from the device backend behind the routing one, and never for
// a family whose sweep the host ran.
TEST(RoutingBackend, KeptReturnsComeFromTheDeviceBackend) {
  const Series series = test::random_walk(600, 13);
  const HistoryView h = HistoryView::of(series);
  Routed r;
  const SweepRequest on_device = request_on(h, seam_ma_grid());
  selection::SelectionExtension* ext = r.backend->selection();
  ASSERT_NE(ext, nullptr);
  const Combo combo = on_device.strategy.grid.decode(0);
  EXPECT_FALSE(ext->kept_returns(on_device, combo));
  r.picky->kept = std::vector<double>{0.5, -0.25};
  const auto kept = ext->kept_returns(on_device, combo);
  ASSERT_TRUE(kept);
  EXPECT_EQ(*kept, (std::vector<double>{0.5, -0.25}));
  EXPECT_FALSE(ext->kept_returns(request_on(h, channel_grid()), combo));
}

// The daemon's stream slot asks before it opens: a refused stream is a re-sweeping one, with
// the refusal as the reason it logs; an accepted one is the backend's own.
TEST(BackendSeam, EngineSlotOpensAReSweepingStreamWhereTheBackendRefuses) {
  const Series series = test::random_walk(600, 17);
  const HistoryView h = HistoryView::of(series);
  PickyBackend picky;
  StreamSpec spec;
  spec.window = 200;
  spec.threads = 1;
  spec.strategy.grid = channel_grid();
  spec.warmup = default_warmup(spec.strategy.grid);
  daemon::EngineSlot slot;
  slot.open(picky, spec, h);
  EXPECT_EQ(slot.fallback_reason(), "the picky backend does not run the channel_breakout family");
  EXPECT_FALSE(slot.stats().incremental);
  EXPECT_EQ(picky.ran, 0);

  spec.strategy.grid = seam_ma_grid();
  spec.warmup = default_warmup(spec.strategy.grid);
  slot.open(picky, spec, h);
  EXPECT_EQ(slot.fallback_reason(), "");
  EXPECT_TRUE(slot.stats().incremental);  // the cpu stream behind the picky backend
  EXPECT_EQ(picky.ran, 1);
}

}  // namespace
}  // namespace wfod
