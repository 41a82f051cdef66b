// The CUDA device-vs-build rule (wfod/cuda_arch.hpp), in every build: which compute
// capabilities run the default architecture list (SASS for 7.5 to 9.0, compute_90 PTX),
// one-architecture builds (the ci preset's 90), and the words of a refusal.
#include "wfod/cuda_arch.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "wfod/backend.hpp"

namespace wfod {
namespace {

const char* const kDefaultList = "75-real;80-real;86-real;89-real;90";

TEST(CudaArch, ParsesCMakeNotation) {
  const CudaArchs a = parse_cuda_archs(kDefaultList);
  EXPECT_EQ(a.sass, (std::vector<int>{75, 80, 86, 89, 90}));
  EXPECT_EQ(a.ptx, (std::vector<int>{90}));
  const CudaArchs b = parse_cuda_archs("90-virtual,80-real,80");
  EXPECT_EQ(b.sass, (std::vector<int>{80}));
  EXPECT_EQ(b.ptx, (std::vector<int>{80, 90}));
  EXPECT_TRUE(parse_cuda_archs("").empty());
  for (const char* bad : {"native", "all", "sm_90", "90-foo", "9", "-real"}) {
    EXPECT_THROW((void)parse_cuda_archs(bad), std::invalid_argument) << bad;
  }
}

TEST(CudaArch, Describes) {
  EXPECT_EQ(describe(parse_cuda_archs(kDefaultList)),
            "sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX");
  EXPECT_EQ(describe(parse_cuda_archs("90-real")), "sm_90");
  EXPECT_EQ(describe(parse_cuda_archs("90-virtual")), "compute_90 PTX");
  EXPECT_EQ(describe(CudaArchs{}), "no CUDA code");
}

struct Case {
  int major, minor;
  bool ok;
  const char* code;  // what runs when ok
};

TEST(CudaArch, DefaultListRunsTuringToHopperAndNewerThroughPtx) {
  const CudaArchs a = parse_cuda_archs(kDefaultList);
  const Case cases[] = {
      {7, 5, true, "sm_75"},            // Turing: T4, RTX 20xx
      {8, 0, true, "sm_80"},            // A100
      {8, 6, true, "sm_86"},            // RTX 30xx, A10, A40
      {8, 7, true, "sm_86"},            // Jetson Orin: 8.6 code runs on a later 8.x
      {8, 9, true, "sm_89"},            // Ada: L4, L40S, RTX 40xx
      {9, 0, true, "sm_90"},            // H100, H200
      {10, 0, true, "compute_90 PTX"},  // Blackwell B200: the driver compiles the PTX
      {12, 0, true, "compute_90 PTX"},  // RTX 50xx
      {7, 0, false, ""},                // Volta: older than every architecture built
      {6, 1, false, ""},                // Pascal
      {3, 5, false, ""},                // Kepler
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.major) + "." + std::to_string(c.minor));
    const CudaFit fit = can_run({c.major, c.minor}, a);
    EXPECT_EQ(fit.ok, c.ok) << fit.why;
    if (c.ok) {
      EXPECT_EQ(fit.code, c.code);
      EXPECT_TRUE(fit.why.empty());
    } else {
      EXPECT_EQ(fit.why, "this build has sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX: cc " +
                             std::to_string(c.major) + "." + std::to_string(c.minor) +
                             " is older than every architecture in it");
    }
  }
}

TEST(CudaArch, OneArchitectureBuilds) {
  // The ci / device presets: sm_90 + compute_90. Ampere and Ada have no code in it: a
  // device that would fail every launch (and make the daemon quietly fall back to cpu) is
  // refused up front.
  const CudaArchs ci = parse_cuda_archs("90");
  EXPECT_TRUE(can_run({9, 0}, ci).ok);
  EXPECT_EQ(can_run({12, 0}, ci).code, "compute_90 PTX");
  const CudaFit ada = can_run({8, 9}, ci);
  EXPECT_FALSE(ada.ok);
  EXPECT_EQ(ada.why,
            "this build has sm_90 + compute_90 PTX: cc 8.9 is older than every "
            "architecture in it");
  // SASS never runs on another major version, nor on a lower minor one.
  const CudaArchs sass_only = parse_cuda_archs("86-real;90-real");
  const CudaFit hopper_next = can_run({10, 0}, sass_only);
  EXPECT_FALSE(hopper_next.ok);
  EXPECT_EQ(hopper_next.why,
            "this build has sm_86 sm_90: no sm_10x machine code at or below 10.0, and no PTX");
  const CudaFit a100 = can_run({8, 0}, sass_only);
  EXPECT_FALSE(a100.ok);
  EXPECT_EQ(a100.why, "this build has sm_86 sm_90: cc 8.0 is older than every architecture in it");
  EXPECT_TRUE(can_run({8, 9}, sass_only).ok);
  // PTX runs on its own capability and newer, SASS preferred where both fit.
  const CudaArchs mixed = parse_cuda_archs("80-virtual;86-real");
  EXPECT_EQ(can_run({8, 0}, mixed).code, "compute_80 PTX");
  EXPECT_EQ(can_run({8, 6}, mixed).code, "sm_86");
  EXPECT_EQ(can_run({9, 0}, mixed).code, "compute_80 PTX");
  const CudaFit ampere_ptx_too_new = can_run({8, 6}, parse_cuda_archs("75-real;90-virtual"));
  EXPECT_FALSE(ampere_ptx_too_new.ok);
  EXPECT_EQ(ampere_ptx_too_new.why,
            "this build has sm_75 + compute_90 PTX: no sm_8x machine code at or below 8.6, and "
            "its PTX needs cc >= 9.0");
  EXPECT_FALSE(can_run({9, 0}, CudaArchs{}).ok);
}

TEST(CudaArch, ThisBuildSaysWhatItHolds) {
  // --version's backends line: the cuda backend and its architectures only where built.
  const std::string summary = backends_summary();
  if (compiled_cuda_archs().empty()) {
    EXPECT_EQ(summary, "cpu_ref cpu");
  } else {
    EXPECT_EQ(summary, "cpu_ref cpu cuda (" + describe(compiled_cuda_archs()) + ")");
  }
}

}  // namespace
}  // namespace wfod
