// wfo's plan on a backend that runs on a device (tools/wfo/run_plan.cpp, issue 44 item 2): the
// sweep's device side (SweepMemory::device_bytes) is printed beside the host side and held to
// 90% of the device memory free now (the daemon's plan's rule), refused with the grid and what
// fits named; a host backend's plan says nothing of a device. The backend here is a fake that
// answers the size queries only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/wfo/args.hpp"
#include "tools/wfo/run_plan.hpp"

namespace wfod::cli {
namespace {

class DevicePlanBackend final : public Backend {
 public:
  DevicePlanBackend(bool device, uint64_t device_bytes, uint64_t free_bytes)
      : device_(device), device_bytes_(device_bytes), free_(free_bytes) {}
  std::string_view name() const override { return "cuda"; }
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
  bool runs_on_device() const override { return device_; }
  uint64_t device_memory_free() const override { return free_; }
  SweepMemory sweep_memory(const SweepRequest&) const override {
    return {uint64_t{1} << 20, device_bytes_};
  }

 private:
  bool device_;
  uint64_t device_bytes_, free_;
};

PlanInputs device_plan_inputs(const Backend& backend) {
  PlanInputs in;
  in.grid.fast = {5, 10, 20};
  in.grid.slow = {50, 100};
  in.history_bars = 10'000;
  in.window_bars = 9'000;
  in.warmup_bars = 100;
  in.backend = "cuda";
  in.budget.bytes = 8.0 * (1ull << 30);
  in.budget.name = "--memory-budget";
  SweepRequest shape;
  shape.strategy.grid = in.grid;
  shape.window = WindowSpec{in.history_bars, in.window_bars, in.warmup_bars};
  ask_backend(in, backend, shape);
  return in;
}

constexpr uint64_t kPlanGiB = uint64_t{1} << 30;

TEST(PlanDeviceMemory, FittingSweepIsPrintedBesideTheHostSide) {
  const DevicePlanBackend backend(true, 3 * kPlanGiB, 10 * kPlanGiB);
  const PlanInputs in = device_plan_inputs(backend);
  const RunPlan p = plan_run(in);
  EXPECT_EQ(p.device_bytes, 3.0 * kPlanGiB);
  EXPECT_EQ(p.device_budget, 9.0 * kPlanGiB);
  EXPECT_NO_THROW(check_plan(p, in));
  const std::string text = plan_text(p, in);
  EXPECT_NE(text.find("device ~3.0 GiB of 9.0 GiB (90% of 10.0 GiB free)"), std::string::npos)
      << text;
}

TEST(PlanDeviceMemory, SweepOverTheDeviceShareIsRefused) {
  // 9.5 GiB: under the 10 GiB free, over the 90% a plan counts on.
  const DevicePlanBackend backend(true, 9 * kPlanGiB + kPlanGiB / 2, 10 * kPlanGiB);
  const PlanInputs in = device_plan_inputs(backend);
  const RunPlan p = plan_run(in);
  try {
    check_plan(p, in);
    FAIL() << "a sweep over the device's share passed the plan";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the sweep of 6 ma_cross combos over 10,000 bars"), std::string::npos)
        << what;
    EXPECT_NE(what.find("device memory"), std::string::npos) << what;
    EXPECT_NE(what.find("over the 9.0 GiB that fit"), std::string::npos) << what;
    EXPECT_NE(what.find("--backend cpu"), std::string::npos) << what;
  }
}

TEST(PlanDeviceMemory, HostBackendHasNoDevicePlan) {
  const DevicePlanBackend backend(false, 100 * kPlanGiB, 10 * kPlanGiB);
  const PlanInputs in = device_plan_inputs(backend);
  EXPECT_EQ(in.device_free_bytes, 0u);
  const RunPlan p = plan_run(in);
  EXPECT_EQ(p.device_budget, 0);
  EXPECT_NO_THROW(check_plan(p, in));
  EXPECT_EQ(plan_text(p, in).find("device"), std::string::npos);
}

}  // namespace
}  // namespace wfod::cli
