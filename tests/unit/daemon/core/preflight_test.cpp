// Start-up checks of what a configuration names (daemon/core/preflight.cpp): state_dir that
// can or cannot be created, and backfill CSVs that do or do not parse, reported at their key.
#include "wfod/daemon/core/preflight.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;

class PreflightDir : public test::TempDir {
 public:
  PreflightDir() : test::TempDir("wfod_preflight") {}
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path() + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
};

std::string state_dir_error(const std::string& dir, StateDirUser user) {
  try {
    (void)check_state_dir(dir, user);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Preflight, StateDirThatCanBeCreatedLeavesNothingBehind) {
  PreflightDir t;
  EXPECT_EQ(check_state_dir(t.path(), StateDirUser::this_process), "");
  EXPECT_EQ(check_state_dir(t.path() + "/a/b/c", StateDirUser::this_process), "");
  EXPECT_FALSE(fs::exists(t.path() + "/a"));
  EXPECT_TRUE(fs::is_empty(t.path()));  // the probe directory is gone
}

TEST(Preflight, StateDirThatCannotBeCreatedByAnyone) {
  PreflightDir t;
  const std::string file = t.write("f", "x");
  EXPECT_NE(
      state_dir_error(file, StateDirUser::unknown).find(file + " exists and is not a directory"),
      std::string::npos);
  EXPECT_NE(state_dir_error(file + "/sub/dir", StateDirUser::unknown)
                .find(file + " exists and is not a directory"),
            std::string::npos);
  const std::string proc = state_dir_error("/proc/wfod-state", StateDirUser::unknown);
  EXPECT_NE(proc.find("/proc is on the proc pseudo file system"), std::string::npos) << proc;
}

// Permissions depend on who runs it: a note for --check-config, an error at start.
TEST(Preflight, StateDirPermissionIsANoteUnlessThisProcessRunsIt) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write anywhere";
  PreflightDir t;
  const std::string locked = t.path() + "/locked";
  fs::create_directory(locked);
  ::chmod(locked.c_str(), 0500);
  const std::string note = check_state_dir(locked + "/state", StateDirUser::unknown);
  EXPECT_NE(note.find("is not writable by this user"), std::string::npos) << note;
  EXPECT_NE(state_dir_error(locked + "/state", StateDirUser::this_process)
                .find("is not writable by this user"),
            std::string::npos);
  ::chmod(locked.c_str(), 0700);
}

TEST(Preflight, BackfillThatDoesNotParseIsAnErrorAtItsKey) {
  PreflightDir t;
  t.write("good.csv", "timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10,1\n");
  t.write("bad.csv",
          "timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10,1\n"
          "2024-01-03,10,11,9,oops,1\n");
  const std::string state = t.path() + "/state";
  const std::string config =
      t.write("c.toml", "[daemon]\nstate_dir = \"" + state +
                            "\"\n[[symbol]]\nname = \"A\"\nbackfill = \"good.csv\"\n"
                            "[[symbol]]\nname = \"B\"\nbackfill = \"bad.csv\"\n");
  std::vector<std::string> notes;
  try {
    (void)load_checked_config(config, StateDirUser::unknown, notes);
    ADD_FAILURE() << "bad.csv accepted";
  } catch (const config::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(config + ":8:12: key 'symbol[1].backfill': ", 0), 0u) << m;
    EXPECT_NE(m.find("bad.csv:3"), std::string::npos) << m;  // the CSV's own line
  }
  // (A config with nothing to run is refused: config_checks_test.cpp.)
  t.write("c.toml", "[daemon]\nstate_dir = \"" + state +
                        "\"\n[[symbol]]\nname = \"A\"\nbackfill = \"good.csv\"\n"
                        "[[strategy]]\nname = \"s\"\nsymbols = [\"A\"]\nfamily = \"ma_cross\"\n"
                        "window = 50\n[strategy.grid]\nfast = \"5\"\nslow = \"20\"\n");
  const config::Config c = load_checked_config(config, StateDirUser::this_process, notes);
  EXPECT_EQ(c.symbols[0].backfill, t.path() + "/good.csv");
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(fs::exists(state));  // checked, not created
}

}  // namespace
}  // namespace wfod::daemon
