// Tests of publication sequence numbers (daemon/store/sequence_store.cpp, PROTOCOL §2): 1, 2,
// 3 ... per (symbol, strategy), never reused across reopens or a crash between the temp
// write and the rename; a missing file is a fresh start, a corrupt one a clear error.
#include "wfod/daemon/store/sequence_store.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"
#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed with everything in it.
class SeqStoreDir : public test::TempDir {
 public:
  SeqStoreDir() : test::TempDir("wfod_seq_store") {}
};

// Real calls, except that a rename can be made to fail: the process "dies" after the temp
// file is complete and synced but before it replaced publications.seq.
// `skip_syncs` makes loops of many numbers fast; the real syncs run in the other tests.
class CrashOps : public PosixFileOps {
 public:
  bool fail_rename = false;
  bool skip_syncs = false;
  int renames = 0;
  int fdatasync(int fd) override { return skip_syncs ? 0 : PosixFileOps::fdatasync(fd); }
  int fsync(int fd) override { return skip_syncs ? 0 : PosixFileOps::fsync(fd); }
  int rename(const char* from, const char* to) override {
    ++renames;
    if (fail_rename) {
      errno = EIO;
      return -1;
    }
    return PosixFileOps::rename(from, to);
  }
};

SequenceStore open_ok(const std::string& dir, const SequenceStoreOptions& options = {}) {
  auto store = SequenceStore::open(dir, options);
  if (!store.ok()) throw std::runtime_error("open failed: " + store.error().message);
  return std::move(store).value();
}

uint64_t next_ok(SequenceStore& store, std::string_view symbol, std::string_view strategy) {
  auto seq = store.next(symbol, strategy);
  if (!seq.ok()) throw std::runtime_error("next failed: " + seq.error().message);
  return seq.value();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string with_crc(const std::string& body) {
  char crc[16];
  std::snprintf(crc, sizeof crc, "%08x", static_cast<unsigned>(crc32(body)));
  return body + "crc32 " + crc + "\n";
}

TEST(SequenceStore, MissingFileStartsEveryStreamAtOne) {
  SeqStoreDir dir;
  auto store = open_ok(dir.path() + "/new/state");  // creates the state directory
  EXPECT_TRUE(store.entries().empty());
  EXPECT_EQ(store.last("BTCUSD", "trend"), 0u);
  EXPECT_EQ(next_ok(store, "BTCUSD", "trend"), 1u);
  EXPECT_EQ(next_ok(store, "BTCUSD", "trend"), 2u);
  EXPECT_EQ(next_ok(store, "BTCUSD", "revert"), 1u);
  EXPECT_EQ(next_ok(store, "BTC/USD:PERP", "trend"), 1u);
  EXPECT_EQ(store.last("BTCUSD", "trend"), 2u);
  EXPECT_EQ(read_text(store.path()), with_crc("wfod-publications 1\n"
                                              "BTC/USD:PERP trend 1\n"
                                              "BTCUSD revert 1\n"
                                              "BTCUSD trend 2\n"));
}

TEST(SequenceStore, NumbersContinueAcrossReopens) {
  SeqStoreDir dir;
  std::mt19937_64 rng(17);
  SCOPED_TRACE(17);
  const std::string symbols[] = {"BTCUSD", "ETH/USD", "ES:1"};
  const std::string strategies[] = {"trend", "revert"};
  std::map<SequenceStore::Key, uint64_t> expected;
  CrashOps ops;
  ops.skip_syncs = true;
  SequenceStoreOptions options;
  options.ops = &ops;
  for (int round = 0; round < 5; ++round) {
    auto store = open_ok(dir.path(), options);
    EXPECT_EQ(store.entries(), expected);
    for (int i = 0; i < 8; ++i) {
      const auto& sym = symbols[rng() % 3];
      const auto& strat = strategies[rng() % 2];
      EXPECT_EQ(next_ok(store, sym, strat), ++expected[SequenceStore::Key(sym, strat)]);
    }
  }
}

TEST(SequenceStore, CrashBetweenTempWriteAndRenameNeverReusesANumber) {
  SeqStoreDir dir;
  CrashOps ops;
  SequenceStoreOptions options;
  options.ops = &ops;
  std::set<uint64_t> handed_out;
  {
    auto store = open_ok(dir.path(), options);
    for (int i = 0; i < 3; ++i) handed_out.insert(next_ok(store, "BTCUSD", "trend"));
    ops.fail_rename = true;
    auto failed = store.next("BTCUSD", "trend");
    ASSERT_FALSE(failed.ok());  // nothing handed out ...
    EXPECT_EQ(failed.error().code, EIO);
    EXPECT_NE(failed.error().message.find("publications.seq"), std::string::npos);
    EXPECT_EQ(store.last("BTCUSD", "trend"), 3u);  // ... and nothing changed in memory
    EXPECT_TRUE(fs::exists(dir.path() + "/publications.seq.tmp"));  // the "crash" leftover
    ops.fail_rename = false;
    EXPECT_EQ(next_ok(store, "BTCUSD", "trend"), 4u);  // a retry in the same process
    handed_out.insert(4);
    ops.fail_rename = true;
    EXPECT_FALSE(store.next("BTCUSD", "trend").ok());
  }  // the process dies here, publications.seq.tmp (holding 5) left behind
  auto store = open_ok(dir.path());
  const uint64_t after = next_ok(store, "BTCUSD", "trend");
  EXPECT_EQ(handed_out.count(after), 0u);
  EXPECT_EQ(after, 5u);
  EXPECT_FALSE(fs::exists(dir.path() + "/publications.seq.tmp"));  // replaced by the rename
}

// A crash after the rename but before the number was used: the reopened store skips it.
TEST(SequenceStore, CrashAfterRenameLeavesAGapNotAReuse) {
  SeqStoreDir dir;
  {
    auto store = open_ok(dir.path());
    EXPECT_EQ(next_ok(store, "S", "t"), 1u);
    EXPECT_EQ(next_ok(store, "S", "t"), 2u);  // persisted, then "never published"
  }
  auto store = open_ok(dir.path());
  EXPECT_EQ(next_ok(store, "S", "t"), 3u);
}

TEST(SequenceStore, CorruptFilesAreRejectedNamingTheFile) {
  const std::string valid_body = "wfod-publications 1\nBTCUSD trend 42\n";
  const std::pair<std::string, std::string> cases[] = {
      {"", "newline"},
      {"garbage\n", "line 1"},
      {valid_body, "no crc32 line"},
      {with_crc(valid_body).substr(0, with_crc(valid_body).size() - 3), "newline"},
      {"wfod-publications 1\nBTCUSD trend 4\ncrc32 " +
           with_crc(valid_body).substr(valid_body.size() + 6),
       "CRC mismatch"},
      {with_crc("wfod-publications 1\nBTCUSD trend x\n"), "line 2"},
      {with_crc("wfod-publications 1\nBTCUSD trend 0\n"), "line 2"},
      {with_crc("wfod-publications 1\nBTCUSD trend\n"), "line 2"},
      {with_crc("wfod-publications 1\nBTCUSD trend 1 2\n"), "line 2"},
      {with_crc("wfod-publications 1\nBTCUSD trend 99999999999999999999999\n"), "line 2"},
      {with_crc("wfod-publications 1\nA t 1\nA t 2\n"), "listed twice"},
      {with_crc("wfod-publications 2\n"), "line 1"},
      {with_crc(valid_body) + "X 1 2\n", "after the crc32"},
  };
  for (const auto& [text, detail] : cases) {
    SCOPED_TRACE(text);
    SeqStoreDir dir;
    const std::string path = dir.path() + "/publications.seq";
    write_text(path, text);
    auto store = SequenceStore::open(dir.path());
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().message.find(path), std::string::npos) << store.error().message;
    EXPECT_NE(store.error().message.find(detail), std::string::npos) << store.error().message;
    EXPECT_EQ(read_text(path), text);  // left for the operator, untouched
  }
  // The same file, intact, loads.
  SeqStoreDir dir;
  write_text(dir.path() + "/publications.seq", with_crc(valid_body));
  auto store = open_ok(dir.path());
  EXPECT_EQ(next_ok(store, "BTCUSD", "trend"), 43u);
}

TEST(SequenceStore, BadStreamNamesAreRefused) {
  SeqStoreDir dir;
  auto store = open_ok(dir.path());
  for (auto [sym, strat] : {std::pair<std::string, std::string>{"", "t"},
                            {"S", ""},
                            {"A B", "t"},
                            {"S", "t\n1"},
                            {"S\xC3\xA9", "t"}}) {
    auto seq = store.next(sym, strat);
    EXPECT_FALSE(seq.ok());
    if (!seq.ok()) {
      EXPECT_EQ(seq.error().code, EINVAL);
    }
  }
  EXPECT_TRUE(store.entries().empty());
  EXPECT_FALSE(fs::exists(store.path()));
}

}  // namespace
}  // namespace wfod::daemon

namespace wfod::daemon {
namespace {

TEST(SequenceStore, TopUpRenewsTheBlockEarlySoNextNeverRewrites) {
  SeqStoreDir dir;
  CrashOps ops;  // counts renames: each is one rewrite of publications.seq
  ops.skip_syncs = true;
  SequenceStoreOptions options;
  options.ops = &ops;
  options.reserve = 8;
  auto store = open_ok(dir.path(), options);
  ASSERT_TRUE(store.reserve_all({{"A", "x"}}).ok());
  int next_rewrites = 0;
  for (uint64_t want = 1; want <= 100; ++want) {
    const int before = ops.renames;
    EXPECT_EQ(next_ok(store, "A", "x"), want);
    next_rewrites += ops.renames - before;
    ASSERT_TRUE(store.top_up("A", "x").ok());
    // Never more than reserve - 1 numbers reserved beyond those handed out.
    const uint64_t reserved = store.entries().at({"A", "x"});
    EXPECT_GE(reserved, want + 1);
    EXPECT_LE(reserved, want + 7);
  }
  EXPECT_EQ(next_rewrites, 0) << "next() had to persist: top_up did not keep ahead";
  // One rewrite per reserve - 1 - reserve / 2 = 3 numbers here (not one per number).
  EXPECT_LE(ops.renames, 1 + 100 / 3 + 1);
  // A crash now: the numbers go on after the reservation, none repeated.
  const uint64_t reserved = store.entries().at({"A", "x"});
  auto reopened = open_ok(dir.path(), options);
  EXPECT_EQ(next_ok(reopened, "A", "x"), reserved + 1);
}

TEST(SequenceStore, TopUpWithoutReservationsDoesNothing) {
  SeqStoreDir dir;
  CrashOps ops;
  ops.skip_syncs = true;
  SequenceStoreOptions options;
  options.ops = &ops;
  auto store = open_ok(dir.path(), options);  // reserve = 1
  EXPECT_EQ(next_ok(store, "A", "x"), 1u);
  const int before = ops.renames;
  ASSERT_TRUE(store.top_up("A", "x").ok());
  EXPECT_EQ(ops.renames, before);
}

}  // namespace
}  // namespace wfod::daemon
