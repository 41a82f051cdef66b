// The memory a wfo run is held to before any work (tools/wfo/memory_limits, load_estimate):
// cgroup v2 memory.max found from /proc/self/cgroup's line and the lowest on the way up, the
// budget that binds among --memory-budget, RLIMIT_AS and memory.max, and the CSV load's
// estimate from the file's size and its first lines.

#include "tools/wfo/memory_limits.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tools/wfo/args.hpp"
#include "tools/wfo/load_estimate.hpp"

namespace wfod::cli {
namespace {

namespace fs = std::filesystem;

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("wfo_cgroup_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "a" / "b");
  }
  void TearDown() override { fs::remove_all(root_); }
  void put(const fs::path& rel, const std::string& text) {
    std::ofstream(root_ / rel / "memory.max") << text;
  }
  fs::path root_;
};

TEST_F(CgroupTree, MaxMeansNoLimit) {
  put("a", "max\n");
  put("a/b", "max\n");
  EXPECT_FALSE(cgroup_memory_max("0::/a/b\n", root_.string()));
}

TEST_F(CgroupTree, TheLowestOnTheWayUpBinds) {
  put("a", "1073741824\n");
  put("a/b", "2147483648\n");
  const auto m = cgroup_memory_max("1:name=systemd:/\n0::/a/b\n", root_.string());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->first, 1073741824u);
  EXPECT_EQ(m->second, (root_ / "a" / "memory.max").string());
}

TEST_F(CgroupTree, TheNamespaceRoot) {
  std::ofstream(root_ / "memory.max") << "536870912\n";
  const auto m = cgroup_memory_max("0::/\n", root_.string());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->first, 536870912u);
}

TEST_F(CgroupTree, NoV2LineIsNoLimit) {
  put("a", "1000\n");
  EXPECT_FALSE(cgroup_memory_max("4:memory:/a\n", root_.string()));
}

TEST(BindingBudget, TheLowestNamesItself) {
  ProcessLimits none;
  MemoryBudget b = binding_budget(2048ull << 20, none);
  EXPECT_EQ(b.bytes, double(2048ull << 20));
  EXPECT_EQ(b.name, "--memory-budget 2.0 GiB");
  EXPECT_EQ(b.label, "");

  ProcessLimits as;
  as.address_space = 1500000ull * 1024;
  as.mapped = 100ull << 20;
  b = binding_budget(2048ull << 20, as);
  EXPECT_EQ(b.bytes, double(1500000ull * 1024 - (100ull << 20)));
  EXPECT_NE(b.name.find("RLIMIT_AS, ulimit -v 1500000"), std::string::npos) << b.name;
  EXPECT_NE(b.raise.find("ulimit -v"), std::string::npos);
  // A limit above the budget does not bind.
  b = binding_budget(512ull << 20, as);
  EXPECT_EQ(b.name, "--memory-budget 512 MiB");

  ProcessLimits cg = as;
  cg.cgroup_max = 1ull << 30;
  cg.cgroup_file = "/sys/fs/cgroup/x/memory.max";
  b = binding_budget(2048ull << 20, cg);
  EXPECT_EQ(b.bytes, double(1ull << 30));
  EXPECT_EQ(b.name, "the cgroup's memory.max of 1.0 GiB (/sys/fs/cgroup/x/memory.max)");
}

TEST(LoadEstimate, BarsFromTheShortestLineAndTheTextAsItGrows) {
  const std::string head =
      "timestamp,open,high,low,close,volume\n"
      "2022-01-01T00:00:00Z,100.5,101,99,100,1\n"        // 40 bytes with its newline
      "\n"                                               // blank: no bar, not the shortest
      "2022-01-01T00:01:00Z,100.25,101.5,99.5,100,12\n"  // 47
      "2022-01-01T00:02:00Z,1";                          // cut off: not measured
  const LoadEstimate e = estimate_load(40ull * 1000000, head);
  EXPECT_EQ(e.bars, 1000001u);
  EXPECT_EQ(e.text_bytes, double(64ull << 20));  // 40 MB: 64 KiB doubled up to 64 MiB
  EXPECT_EQ(e.columns_bytes, 48.0 * 1000001);
  EXPECT_EQ(e.peak_bytes, double(8 << 20) + double(64ull << 20) + 48.0 * 1000001);
  // No whole data line in the head: 10 bytes a bar at most.
  EXPECT_EQ(estimate_load(1000, "timestamp,open,high,low,close\n2022").bars, 101u);
}

TEST(LoadEstimate, RefusedOverTheBudgetNamingItAndWhatToChange) {
  const LoadEstimate e =
      estimate_load(40ull * 1000000, "h\n2022-01-01T00:00:00Z,100.5,101,99,100,1\n");
  MemoryBudget fits;
  fits.bytes = e.peak_bytes;
  EXPECT_NO_THROW(check_load(e, fits, "big.csv"));
  const MemoryBudget small = binding_budget(64ull << 20, ProcessLimits{});
  try {
    check_load(e, small, "big.csv");
    FAIL() << "not refused";
  } catch (const InputError& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("loading big.csv (38 MiB) needs about 118 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("over --memory-budget 64 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("raise --memory-budget"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace wfod::cli
