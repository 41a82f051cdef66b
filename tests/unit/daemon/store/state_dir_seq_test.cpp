// Issue 43 item 3, the store side: one wfod per state_dir (StateDirLock), and publication
// seqs that never go back (SequenceStore::raise_floors from LiveStateStore::saved_seqs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/temp_dir.hpp"
#include "wfod/daemon/store/live_state.hpp"
#include "wfod/daemon/store/sequence_store.hpp"
#include "wfod/daemon/store/state_dir_lock.hpp"

namespace wfod::daemon {
namespace {

class StateDirSeqDir : public test::TempDir {
 public:
  StateDirSeqDir() : test::TempDir("wfod_state_dir_seq") {}
};

TEST(StateDirLock, ASecondHolderIsRefusedNamingTheFirstsPid) {
  StateDirSeqDir dir;
  const std::string state = dir.path() + "/state";
  auto first = StateDirLock::acquire(state);  // creates the directory
  ASSERT_TRUE(first.ok()) << first.error().message;
  std::ifstream in(state + "/wfod.lock");
  std::string pid;
  std::getline(in, pid);
  EXPECT_EQ(pid, std::to_string(::getpid()));
  // flock is per open file: a second open in this process conflicts like another process.
  auto second = StateDirLock::acquire(state);
  ASSERT_FALSE(second.ok());
  const std::string& m = second.error().message;
  EXPECT_NE(m.find("state_dir " + state + " is in use by another wfod (pid " + pid + ", "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("one wfod per state_dir"), std::string::npos) << m;
}

TEST(StateDirLock, ReleasedWhenTheHolderGoes) {
  StateDirSeqDir dir;
  {
    auto first = StateDirLock::acquire(dir.path());
    ASSERT_TRUE(first.ok());
  }
  auto again = StateDirLock::acquire(dir.path());  // the file is still there: no matter
  EXPECT_TRUE(again.ok());
}

TEST(SequenceFloor, RaisesOnlyStreamsBelowTheFloorAndPersistsThem) {
  StateDirSeqDir dir;
  {
    auto seqs = SequenceStore::open(dir.path());
    ASSERT_TRUE(seqs.ok());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(seqs.value().next("A", "s").ok());
    auto raised = seqs.value().raise_floors({{{"A", "s"}, 3}, {{"B", "s"}, 3096}, {{"C", "t"}, 0}});
    ASSERT_TRUE(raised.ok());
    const std::map<SequenceStore::Key, uint64_t> want{{{"B", "s"}, 0}};
    EXPECT_EQ(raised.value(), want);  // A is at 5 already, C's 0 is no floor
    EXPECT_EQ(seqs.value().last("A", "s"), 5u);
    auto next = seqs.value().next("B", "s");
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next.value(), 3097u);
    EXPECT_EQ(seqs.value().last("C", "t"), 0u);
  }
  auto reopened = SequenceStore::open(dir.path());  // every entry >= 1: the file parses
  ASSERT_TRUE(reopened.ok()) << reopened.error().message;
  EXPECT_GE(reopened.value().last("B", "s"), 3097u);
}

TEST(SequenceFloor, SavedLiveStatesGiveEachStreamsSeq) {
  StateDirSeqDir dir;
  auto live = LiveStateStore::open(dir.path(), config::FsyncPolicy::none);
  ASSERT_TRUE(live.ok());
  LiveState st;
  st.seq = 3096;
  st.payload = "{}";
  ASSERT_TRUE(live.value().save("BTC/USD.x", "ma-1", st).ok());
  st.seq = 58;
  ASSERT_TRUE(live.value().save("GOOG", "s", st).ok());
  // Neither a temp file nor a corrupt file gives a seq.
  std::ofstream(dir.path() + "/streams/GOOG.s.live.tmp") << "partial";
  std::ofstream(dir.path() + "/streams/MSFT.s.live") << "wfod-live 1\nfp=0 seq=9999\n";
  auto saved = live.value().saved_seqs();
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  std::map<SequenceStore::Key, uint64_t> got;
  for (const auto& s : saved.value()) got[{s.symbol, s.strategy}] = s.seq;
  const std::map<SequenceStore::Key, uint64_t> want{{{"BTC/USD.x", "ma-1"}, 3096},
                                                    {{"GOOG", "s"}, 58}};
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace wfod::daemon
