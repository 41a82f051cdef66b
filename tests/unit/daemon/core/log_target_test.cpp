// The journal choice: JOURNAL_STREAM set and naming stderr's device:inode -> journal;
// unset, empty, malformed, or naming another file (a redirected child) -> stderr text.

#include "wfod/daemon/core/log_target.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace wfod::daemon {
namespace {

TEST(LogTarget, JournalStreamParsing) {
  EXPECT_TRUE(journal_stream_is("8:12345", 8, 12345));
  EXPECT_FALSE(journal_stream_is("8:12345", 8, 12346));
  EXPECT_FALSE(journal_stream_is("9:12345", 8, 12345));
  for (const char* bad : {"", ":", "8:", ":12345", "8", "8:12345x", "x8:12345", "8;12345",
                          "-8:12345", "8:1:2", " 8:12345"}) {
    EXPECT_FALSE(journal_stream_is(bad, 8, 12345)) << bad;
  }
}

class LogTargetFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/wfod_log_target.XXXXXX";
    fd_ = mkstemp(path);
    ASSERT_GE(fd_, 0);
    path_ = path;
    struct stat st {};
    ASSERT_EQ(fstat(fd_, &st), 0);
    id_ = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
    std::remove(path_.c_str());
  }
  int fd_ = -1;
  std::string path_;
  std::string id_;  // "DEV:INODE" of the file, as systemd writes JOURNAL_STREAM
};

TEST_F(LogTargetFile, JournalOnlyWhenTheVariableNamesThisStream) {
  EXPECT_EQ(log_target(nullptr, fd_), LogTarget::stderr_text);  // unset: not under systemd
  EXPECT_EQ(log_target("", fd_), LogTarget::stderr_text);
  EXPECT_EQ(log_target(id_.c_str(), fd_), LogTarget::journal);
  // Inherited by a process whose stderr went elsewhere: keep writing text there.
  const std::string other = id_ + "0";
  EXPECT_EQ(log_target(other.c_str(), fd_), LogTarget::stderr_text);
  EXPECT_EQ(log_target("garbage", fd_), LogTarget::stderr_text);
  // A closed descriptor cannot be the journal's stream.
  const int closed = fd_;
  close(fd_);
  fd_ = -1;
  EXPECT_EQ(log_target(id_.c_str(), closed), LogTarget::stderr_text);
}

}  // namespace
}  // namespace wfod::daemon
