// CheckpointStore: round trip, every flipped byte and every truncation detected, and a
// failed write leaves the previous checkpoint in place.
#include "wfod/daemon/store/checkpoint_store.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wfod_ckpt_" + name + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Checkpoint sample(uint64_t bars) {
  Checkpoint c;
  c.fingerprint = 0xdeadbeef;
  c.bars = bars;
  c.last_ts = 1'700'000'000'000'000'000 + static_cast<int64_t>(bars);
  for (size_t i = 0; i < 97; ++i) c.blob.push_back(static_cast<uint8_t>(i * 7 + bars));
  return c;
}

TEST(CheckpointStore, RoundTrip) {
  const fs::path dir = fresh_dir("rt");
  auto store = CheckpointStore::open(dir.string());
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto none = store.value().load("BRK.B", "trend");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().has_value());
  ASSERT_TRUE(store.value().save("BRK.B", "trend", sample(1234)).ok());
  auto got = store.value().load("BRK.B", "trend");
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_TRUE(got.value().has_value());
  const Checkpoint& c = *got.value();
  EXPECT_EQ(c.fingerprint, 0xdeadbeefu);
  EXPECT_EQ(c.bars, 1234u);
  EXPECT_EQ(c.last_ts, sample(1234).last_ts);
  EXPECT_EQ(c.blob, sample(1234).blob);
  EXPECT_FALSE(fs::exists(store.value().path("BRK.B", "trend") + ".tmp"));
  fs::remove_all(dir);
}

TEST(CheckpointStore, EveryFlippedByteAndTruncationIsDetected) {
  const std::vector<uint8_t> good = CheckpointStore::encode(sample(77));
  ASSERT_TRUE(CheckpointStore::decode(good, "x").ok());
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= mask;
      EXPECT_FALSE(CheckpointStore::decode(bad, "x").ok()) << "byte " << i;
    }
  }
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    auto r = CheckpointStore::decode(cut, "x");
    ASSERT_FALSE(r.ok()) << "length " << n;
    EXPECT_NE(r.error().message.find("corrupt checkpoint"), std::string::npos);
  }
}

// Fails every rename, like a disk that broke between the write and the rename.
class FailingRename : public PosixFileOps {
 public:
  int rename(const char*, const char*) override {
    errno = EIO;
    return -1;
  }
};

TEST(CheckpointStore, FailedWriteKeepsThePreviousCheckpoint) {
  const fs::path dir = fresh_dir("fail");
  {
    auto store = CheckpointStore::open(dir.string());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store.value().save("GOOG", "s", sample(10)).ok());
  }
  FailingRename ops;
  auto store = CheckpointStore::open(dir.string(), &ops);
  ASSERT_TRUE(store.ok());
  const Status s = store.value().save("GOOG", "s", sample(20));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("rename"), std::string::npos);
  auto got = store.value().load("GOOG", "s");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got.value().has_value());
  EXPECT_EQ(got.value()->bars, 10u);
  EXPECT_FALSE(fs::exists(store.value().path("GOOG", "s") + ".tmp"));
  fs::remove_all(dir);
}

TEST(CheckpointStore, TornFileOnDiskIsReportedNotTrusted) {
  const fs::path dir = fresh_dir("torn");
  auto store = CheckpointStore::open(dir.string());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store.value().save("GOOG", "s", sample(5)).ok());
  const std::string p = store.value().path("GOOG", "s");
  fs::resize_file(p, fs::file_size(p) - 9);
  auto got = store.value().load("GOOG", "s");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find(p), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wfod::daemon
