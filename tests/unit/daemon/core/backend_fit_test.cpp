// What the daemon asks a backend before it runs a strategy's streams
// (daemon/core/backend_fit.hpp, spec-notes item 85): the seam's answers, never the name. A
// rules strategy (SPEC §5a) runs on cpu_ref (with robust selection too, and under the test
// fault backend, which forwards the positions source); cpu refuses it in its own words; a
// built-in family runs on both.
#include "wfod/daemon/core/backend_fit.hpp"

#include <gtest/gtest.h>

#include <string>

#include "wfod/config/config.hpp"
#include "wfod/daemon/core/fault_backend.hpp"

namespace wfod::daemon {
namespace {

StrategySpec rules_spec() {
  return config::parse_config(
             "[[strategy]]\nname = \"r\"\nsymbols = [\"X\"]\nfamily = \"rules\"\nwindow = 100\n"
             "[strategy.rules]\nparams = [\"fast\"]\nindicators = { f = \"ema($fast)\" }\n"
             "long_entry = \"close > f\"\n[strategy.grid]\nfast = [5, 10]\n"
             "stop_loss = [0, 0.02]\n",
             "t.toml")
      .strategies.at(0)
      .spec;
}

// A backend that refuses rules strategies for every kind of work (as cuda does).
class RefusesRules final : public Backend {
 public:
  std::string_view name() const override { return "stand-in"; }
  Support supports(Work, const StrategySpec& s) const override {
    if (s.grid.family == Family::rules)
      return Support::no("the stand-in backend does not run rules strategies");
    return Support::yes();
  }
  SweepResult sweep(const SweepRequest&) override { return {}; }
  std::vector<Metrics> evaluate(const SweepRequest&, std::span<const uint64_t>) override {
    return {};
  }
  std::vector<Summary> block_summaries(const SweepRequest&, std::span<const size_t>) override {
    return {};
  }
  std::vector<int8_t> positions(const HistoryView&, const StrategySpec&, const Combo&) override {
    return {};
  }
};

TEST(BackendFit, ARulesStrategyRunsWhereTheBackendSweepsAndFollowsIt) {
  const StrategySpec spec = rules_spec();
  auto ref = make_backend("cpu_ref");
  EXPECT_EQ(stream_refusal(*ref, spec, false), "");
  EXPECT_EQ(stream_refusal(*ref, spec, true), "");
  auto faulty = make_fault_backend(make_backend("cpu_ref"), 1000);
  EXPECT_EQ(stream_refusal(*faulty, spec, false), "");
  // cpu runs rules too; a rules winner is followed by the host's incremental rules tracker.
  EXPECT_EQ(stream_refusal(*make_backend("cpu"), spec, false), "");
  EXPECT_EQ(lazy_stream_refusal("cpu")(spec, true), "");
  EXPECT_EQ(lazy_stream_refusal("cpu_ref")(spec, false), "");
  // A backend that refuses the strategy's work is refused in its own words.
  const std::string refused = stream_refusal(RefusesRules(), spec, false);
  EXPECT_EQ(refused, "the stand-in backend does not run rules strategies");
  // A name no backend has: nothing to ask (the config loader and the start say so).
  EXPECT_EQ(lazy_stream_refusal("nonesuch")(spec, false), "");
}

TEST(BackendFit, ABuiltInFamilyRunsOnTheHostBackends) {
  StrategySpec ma;
  ma.grid.fast = {3, 5};
  ma.grid.slow = {20};
  ma.grid.stop_loss = {0.01};
  for (const char* name : {"cpu", "cpu_ref"}) {
    EXPECT_EQ(stream_refusal(*make_backend(name), ma, true), "") << name;
  }
}

}  // namespace
}  // namespace wfod::daemon
