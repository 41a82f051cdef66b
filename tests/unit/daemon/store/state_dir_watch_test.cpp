// StateDirWatch (daemon/store/state_dir_watch.cpp) on a real temporary directory: fine while
// it is the one opened; removed, replaced by a new one, or made unwritable, each said with
// the path. StorageAlarms (daemon/core/storage_alarms.cpp): the problems raised, the oldest
// one reported, and the rate limit their log lines share.
#include "wfod/daemon/store/state_dir_watch.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"
#include "wfod/daemon/core/storage_alarms.hpp"

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(StateDirWatch, FineWhileTheDirectoryIsTheOneOpened) {
  test::TempDir tmp("wfod_state_dir");
  auto w = StateDirWatch::open(tmp.path());
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w.value().check(), "");
  fs::create_directories(tmp.path() + "/bars");  // its content changing is its business
  EXPECT_EQ(w.value().check(), "");
}

TEST(StateDirWatch, ARemovedOrReplacedDirectoryIsSaid) {
  test::TempDir tmp("wfod_state_dir");
  const std::string dir = tmp.path() + "/state";
  fs::create_directories(dir + "/bars");
  auto w = StateDirWatch::open(dir);
  ASSERT_TRUE(w.ok()) << w.error().message;
  fs::remove_all(dir);
  std::string problem = w.value().check();
  EXPECT_TRUE(has(problem, "state_dir " + dir + " was removed")) << problem;
  fs::create_directories(dir);  // rm -rf STATE && mkdir STATE: another directory
  problem = w.value().check();
  EXPECT_TRUE(has(problem, "was replaced")) << problem;
}

TEST(StateDirWatch, AnUnwritableDirectoryIsSaid) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into a chmod 000 directory anyway";
  test::TempDir tmp("wfod_state_dir");
  auto w = StateDirWatch::open(tmp.path());
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0), 0);
  const std::string problem = w.value().check();
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0700), 0);
  EXPECT_TRUE(has(problem, "is not writable: Permission denied")) << problem;
  EXPECT_EQ(w.value().check(), "");
}

TEST(StateDirWatch, OpenRefusesWhatIsNoDirectory) {
  test::TempDir tmp("wfod_state_dir");
  EXPECT_FALSE(StateDirWatch::open(tmp.path() + "/missing").ok());
  const std::string file = tmp.path() + "/file";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  auto w = StateDirWatch::open(file);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(has(w.error().message, "not a directory")) << w.error().message;
}

TEST(StorageAlarms, EachProblemIsSaidWhenRaisedThenRepeatsShareTheRateLimit) {
  using Clock = StorageAlarms::Clock;
  StorageAlarms a(3, std::chrono::seconds(10));
  const Clock::time_point t0{};
  EXPECT_FALSE(a.problem());
  EXPECT_TRUE(a.raise("publications.seq", "seq: EACCES", t0).log);
  // Repeats: 3 lines per 10 s, the rest counted.
  int logged = 0;
  for (int i = 0; i < 40; ++i) logged += a.raise("publications.seq", "seq: EACCES", t0).log;
  EXPECT_EQ(logged, 3);
  // A new problem is said at once, even inside the burst.
  EXPECT_TRUE(a.raise("state_dir", "state_dir /x was removed", t0).log);
  EXPECT_FALSE(a.may_log(t0).log);
  EXPECT_EQ(a.pending_suppressed(), 38u);
  // The next window: the first line carries the count of those left out.
  const StorageAlarms::Decision d = a.may_log(t0 + std::chrono::seconds(10));
  EXPECT_TRUE(d.log);
  EXPECT_EQ(d.suppressed, 38u);
  EXPECT_EQ(not_logged_note(d.suppressed), " not_logged=38");
  EXPECT_EQ(not_logged_note(0), "");
  // The oldest problem still raised is the one reported.
  EXPECT_EQ(a.problem(), "seq: EACCES");
  EXPECT_TRUE(a.clear("publications.seq"));
  EXPECT_FALSE(a.clear("publications.seq"));
  EXPECT_EQ(a.problem(), "state_dir /x was removed");
  EXPECT_TRUE(a.raised("state_dir"));
  EXPECT_TRUE(a.clear("state_dir"));
  EXPECT_FALSE(a.problem());
  // Raised again after clearing: said again.
  EXPECT_TRUE(a.raise("state_dir", "state_dir /x was removed", t0 + std::chrono::seconds(10)).log);
}

}  // namespace
}  // namespace wfod::daemon
