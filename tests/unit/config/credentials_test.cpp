// [curve] key files under systemd's LoadCredential= (wfod/config/credentials.hpp): a
// relative path is looked up in $CREDENTIALS_DIRECTORY first, and a key found there lets
// the (world-readable, since DynamicUser= must read it) config pass; without credentials
// every rule stays as it was.
#include "wfod/config/credentials.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"
#include "wfod/config/config.hpp"

namespace wfod::config {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text, mode_t mode) {
  std::ofstream(p) << text;
  ASSERT_EQ(::chmod(p.c_str(), mode), 0) << p;
}

// Sets $CREDENTIALS_DIRECTORY for one scope, as systemd does for the unit's process.
class CredentialsEnv {
 public:
  explicit CredentialsEnv(const std::string& dir) {
    if (const char* old = std::getenv(kCredentialsDirectoryEnv)) old_ = old, had_ = true;
    if (dir.empty()) {
      ::unsetenv(kCredentialsDirectoryEnv);
    } else {
      ::setenv(kCredentialsDirectoryEnv, dir.c_str(), 1);
    }
  }
  ~CredentialsEnv() {
    if (had_) {
      ::setenv(kCredentialsDirectoryEnv, old_.c_str(), 1);
    } else {
      ::unsetenv(kCredentialsDirectoryEnv);
    }
  }
  CredentialsEnv(const CredentialsEnv&) = delete;
  CredentialsEnv& operator=(const CredentialsEnv&) = delete;

 private:
  std::string old_;
  bool had_ = false;
};

TEST(Credentials, ResolveCurveFile) {
  test::TempDir tmp("wfod_cred");
  const fs::path creds = fs::path(tmp.path()) / "creds";
  fs::create_directory(creds);
  write(creds / "wfod.key", "k", 0400);
  const std::string etc = tmp.path() + "/etc";

  // A credential of that name wins; anything else resolves beside the config as before.
  EXPECT_EQ(resolve_curve_file("wfod.key", etc, creds.string()), (creds / "wfod.key").string());
  EXPECT_EQ(resolve_curve_file("clients.txt", etc, creds.string()), etc + "/clients.txt");
  EXPECT_EQ(resolve_curve_file("wfod.key", etc, ""), etc + "/wfod.key");
  EXPECT_EQ(resolve_curve_file("keys/../wfod.key", etc, ""), etc + "/wfod.key");
  // Absolute paths are taken as written; empty stays empty (no CURVE).
  EXPECT_EQ(resolve_curve_file("/etc/wfod/wfod.key", etc, creds.string()), "/etc/wfod/wfod.key");
  EXPECT_EQ(resolve_curve_file("", etc, creds.string()), "");
  // A directory of that name is no credential.
  fs::create_directory(creds / "sub");
  EXPECT_EQ(resolve_curve_file("sub", etc, creds.string()), etc + "/sub");
}

TEST(Credentials, InsideDirectory) {
  EXPECT_TRUE(
      inside_directory("/run/credentials/wfod.service/wfod.key", "/run/credentials/wfod.service"));
  EXPECT_TRUE(
      inside_directory("/run/credentials/wfod.service/wfod.key", "/run/credentials/wfod.service/"));
  EXPECT_FALSE(
      inside_directory("/run/credentials/wfod.service/../x.key", "/run/credentials/wfod.service"));
  EXPECT_FALSE(
      inside_directory("/run/credentials/wfod.servicex/k", "/run/credentials/wfod.service"));
  EXPECT_FALSE(inside_directory("/run/credentials/wfod.service", "/run/credentials/wfod.service"));
  EXPECT_FALSE(inside_directory("/etc/wfod/wfod.key", ""));
}

// The unit's situation: root's keys in /etc/wfod (0600), handed over as credentials
// (0400 in a private folder); the config names them relatively and is world-readable.
class CurveCredentials : public ::testing::Test {
 protected:
  void SetUp() override {
    etc_ = fs::path(tmp_.path()) / "etc";
    creds_ = fs::path(tmp_.path()) / "creds";
    fs::create_directory(etc_);
    fs::create_directory(creds_);
    write(etc_ / "wfod.key", "keypair", 0600);
    write(etc_ / "clients.txt", "clients", 0644);
    write(creds_ / "wfod.key", "keypair", 0400);
    write(creds_ / "clients.txt", "clients", 0400);
    write(etc_ / "wfod.toml",
          "[curve]\nkey_file = \"wfod.key\"\nclients_file = \"clients.txt\"\n\n"
          "[[feed]]\nendpoint = \"tcp://127.0.0.1:5555\"\n"
          "curve_server_key_file = \"clients.txt\"\n",
          0644);
  }
  std::string config() const { return (etc_ / "wfod.toml").string(); }

  test::TempDir tmp_{"wfod_cred"};
  fs::path etc_, creds_;
};

TEST_F(CurveCredentials, UnderSystemdTheKeysAreCredentials) {
  CredentialsEnv env(creds_.string());
  const Config c = load_config(config());
  EXPECT_EQ(c.curve.key_file, (creds_ / "wfod.key").string());
  EXPECT_EQ(c.curve.clients_file, (creds_ / "clients.txt").string());
  ASSERT_EQ(c.feeds.size(), 1u);
  EXPECT_EQ(c.feeds[0].curve_server_key_file, (creds_ / "clients.txt").string());
}

TEST_F(CurveCredentials, WithoutCredentialsTheWorldReadableConfigIsRefused) {
  CredentialsEnv env("");
  try {
    (void)load_config(config());
    FAIL() << "a world-readable config naming a secret key was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(config() + ": is world-readable (mode 0644)"), std::string::npos) << what;
    EXPECT_NE(what.find("LoadCredential="), std::string::npos) << what;
  }
  // chmod o-rwx: accepted, the keys beside the config.
  ASSERT_EQ(::chmod(config().c_str(), 0600), 0);
  const Config c = load_config(config());
  EXPECT_EQ(c.curve.key_file, (etc_ / "wfod.key").string());
}

TEST_F(CurveCredentials, AWorldReadableCredentialIsStillRefused) {
  ASSERT_EQ(::chmod((creds_ / "wfod.key").c_str(), 0444), 0);
  CredentialsEnv env(creds_.string());
  EXPECT_THROW((void)load_config(config()), ConfigError);
}

TEST_F(CurveCredentials, AKeyOutsideTheCredentialsKeepsTheConfigRule) {
  // Credentials are set, but the key is not among them: resolved beside the config, whose
  // mode is checked as before.
  fs::remove(creds_ / "wfod.key");
  CredentialsEnv env(creds_.string());
  EXPECT_THROW((void)load_config(config()), ConfigError);
}

}  // namespace
}  // namespace wfod::config
