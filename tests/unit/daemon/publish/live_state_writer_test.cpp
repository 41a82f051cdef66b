// LiveStateWriter (the daemon saves live state off the loop thread): after flush() each
// stream's file holds the newest state posted, every post is either written or superseded,
// failures reach the error handler, and destruction writes what is still queued.
#include "wfod/daemon/publish/live_state_writer.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "wfod/daemon/store/file_ops.hpp"

namespace wfod::daemon {
namespace {

LiveState state(uint64_t seq) {
  return LiveState{0x1234,  seq,          1000 + seq,
                   seq % 7, std::nullopt, R"({"seq":)" + std::to_string(seq) + "}"};
}

uint64_t saved_seq(const LiveStateStore& store, const PublicationKey& key) {
  auto loaded = store.load(key.first, key.second);
  if (!loaded.ok() || !loaded.value()) return 0;
  return loaded.value()->seq;
}

TEST(LiveStateWriter, NewestStatePerStreamAfterFlush) {
  test::TempDir dir("wfod_live_writer");
  auto store = LiveStateStore::open(dir.path(), config::FsyncPolicy::none);
  ASSERT_TRUE(store.ok());
  std::vector<std::string> errors;
  LiveStateWriter writer(
      store.value(), [&](const PublicationKey&, const IoError& e) { errors.push_back(e.message); });
  const PublicationKey a{"BTC/USD", "trend"}, b{"ETHUSD", "revert"};
  for (uint64_t seq = 1; seq <= 200; ++seq) writer.post(seq % 3 ? a : b, state(seq));
  writer.flush();
  EXPECT_EQ(saved_seq(store.value(), a), 200u);
  EXPECT_EQ(saved_seq(store.value(), b), 198u);
  EXPECT_EQ(writer.written() + writer.superseded(), 200u);
  EXPECT_GE(writer.written(), 2u);
  EXPECT_TRUE(errors.empty());
}

TEST(LiveStateWriter, DestructionWritesWhatIsQueued) {
  test::TempDir dir("wfod_live_writer");
  auto store = LiveStateStore::open(dir.path(), config::FsyncPolicy::none);
  ASSERT_TRUE(store.ok());
  const PublicationKey a{"X", "s"};
  {
    LiveStateWriter writer(store.value(), nullptr);
    for (uint64_t seq = 1; seq <= 50; ++seq) writer.post(a, state(seq));
  }
  EXPECT_EQ(saved_seq(store.value(), a), 50u);
}

// Real calls, except that every rename fails.
class FailingRename : public PosixFileOps {
 public:
  bool fail = true;
  int rename(const char* from, const char* to) override {
    if (!fail) return PosixFileOps::rename(from, to);
    errno = ENOSPC;
    return -1;
  }
};

TEST(LiveStateWriter, FailuresReachTheHandler) {
  test::TempDir dir("wfod_live_writer");
  FailingRename ops;
  auto store = LiveStateStore::open(dir.path(), config::FsyncPolicy::none, &ops);
  ASSERT_TRUE(store.ok());
  std::vector<PublicationKey> failed;
  LiveStateWriter writer(store.value(),
                         [&](const PublicationKey& key, const IoError&) { failed.push_back(key); });
  writer.post({"X", "s"}, state(1));
  writer.flush();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], (PublicationKey{"X", "s"}));
  EXPECT_EQ(writer.written(), 0u);
  EXPECT_EQ(saved_seq(store.value(), {"X", "s"}), 0u);
  // failing() until a save succeeds again (the daemon's storage health follows it).
  EXPECT_TRUE(writer.failing());
  ops.fail = false;
  writer.post({"X", "s"}, state(2));
  writer.flush();
  EXPECT_FALSE(writer.failing());
  EXPECT_EQ(saved_seq(store.value(), {"X", "s"}), 2u);
}

}  // namespace
}  // namespace wfod::daemon
