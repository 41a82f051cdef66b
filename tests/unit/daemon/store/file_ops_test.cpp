// Tests of make_dirs (daemon/store/file_ops.cpp), the mkdir -p behind state_dir, bars/ and
// live/: every path ends in a result with a bounded number of mkdir calls, and each error
// names the directory and the errno text. Paths under /proc (a parent that exists but takes
// no new directories, which recursed until the stack overflowed), through a regular file,
// empty, too long, read-only; and the ordinary cases.
#include "wfod/daemon/store/file_ops.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;

// Real mkdir calls, counted and remembered; syncs skipped (the logic under test is ours).
// Paths starting with `read_only` fail with EROFS, as on a read-only mount.
class CountingOps : public PosixFileOps {
 public:
  std::vector<std::string> mkdirs;
  std::string read_only;
  int fsyncs = 0;

  int mkdir(const char* path, mode_t mode) override {
    mkdirs.emplace_back(path);
    if (!read_only.empty() && std::string(path).rfind(read_only, 0) == 0) {
      errno = EROFS;
      return -1;
    }
    return PosixFileOps::mkdir(path, mode);
  }
  int fsync(int) override {
    ++fsyncs;
    return 0;
  }
};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(MakeDirs, CreatesMissingParentsAndAcceptsExistingDirectories) {
  test::TempDir dir("wfod_make_dirs");
  CountingOps ops;
  const std::string path = dir.path() + "/a/b/c";
  auto made = make_dirs(ops, path);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_TRUE(made.value());
  EXPECT_TRUE(fs::is_directory(path));
  // Up: c and b are missing, a is made (the temp dir exists); down: b, c. Each new one is
  // synced into its parent.
  EXPECT_EQ(ops.mkdirs, (std::vector<std::string>{path, dir.path() + "/a/b", dir.path() + "/a",
                                                  dir.path() + "/a/b", path}));
  EXPECT_EQ(ops.fsyncs, 3);

  ops.mkdirs.clear();
  made = make_dirs(ops, path + "/");  // exists; a trailing slash changes nothing
  ASSERT_TRUE(made.ok());
  EXPECT_FALSE(made.value());
  EXPECT_EQ(ops.mkdirs.size(), 1u);
  ASSERT_TRUE(make_dirs(ops, dir.path() + "//x//y").ok());  // repeated slashes
  EXPECT_TRUE(fs::is_directory(dir.path() + "/x/y"));
}

TEST(MakeDirs, UnderProcIsAnErrorNotARecursion) {
  if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc here";
  CountingOps ops;
  auto made = make_dirs(ops, "/proc/wfod-test/state");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, ENOENT);
  EXPECT_TRUE(contains(made.error().message, "mkdir /proc/wfod-test: No such file or directory"))
      << made.error().message;
  EXPECT_TRUE(contains(made.error().message, "its parent /proc exists")) << made.error().message;
  // Up: state, wfod-test, /proc (exists); down: wfod-test fails. Nothing retried.
  EXPECT_EQ(ops.mkdirs.size(), 4u);
}

TEST(MakeDirs, ThroughARegularFileIsNotADirectory) {
  test::TempDir dir("wfod_make_dirs");
  const std::string file = dir.path() + "/plain";
  std::ofstream(file) << "x";
  CountingOps ops;
  auto made = make_dirs(ops, file + "/state/deeper");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, ENOTDIR);
  EXPECT_TRUE(contains(made.error().message, file + "/state/deeper: Not a directory"))
      << made.error().message;
  // The path itself is the file.
  made = make_dirs(ops, file);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, ENOTDIR);
  EXPECT_TRUE(contains(made.error().message, file + ": Not a directory")) << made.error().message;
}

TEST(MakeDirs, EmptyPathIsAnError) {
  CountingOps ops;
  auto made = make_dirs(ops, "");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, EINVAL);
  EXPECT_TRUE(contains(made.error().message, "empty")) << made.error().message;
  EXPECT_TRUE(ops.mkdirs.empty());
}

TEST(MakeDirs, VeryLongPaths) {
  test::TempDir dir("wfod_make_dirs");
  CountingOps ops;
  // Longer than PATH_MAX: one mkdir, ENAMETOOLONG.
  std::string too_long = dir.path();
  while (too_long.size() <= 5000) too_long += "/abcdefgh";
  auto made = make_dirs(ops, too_long);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, ENAMETOOLONG);
  EXPECT_TRUE(contains(made.error().message, "File name too long")) << made.error().message;
  EXPECT_EQ(ops.mkdirs.size(), 1u);
  // A component longer than NAME_MAX.
  made = make_dirs(ops, dir.path() + "/" + std::string(300, 'n') + "/x");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, ENAMETOOLONG);
  // 1,000 nested directories within PATH_MAX: created iteratively, 999 missing on the way up
  // (the 1,000th is made), 999 made on the way down.
  ops.mkdirs.clear();
  std::string deep = dir.path();
  for (int i = 0; i < 1000; ++i) deep += "/d";
  ASSERT_LT(deep.size(), 4096u);
  made = make_dirs(ops, deep);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_TRUE(fs::is_directory(deep));
  EXPECT_EQ(ops.mkdirs.size(), 1999u);
}

TEST(MakeDirs, ReadOnlyMountIsAnError) {
  test::TempDir dir("wfod_make_dirs");
  // Through the seam: no test can mount, and root ignores directory permissions.
  CountingOps ops;
  ops.read_only = dir.path() + "/ro";
  auto made = make_dirs(ops, dir.path() + "/ro/state");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, EROFS);
  EXPECT_TRUE(contains(made.error().message, "mkdir " + dir.path() + "/ro/state: Read-only"))
      << made.error().message;
  EXPECT_EQ(ops.mkdirs.size(), 1u);
}

TEST(MakeDirs, DirectoryWithoutWritePermissionIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: mode 0555 does not stop root";
  test::TempDir dir("wfod_make_dirs");
  const std::string locked = dir.path() + "/locked";
  ASSERT_EQ(::mkdir(locked.c_str(), 0555), 0);
  CountingOps real;
  auto made = make_dirs(real, locked + "/a/b");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, EACCES);
  EXPECT_TRUE(contains(made.error().message, locked + "/a: Permission denied"))
      << made.error().message;
  ::chmod(locked.c_str(), 0755);
}

TEST(MakeDirs, RelativePaths) {
  test::TempDir dir("wfod_make_dirs");
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  CountingOps ops;
  auto made = make_dirs(ops, "rel/state");
  fs::current_path(before);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_TRUE(fs::is_directory(dir.path() + "/rel/state"));
}

}  // namespace
}  // namespace wfod::daemon
