// Tests of the daemon's bar log (daemon/store/bar_store.cpp): CRC32 check value, the byte
// layout docs/operations.md documents, symbol escaping, seeded round trips, recovery from
// truncation at every offset and random byte flips, fsync policies, and disk errors
// (ENOSPC, EIO, EINTR, short writes) injected through FileOps.
#include "wfod/daemon/store/bar_store.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {
namespace {

namespace fs = std::filesystem;
using config::FsyncPolicy;
using Bytes = std::vector<unsigned char>;

// A fresh directory per test, removed with everything in it.
class BarStoreDir : public test::TempDir {
 public:
  BarStoreDir() : test::TempDir("wfod_bar_store") {}
};

// Real writes, renames and truncations; syncs counted but skipped, so loops of hundreds of
// opens stay fast (durability is the kernel's part; the logic under test is ours). Knobs
// inject the failures a full or failing disk produces.
class TestOps : public PosixFileOps {
 public:
  int fail_writes = 0;  // errno for writes; the first failing write is torn (short) first
  int fail_syncs = 0;   // errno for fdatasync / fsync
  bool short_writes = false;
  bool eintr = false;  // about one call in three fails with EINTR first
  uint64_t fdatasync_calls = 0;
  uint64_t fsync_calls = 0;
  uint64_t write_calls = 0;

  ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) override {
    ++write_calls;
    if (eintr && rng_() % 3 == 0) return fail(EINTR);
    if (fail_writes != 0) {
      if (!torn_ && size > 20) {
        torn_ = true;  // a disk filling up mid-record: part of it lands, then ENOSPC
        return ::pwrite(fd, data, 20, offset);
      }
      return fail(fail_writes);
    }
    torn_ = false;
    if (short_writes && size > 1) size = 1 + rng_() % size;
    return ::pwrite(fd, data, size, offset);
  }
  int fdatasync(int) override {
    ++fdatasync_calls;
    if (eintr && rng_() % 3 == 0) return fail(EINTR);
    return fail_syncs != 0 ? fail(fail_syncs) : 0;
  }
  int fsync(int) override {
    ++fsync_calls;
    return fail_syncs != 0 ? fail(fail_syncs) : 0;
  }

 private:
  static int fail(int err) {
    errno = err;
    return -1;
  }
  bool torn_ = false;
  std::mt19937 rng_{7};
};

std::vector<Bar> random_bars(std::mt19937_64& rng, size_t n, int64_t start_ts = 1'700'000'000) {
  std::vector<Bar> bars;
  std::uniform_real_distribution<double> move(-0.02, 0.02);
  int64_t ts = start_ts * 1'000'000'000;
  double close = 100;
  for (size_t i = 0; i < n; ++i) {
    ts += 1 + static_cast<int64_t>(rng() % 120'000'000'000ULL);
    Bar b;
    b.ts_ns = ts;
    b.open = close;
    close *= 1 + move(rng);
    b.close = close;
    b.high = std::max(b.open, b.close) * (1 + std::abs(move(rng)));
    b.low = std::min(b.open, b.close) * (1 - std::abs(move(rng)));
    b.volume = static_cast<double>(rng() % 100000) / 7;
    b.seq = rng() % 4 == 0 ? 0 : rng();
    bars.push_back(b);
  }
  return bars;
}

// Bit-exact: the log stores doubles as bit patterns, so -0.0 and NaN payloads survive too.
void expect_bars(const OpenedBarStore& got, const std::vector<Bar>& want, size_t n) {
  ASSERT_EQ(got.bars.size(), n);
  ASSERT_EQ(got.seqs.size(), n);
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got.bars.ts_ns[i], want[i].ts_ns);
    EXPECT_EQ(std::bit_cast<uint64_t>(got.bars.open[i]), std::bit_cast<uint64_t>(want[i].open));
    EXPECT_EQ(std::bit_cast<uint64_t>(got.bars.high[i]), std::bit_cast<uint64_t>(want[i].high));
    EXPECT_EQ(std::bit_cast<uint64_t>(got.bars.low[i]), std::bit_cast<uint64_t>(want[i].low));
    EXPECT_EQ(std::bit_cast<uint64_t>(got.bars.close[i]), std::bit_cast<uint64_t>(want[i].close));
    EXPECT_EQ(std::bit_cast<uint64_t>(got.bars.volume[i]), std::bit_cast<uint64_t>(want[i].volume));
    EXPECT_EQ(got.seqs[i], want[i].seq);
  }
}

OpenedBarStore open_ok(const std::string& dir, std::string_view symbol,
                       const BarStoreOptions& options = {}) {
  auto opened = BarStore::open(dir, symbol, options);
  // Thrown, so gtest fails just this test with the store's message.
  if (!opened.ok()) throw std::runtime_error("open failed: " + opened.error().message);
  return std::move(opened).value();
}

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const unsigned char* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// A log file made by hand, for contents the store itself would never write.
Bytes make_log(std::string_view symbol, const std::vector<Bar>& bars) {
  auto header = bar_log::encode_header(symbol);
  Bytes bytes(header.begin(), header.end());
  for (const Bar& b : bars) {
    auto r = bar_log::encode_record(b);
    bytes.insert(bytes.end(), r.begin(), r.end());
  }
  return bytes;
}

std::vector<std::string> quarantine_files(const std::string& state_dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(state_dir + "/bars")) {
    if (e.path().filename().string().find(".quarantine.") != std::string::npos) {
      out.push_back(e.path().string());
    }
  }
  return out;
}

uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
uint64_t le64(const unsigned char* p) {
  return static_cast<uint64_t>(le32(p)) | static_cast<uint64_t>(le32(p + 4)) << 32;
}

// ---------------------------------------------------------------------------------------

TEST(Crc32, StandardCheckValue) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc32(""), 0u);
  EXPECT_EQ(crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
  // Running value: the CRC of a split input equals that of the whole.
  EXPECT_EQ(crc32_extend(crc32("12345"), "6789", 4), 0xCBF43926u);
}

// The eight-bytes-a-step loop equals the one-byte-a-step definition at every length and
// alignment, and when a running value is continued at any split.
TEST(Crc32, SlicedLoopEqualsTheBytewiseDefinition) {
  auto bytewise = [](uint32_t crc, const unsigned char* p, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
      crc ^= p[i];
      for (int k = 0; k < 8; ++k) crc = (crc & 1u) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
  };
  std::mt19937_64 rng(3);
  std::vector<unsigned char> buf(4096 + 16);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  for (size_t offset = 0; offset < 8; ++offset)
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 63u, 64u, 65u, 1000u, 4096u}) {
      SCOPED_TRACE(::testing::Message() << "offset " << offset << ", " << n << " bytes");
      const unsigned char* p = buf.data() + offset;
      EXPECT_EQ(crc32(p, n), bytewise(0, p, n));
      const size_t split = n / 3;
      EXPECT_EQ(crc32_extend(crc32(p, split), p + split, n - split), bytewise(0, p, n));
    }
}

TEST(BarLogFormat, LayoutMatchesTheDocumentedOffsets) {
  auto h = bar_log::encode_header("BTC/USD:PERPETUAL-SWAP-X");  // 24 bytes: prefix kept
  EXPECT_EQ(std::memcmp(h.data(), "WFBS", 4), 0);
  EXPECT_EQ(h[4] | h[5] << 8, 1);
  EXPECT_EQ(h[6] | h[7] << 8, 64);
  EXPECT_EQ(h[8], 24);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&h[9]), 19), "BTC/USD:PERPETUAL-S");
  EXPECT_EQ(le32(&h[28]), crc32(h.data(), 28));

  Bar b{1'700'000'000'123'456'789, 1.5, 2.5, 0.5, 2.0, 1234.0, 42};
  auto r = bar_log::encode_record(b);
  EXPECT_EQ(static_cast<int64_t>(le64(&r[0])), b.ts_ns);
  EXPECT_EQ(le64(&r[8]), std::bit_cast<uint64_t>(1.5));
  EXPECT_EQ(le64(&r[16]), std::bit_cast<uint64_t>(2.5));
  EXPECT_EQ(le64(&r[24]), std::bit_cast<uint64_t>(0.5));
  EXPECT_EQ(le64(&r[32]), std::bit_cast<uint64_t>(2.0));
  EXPECT_EQ(le64(&r[40]), std::bit_cast<uint64_t>(1234.0));
  EXPECT_EQ(le64(&r[48]), 42u);
  EXPECT_EQ(le32(&r[56]), 0u);
  EXPECT_EQ(le32(&r[60]), crc32(r.data(), 60));
  auto back = bar_log::decode_record(r.data());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->ts_ns, b.ts_ns);
  EXPECT_EQ(back->seq, 42u);
  r[57] ^= 1;  // the reserved bytes are covered by the CRC as well
  EXPECT_FALSE(bar_log::decode_record(r.data()).has_value());
}

TEST(BarLogFormat, SymbolEscapingIsReversible) {
  const std::pair<std::string, std::string> cases[] = {
      {"BTCUSD", "BTCUSD"},     {"BTC/USD", "BTC%2FUSD"}, {"ES:1", "ES%3A1"},
      {".hidden", "%2Ehidden"}, {"a.b-c_d", "a.b-c_d"},   {"%", "%25"},
      {"..", "%2E."},           {"x y", "x%20y"},
  };
  for (const auto& [symbol, escaped] : cases) {
    EXPECT_EQ(bar_log::escape_symbol(symbol), escaped);
    EXPECT_EQ(bar_log::unescape_symbol(escaped), symbol);
  }
  EXPECT_EQ(bar_log::file_name("BTC/USD"), "BTC%2FUSD.wfb");
  // Only canonical names decode: every file name maps to one symbol and back.
  for (std::string_view bad : {"", "%2f", "%G1", "%2", "a/b", ".x", "%41"}) {
    EXPECT_FALSE(bar_log::unescape_symbol(bad).has_value()) << bad;
  }
  // Seeded random symbols over the SPEC §1 alphabet.
  const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/-";
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    std::string s(1 + rng() % 32, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    std::string e = bar_log::escape_symbol(s);
    EXPECT_EQ(e.find_first_of("/:"), std::string::npos);
    EXPECT_NE(e[0], '.');
    EXPECT_EQ(bar_log::unescape_symbol(e), s);
  }
}

TEST(BarStore, RoundTripOfRandomBarsAcrossReopens) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    BarStoreDir dir;
    TestOps ops;
    BarStoreOptions options;
    options.ops = &ops;
    options.fsync = static_cast<FsyncPolicy>(seed % 3);
    auto bars = random_bars(rng, 1 + rng() % 800);
    const size_t split = rng() % bars.size();
    {
      auto opened = open_ok(dir.path(), "BTC/USD", options);
      EXPECT_TRUE(opened.report.clean());
      EXPECT_EQ(opened.bars.size(), 0u);
      for (size_t i = 0; i < split; ++i) ASSERT_TRUE(opened.store.append(bars[i]).ok());
      EXPECT_EQ(opened.store.records(), split);
    }
    {
      auto opened = open_ok(dir.path(), "BTC/USD", options);
      EXPECT_TRUE(opened.report.clean());
      expect_bars(opened, bars, split);
      if (split > 0) {
        EXPECT_EQ(opened.store.last_ts(), bars[split - 1].ts_ns);
      }
      for (size_t i = split; i < bars.size(); ++i) ASSERT_TRUE(opened.store.append(bars[i]).ok());
      ASSERT_TRUE(opened.store.flush().ok());
    }
    auto opened = open_ok(dir.path(), "BTC/USD", options);
    EXPECT_TRUE(opened.report.clean()) << opened.report.reason;
    EXPECT_EQ(opened.report.records_loaded, bars.size());
    expect_bars(opened, bars, bars.size());
    EXPECT_EQ(fs::file_size(opened.store.path()), 32 + 64 * bars.size());
    EXPECT_TRUE(fs::exists(dir.path() + "/bars/BTC%2FUSD.wfb"));
  }
}

// load_newest: every record is still checked, only the newest are returned (a restart's
// memory follows the strategies, not the log), and the store continues after the last one.
TEST(BarStore, LoadNewestReturnsTheTailAndStillChecksEveryRecord) {
  std::mt19937_64 rng(11);
  const auto bars = random_bars(rng, 3000);
  BarStoreDir dir;
  {
    auto opened = open_ok(dir.path(), "ETH", {});
    for (const Bar& b : bars) ASSERT_TRUE(opened.store.append(b).ok());
    ASSERT_TRUE(opened.store.flush().ok());
  }
  BarStoreOptions options;
  options.load_newest = 700;
  {
    auto opened = open_ok(dir.path(), "ETH", options);
    EXPECT_TRUE(opened.report.clean());
    EXPECT_EQ(opened.report.records_loaded, 3000u);
    EXPECT_EQ(opened.first, 2300u);
    expect_bars(opened, std::vector<Bar>(bars.begin() + 2300, bars.end()), 700);
    EXPECT_EQ(opened.store.records(), 3000u);
    EXPECT_EQ(opened.store.last_ts(), bars.back().ts_ns);
    Bar next = bars.back();
    next.ts_ns += 1;
    ASSERT_TRUE(opened.store.append(next).ok());
    ASSERT_TRUE(opened.store.flush().ok());
    EXPECT_EQ(fs::file_size(opened.store.path()), 32u + 64u * 3001);
  }
  options.load_newest = 5000;  // more than the log holds: all of it
  EXPECT_EQ(open_ok(dir.path(), "ETH", options).first, 0u);
  // A flipped byte far before the tail is still found (refuse names it).
  const std::string log = dir.path() + "/bars/ETH.wfb";
  Bytes bytes = read_file(log);
  bytes[32 + 10 * 64 + 3] ^= 0x01;
  write_file(log, bytes.data(), bytes.size());
  options.load_newest = 700;
  auto refused = BarStore::open(dir.path(), "ETH", options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("record 10 at byte 672"), std::string::npos)
      << refused.error().message;
}

TEST(BarStore, SpecialDoublesSurviveBitExact) {
  BarStoreDir dir;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Bar> bars = {
      {1, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 5e-324, 0},
      {2, std::numeric_limits<double>::max(), 1, 1, 1, 0, std::numeric_limits<uint64_t>::max()},
      {std::numeric_limits<int64_t>::max(), 1, 1, 1, 1, 1, 1},
  };
  {
    auto opened = open_ok(dir.path(), "X");
    for (const Bar& b : bars) ASSERT_TRUE(opened.store.append(b).ok());
  }
  expect_bars(open_ok(dir.path(), "X"), bars, bars.size());
}

TEST(BarStore, AppendRefusesTsNotAfterTheLastAccepted) {
  BarStoreDir dir;
  auto opened = open_ok(dir.path(), "ES:1");
  ASSERT_TRUE(opened.store.append({100, 1, 1, 1, 1, 0, 0}).ok());
  for (int64_t ts : {100, 99, -5}) {
    auto r = opened.store.append({ts, 1, 1, 1, 1, 0, 0});
    EXPECT_EQ(r.state, AppendState::refused);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_NE(r.error->message.find("not after"), std::string::npos) << r.error->message;
  }
  EXPECT_EQ(opened.store.records(), 1u);
  EXPECT_EQ(opened.store.stats().refused, 3u);
  EXPECT_TRUE(opened.store.healthy());
}

TEST(BarStore, SecondOpenOfTheSameLogIsLocked) {
  BarStoreDir dir;
  auto first = open_ok(dir.path(), "BTCUSD");
  auto second = BarStore::open(dir.path(), "BTCUSD");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("BTCUSD.wfb"), std::string::npos);
  EXPECT_NE(second.error().message.find("another store"), std::string::npos);
}

TEST(BarStore, ALogDeletedMovedOrReplacedWhileOpenIsLost) {
  // rm -rf of the state_dir while the daemon runs: the open log keeps taking writes into a
  // file no start will read. check_file() tells, and the store is unhealthy from then on.
  BarStoreDir dir;
  auto opened = open_ok(dir.path(), "BTC/USD");
  BarStore& store = opened.store;
  const std::string path = store.path();
  ASSERT_TRUE(store.append({1, 1, 1, 1, 1, 0, 0}).ok());
  EXPECT_TRUE(store.check_file().ok());
  EXPECT_FALSE(store.lost());

  // Moved away, then back: lost only while it is not at its path.
  fs::rename(path, path + ".moved");
  Status s = store.check_file();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("moved away"), std::string::npos) << s.error().message;
  EXPECT_TRUE(store.lost());
  EXPECT_FALSE(store.healthy());
  ASSERT_TRUE(store.last_error());
  EXPECT_NE(store.last_error()->message.find(path), std::string::npos);
  fs::rename(path + ".moved", path);
  EXPECT_TRUE(store.check_file().ok());
  EXPECT_TRUE(store.healthy());

  // Another file at its path.
  fs::rename(path, path + ".old");
  write_file(path, reinterpret_cast<const unsigned char*>("x"), 1);
  s = store.check_file();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("replaced"), std::string::npos) << s.error().message;
  fs::remove(path);
  fs::rename(path + ".old", path);
  EXPECT_TRUE(store.check_file().ok());

  // The whole state_dir removed: writes still succeed, but the log is gone for good.
  fs::remove_all(dir.path());
  ASSERT_TRUE(store.append({2, 1, 1, 1, 1, 0, 0}).ok());
  s = store.check_file();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("deleted while open"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("its 2 bars"), std::string::npos) << s.error().message;
  EXPECT_FALSE(store.healthy());
  EXPECT_EQ(store.pending(), 0u);
  fs::create_directories(dir.path());  // a new directory does not bring the file back
  EXPECT_FALSE(store.check_file().ok());
}

TEST(BarStore, BadSymbolsAreRefused) {
  BarStoreDir dir;
  EXPECT_FALSE(BarStore::open(dir.path(), "").ok());
  EXPECT_FALSE(BarStore::open(dir.path(), std::string(33, 'A')).ok());
  EXPECT_TRUE(BarStore::open(dir.path(), std::string(32, 'A')).ok());
}

// Every prefix of a 5-record log is what a kill -9 mid-write can leave: load keeps exactly
// the whole records, quarantines the rest byte for byte, and the next load is clean.
TEST(BarStore, TruncationAtEveryOffsetKeepsExactlyTheIntactRecords) {
  std::mt19937_64 rng(11);
  const auto bars = random_bars(rng, 5);
  const Bytes full = make_log("BTC/USD", bars);
  ASSERT_EQ(full.size(), 32u + 5 * 64);
  TestOps ops;
  BarStoreOptions options;
  options.ops = &ops;
  BarStoreDir dir;
  fs::create_directories(dir.path() + "/bars");
  const std::string log = dir.path() + "/bars/" + bar_log::file_name("BTC/USD");
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    SCOPED_TRACE(cut);
    // Files, not the directory: cheaper on a busy disk, and open() must cope with an
    // existing bars/ anyway.
    for (const auto& f : quarantine_files(dir.path())) fs::remove(f);
    write_file(log, full.data(), cut);
    const size_t whole = cut < 32 ? 0 : (cut - 32) / 64;
    const size_t good = cut < 32 ? 0 : 32 + whole * 64;
    {
      auto opened = open_ok(dir.path(), "BTC/USD", options);
      EXPECT_EQ(opened.report.records_loaded, whole);
      EXPECT_EQ(opened.report.bytes_quarantined, cut - good);
      expect_bars(opened, bars, whole);
      auto quarantined = quarantine_files(dir.path());
      if (cut == good) {
        EXPECT_TRUE(opened.report.clean());
        EXPECT_TRUE(quarantined.empty());
      } else {
        EXPECT_FALSE(opened.report.reason.empty());
        ASSERT_EQ(quarantined.size(), 1u);
        EXPECT_EQ(quarantined[0], opened.report.quarantine_path);
        EXPECT_EQ(read_file(quarantined[0]), Bytes(full.begin() + good, full.begin() + cut));
      }
      EXPECT_EQ(fs::file_size(log), std::max<size_t>(good, 32));
      // The store appends right after the intact records.
      if (whole < bars.size()) {
        ASSERT_TRUE(opened.store.append(bars[whole]).ok());
      }
    }
    auto again = open_ok(dir.path(), "BTC/USD", options);
    EXPECT_TRUE(again.report.clean()) << again.report.reason;
    expect_bars(again, bars, std::min(whole + 1, bars.size()));
  }
}

// Under on_corrupt = quarantine; whether a flip is corruption (an intact record follows the
// first bad one, or the header is bad with records behind it) or looks like a torn tail
// (every record after the first bad one is damaged too) is reported exactly.
TEST(BarStore, RandomByteFlipsNeverCrashAndKeepTheIntactPrefix) {
  TestOps ops;
  BarStoreOptions options;
  options.ops = &ops;
  options.on_corrupt = config::CorruptLogPolicy::quarantine;
  BarStoreDir dir;
  fs::create_directories(dir.path() + "/bars");
  const std::string log = dir.path() + "/bars/" + bar_log::file_name("ETH/USD");
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    const auto bars = random_bars(rng, 12);
    Bytes bytes = make_log("ETH/USD", bars);
    size_t first_bad = bytes.size();
    std::vector<bool> touched(bars.size(), false);
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
      const size_t at = rng() % bytes.size();
      bytes[at] ^= static_cast<unsigned char>(1 + rng() % 255);
      first_bad = std::min(first_bad, at);
      if (at >= 32) touched[(at - 32) / 64] = true;
    }
    const size_t whole = first_bad < 32 ? 0 : (first_bad - 32) / 64;
    const size_t good = first_bad < 32 ? 0 : 32 + whole * 64;
    bool intact_after = false;
    for (size_t i = first_bad < 32 ? 0 : whole + 1; i < bars.size(); ++i) {
      intact_after = intact_after || !touched[i];
    }
    for (const auto& f : quarantine_files(dir.path())) fs::remove(f);
    write_file(log, bytes.data(), bytes.size());
    auto opened = open_ok(dir.path(), "ETH/USD", options);
    EXPECT_EQ(opened.report.records_loaded, whole) << opened.report.reason;
    EXPECT_EQ(opened.report.bytes_quarantined, bytes.size() - good);
    EXPECT_NE(opened.report.reason.find(first_bad < 32 ? "header" : "CRC mismatch"),
              std::string::npos)
        << opened.report.reason;
    EXPECT_EQ(opened.report.corrupt, first_bad < 32 || intact_after) << opened.report.reason;
    EXPECT_EQ(opened.report.records_quarantined, bars.size() - whole);
    expect_bars(opened, bars, whole);
  }
}

// The tester's case: 3,000 bars, one byte flipped in the middle. Refused by default with the
// file, byte offset and bar named, and the file left exactly as it was.
TEST(BarStore, CorruptMiddleIsRefusedNamingTheOffsetAndTouchingNothing) {
  std::mt19937_64 rng(5);
  const auto bars = random_bars(rng, 3000);
  Bytes bytes = make_log("BTC/USD", bars);
  const size_t bad_at = 32 + 1500 * 64 + 17;  // inside record 1500 (its high)
  bytes[bad_at] ^= 0x40;
  BarStoreDir dir;
  fs::create_directories(dir.path() + "/bars");
  const std::string log = dir.path() + "/bars/BTC%2FUSD.wfb";
  write_file(log, bytes.data(), bytes.size());

  auto refused = BarStore::open(dir.path(), "BTC/USD");  // on_corrupt = refuse, the default
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(is_content_error(refused.error()));
  const std::string& m = refused.error().message;
  EXPECT_NE(m.find(log), std::string::npos) << m;
  EXPECT_NE(m.find("record 1500 at byte 96032: CRC mismatch"), std::string::npos) << m;
  EXPECT_NE(m.find("1499 intact record(s) follow it"), std::string::npos) << m;
  EXPECT_NE(m.find("on_corrupt_log = \"quarantine\""), std::string::npos) << m;
  EXPECT_EQ(read_file(log), bytes);
  EXPECT_TRUE(quarantine_files(dir.path()).empty());

  BarStoreOptions options;
  options.on_corrupt = config::CorruptLogPolicy::quarantine;
  auto opened = open_ok(dir.path(), "BTC/USD", options);
  EXPECT_TRUE(opened.report.corrupt);
  EXPECT_EQ(opened.report.records_loaded, 1500u);
  EXPECT_EQ(opened.report.records_quarantined, 1500u);
  EXPECT_EQ(opened.report.bytes_quarantined, 1500u * 64);
  expect_bars(opened, bars, 1500);
  EXPECT_EQ(read_file(opened.report.quarantine_path), Bytes(bytes.begin() + 96032, bytes.end()));
  EXPECT_EQ(fs::file_size(log), 96032u);
}

TEST(BarStore, BadHeaderWithRecordsIsCorruptionAlone) {
  std::mt19937_64 rng(6);
  const auto bars = random_bars(rng, 40);
  BarStoreDir dir;
  fs::create_directories(dir.path() + "/bars");
  const std::string log = dir.path() + "/bars/S.wfb";
  Bytes bytes = make_log("S", bars);
  bytes[10] ^= 1;  // the symbol copy: the header CRC fails
  write_file(log, bytes.data(), bytes.size());
  auto refused = BarStore::open(dir.path(), "S");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("header at byte 0: CRC mismatch, and 40 intact"),
            std::string::npos)
      << refused.error().message;
  EXPECT_EQ(read_file(log), bytes);

  BarStoreOptions options;
  options.on_corrupt = config::CorruptLogPolicy::quarantine;
  {
    auto opened = open_ok(dir.path(), "S", options);
    EXPECT_TRUE(opened.report.corrupt);
    EXPECT_EQ(opened.report.records_loaded, 0u);
    EXPECT_EQ(opened.report.records_quarantined, 40u);
  }
  // A bad header with nothing behind it (a crash while creating the log) loses nothing: it
  // is recovered under refuse too.
  for (const auto& f : quarantine_files(dir.path())) fs::remove(f);
  Bytes header_only(bytes.begin(), bytes.begin() + 32);
  write_file(log, header_only.data(), header_only.size());
  auto opened = open_ok(dir.path(), "S");
  EXPECT_FALSE(opened.report.corrupt);
  EXPECT_EQ(opened.report.bytes_quarantined, 32u);
}

// What a crash leaves at the end of a log is recovered under refuse: a partial record, or
// whole records that never reached the disk (zeros after a power loss under fsync = batch).
TEST(BarStore, TornTailsAreRecoveredUnderRefuse) {
  std::mt19937_64 rng(8);
  const auto bars = random_bars(rng, 20);
  const Bytes full = make_log("S", bars);
  std::vector<Bytes> tails;
  tails.emplace_back(full.begin(), full.end() - 30);  // the last record cut short
  Bytes zeros = full;
  std::fill(zeros.end() - 3 * 64, zeros.end(), 0);  // 3 unwritten records
  tails.push_back(zeros);
  zeros.erase(zeros.end() - 10, zeros.end());  // and a partial one
  tails.push_back(zeros);
  Bytes last_bad = full;
  last_bad[last_bad.size() - 5] ^= 0xff;  // only the last record fails its CRC
  tails.push_back(last_bad);
  for (size_t k = 0; k < tails.size(); ++k) {
    SCOPED_TRACE(k);
    BarStoreDir dir;
    fs::create_directories(dir.path() + "/bars");
    write_file(dir.path() + "/bars/S.wfb", tails[k].data(), tails[k].size());
    auto opened = open_ok(dir.path(), "S");
    EXPECT_FALSE(opened.report.clean());
    EXPECT_FALSE(opened.report.corrupt) << opened.report.reason;
    EXPECT_EQ(opened.report.records_loaded, k == 0 || k == 3 ? 19u : 17u);
  }
}

// A record that passes its CRC but does not increase ts was written so: corruption, refused
// by default, and with on_corrupt = quarantine the prefix before it is kept.
TEST(BarStore, NonIncreasingTsInTheFileEndsTheIntactPrefix) {
  std::vector<Bar> bars(6);
  const int64_t ts[] = {10, 20, 30, 30, 40, 50};  // a duplicate ts at record 3
  for (size_t i = 0; i < 6; ++i) bars[i] = {ts[i], 1, 1, 1, 1, 0, i};
  for (int64_t bad : {30, 25}) {  // equal, then older
    SCOPED_TRACE(bad);
    bars[3].ts_ns = bad;
    BarStoreDir dir;
    fs::create_directories(dir.path() + "/bars");
    Bytes bytes = make_log("SYM", bars);
    write_file(dir.path() + "/bars/SYM.wfb", bytes.data(), bytes.size());
    auto refused = BarStore::open(dir.path(), "SYM");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("record 3 at byte 224"), std::string::npos);
    EXPECT_EQ(read_file(dir.path() + "/bars/SYM.wfb"), bytes);
    BarStoreOptions options;
    options.on_corrupt = config::CorruptLogPolicy::quarantine;
    auto opened = open_ok(dir.path(), "SYM", options);
    EXPECT_TRUE(opened.report.corrupt);
    EXPECT_EQ(opened.report.records_loaded, 3u);
    EXPECT_EQ(opened.report.bytes_quarantined, 3u * 64);
    EXPECT_EQ(opened.report.reason, "record 3 at byte 224: ts " + std::to_string(bad) +
                                        " not after the previous "
                                        "record's 30");
    EXPECT_EQ(opened.store.last_ts(), 30);
  }
}

TEST(BarStore, ValidHeaderOfAnotherSymbolOrVersionIsRefusedAndUntouched) {
  BarStoreDir dir;
  fs::create_directories(dir.path() + "/bars");
  const std::string path = dir.path() + "/bars/BTCUSD.wfb";
  Bytes other = make_log("ETHUSD", {{1, 1, 1, 1, 1, 1, 1}});
  write_file(path, other.data(), other.size());
  auto opened = BarStore::open(dir.path(), "BTCUSD");
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().message.find("holds symbol 'ETHUSD'"), std::string::npos)
      << opened.error().message;
  EXPECT_EQ(read_file(path), other);

  Bytes v2 = make_log("BTCUSD", {});
  v2[4] = 2;
  const uint32_t crc = crc32(v2.data(), 28);
  for (int i = 0; i < 4; ++i) v2[28 + i] = static_cast<unsigned char>(crc >> (8 * i));
  write_file(path, v2.data(), v2.size());
  opened = BarStore::open(dir.path(), "BTCUSD");
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().message.find("format version 2"), std::string::npos);
  EXPECT_EQ(read_file(path), v2);
  EXPECT_TRUE(quarantine_files(dir.path()).empty());
}

// ---------------------------------------------------------------------------------------
// fsync policies, observed through the store's fdatasync counter.

struct PolicyRun {
  BarStoreDir dir;
  TestOps ops;
  std::chrono::steady_clock::time_point now{};
  std::optional<OpenedBarStore> opened;

  explicit PolicyRun(FsyncPolicy policy, size_t batch = 256, int interval_ms = 50) {
    BarStoreOptions options;
    options.fsync = policy;
    options.ops = &ops;
    options.batch_records = batch;
    options.batch_interval = std::chrono::milliseconds(interval_ms);
    options.clock = [this] { return now; };
    opened.emplace(open_ok(dir.path(), "S", options));
  }
  BarStore& store() { return opened->store; }
  uint64_t syncs() { return store().stats().fdatasyncs; }
  void append(int64_t ts) { ASSERT_TRUE(store().append({ts, 1, 1, 1, 1, 0, 0}).ok()); }
};

TEST(BarStoreFsync, EverySyncsEachAppend) {
  PolicyRun run(FsyncPolicy::every);
  for (int i = 1; i <= 10; ++i) {
    run.append(i);
    EXPECT_EQ(run.syncs(), static_cast<uint64_t>(i));
  }
  ASSERT_TRUE(run.store().flush().ok());
  EXPECT_EQ(run.syncs(), 10u);  // nothing left unsynced
}

TEST(BarStoreFsync, BatchSyncsOnFlushAndEveryNRecords) {
  PolicyRun run(FsyncPolicy::batch, /*batch=*/4, /*interval_ms=*/1'000'000);
  for (int i = 1; i <= 10; ++i) run.append(i);
  EXPECT_EQ(run.syncs(), 2u);  // after records 4 and 8
  ASSERT_TRUE(run.store().flush().ok());
  EXPECT_EQ(run.syncs(), 3u);  // records 9 and 10
  ASSERT_TRUE(run.store().flush().ok());
  EXPECT_EQ(run.syncs(), 3u);  // an idle flush costs nothing
}

TEST(BarStoreFsync, BatchSyncsWhenTheOldestUnsyncedRecordIsOld) {
  PolicyRun run(FsyncPolicy::batch, /*batch=*/256, /*interval_ms=*/50);
  run.append(1);
  run.now += std::chrono::milliseconds(30);
  run.append(2);
  EXPECT_EQ(run.syncs(), 0u);
  run.now += std::chrono::milliseconds(20);  // record 1 is now 50 ms old
  run.append(3);
  EXPECT_EQ(run.syncs(), 1u);
  run.now += std::chrono::milliseconds(49);
  run.append(4);  // the clock restarts with the first record after a sync
  EXPECT_EQ(run.syncs(), 1u);
}

TEST(BarStoreFsync, NoneNeverSyncs) {
  PolicyRun run(FsyncPolicy::none, /*batch=*/1, /*interval_ms=*/0);
  for (int i = 1; i <= 10; ++i) run.append(i);
  ASSERT_TRUE(run.store().flush().ok());
  EXPECT_EQ(run.syncs(), 0u);
  EXPECT_EQ(run.store().records(), 10u);
}

// ---------------------------------------------------------------------------------------
// Disk errors.

TEST(BarStoreErrors, EnospcKeepsBarsPendingAndWritesThemInOrderOnceSpaceReturns) {
  for (FsyncPolicy policy : {FsyncPolicy::every, FsyncPolicy::batch, FsyncPolicy::none}) {
    SCOPED_TRACE(static_cast<int>(policy));
    std::mt19937_64 rng(3);
    const auto bars = random_bars(rng, 60);
    BarStoreDir dir;
    TestOps ops;
    BarStoreOptions options;
    options.ops = &ops;
    options.fsync = policy;
    {
      auto opened = open_ok(dir.path(), "BTC/USD", options);
      BarStore& store = opened.store;
      for (size_t i = 0; i < 10; ++i) ASSERT_TRUE(store.append(bars[i]).ok());

      ops.fail_writes = ENOSPC;
      for (size_t i = 10; i < 30; ++i) {
        auto r = store.append(bars[i]);
        EXPECT_EQ(r.state, AppendState::pending);
        ASSERT_TRUE(r.error.has_value());
        EXPECT_EQ(r.error->code, ENOSPC);
        EXPECT_NE(r.error->message.find("BTC%2FUSD.wfb"), std::string::npos) << r.error->message;
        EXPECT_FALSE(store.healthy());
      }
      EXPECT_EQ(store.pending(), 20u);
      EXPECT_EQ(store.records(), 10u);
      EXPECT_FALSE(store.flush().ok());
      // The torn record of the failing write was cut off again.
      EXPECT_EQ(fs::file_size(store.path()), 32u + 10 * 64);

      ops.fail_writes = 0;  // space returns; the next append writes the backlog first
      ASSERT_TRUE(store.append(bars[30]).ok());
      EXPECT_TRUE(store.healthy());
      EXPECT_EQ(store.records(), 31u);

      ops.fail_writes = EIO;
      for (size_t i = 31; i < 40; ++i) {
        EXPECT_EQ(store.append(bars[i]).state, AppendState::pending);
      }
      ops.fail_writes = 0;  // this time flush() drains it
      ASSERT_TRUE(store.flush().ok());
      EXPECT_TRUE(store.healthy());
      for (size_t i = 40; i < bars.size(); ++i) ASSERT_TRUE(store.append(bars[i]).ok());
    }
    auto opened = open_ok(dir.path(), "BTC/USD", options);
    EXPECT_TRUE(opened.report.clean()) << opened.report.reason;
    expect_bars(opened, bars, bars.size());  // every bar, in order, once
  }
}

// A failed fdatasync may have dropped the dirty pages (Linux marks them clean), so the
// records written since the last good sync are written again.
TEST(BarStoreErrors, FailedFdatasyncRewritesTheUnsyncedRecords) {
  std::mt19937_64 rng(5);
  const auto bars = random_bars(rng, 20);
  BarStoreDir dir;
  TestOps ops;
  BarStoreOptions options;
  options.ops = &ops;
  options.fsync = FsyncPolicy::batch;
  options.batch_records = 1000;
  options.batch_interval = std::chrono::hours(1);
  {
    auto opened = open_ok(dir.path(), "S", options);
    BarStore& store = opened.store;
    for (size_t i = 0; i < 5; ++i) ASSERT_TRUE(store.append(bars[i]).ok());
    ASSERT_TRUE(store.flush().ok());
    for (size_t i = 5; i < 12; ++i) ASSERT_TRUE(store.append(bars[i]).ok());
    ops.fail_syncs = EIO;
    Status s = store.flush();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, EIO);
    EXPECT_EQ(store.pending(), 7u);  // bars 5..11 go back to the queue
    EXPECT_EQ(store.records(), 5u);
    EXPECT_EQ(store.stats().sync_errors, 1u);
    ops.fail_syncs = 0;
    const uint64_t written_before = store.stats().records_written;
    ASSERT_TRUE(store.append(bars[12]).ok());
    EXPECT_EQ(store.stats().records_written - written_before, 8u);
    ASSERT_TRUE(store.flush().ok());
    EXPECT_TRUE(store.healthy());
    for (size_t i = 13; i < bars.size(); ++i) ASSERT_TRUE(store.append(bars[i]).ok());
  }
  auto opened = open_ok(dir.path(), "S", options);
  EXPECT_TRUE(opened.report.clean());
  expect_bars(opened, bars, bars.size());

  // Under fsync = every the failing sync is reported by append() itself.
  BarStoreDir dir2;
  options.fsync = FsyncPolicy::every;
  auto every = open_ok(dir2.path(), "S", options);
  ops.fail_syncs = EIO;
  auto r = every.store.append(bars[0]);
  EXPECT_EQ(r.state, AppendState::pending);
  EXPECT_EQ(every.store.pending(), 1u);
  ops.fail_syncs = 0;
  ASSERT_TRUE(every.store.append(bars[1]).ok());
  EXPECT_EQ(every.store.records(), 2u);
}

TEST(BarStoreErrors, PendingQueueIsBounded) {
  BarStoreDir dir;
  TestOps ops;
  BarStoreOptions options;
  options.ops = &ops;
  options.max_pending = 5;
  auto opened = open_ok(dir.path(), "S", options);
  ops.fail_writes = ENOSPC;
  for (int ts = 1; ts <= 5; ++ts) {
    EXPECT_EQ(opened.store.append({ts, 1, 1, 1, 1, 0, 0}).state, AppendState::pending);
  }
  auto r = opened.store.append({6, 1, 1, 1, 1, 0, 0});
  EXPECT_EQ(r.state, AppendState::refused);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->message.find("5 bars already pending"), std::string::npos);
  EXPECT_EQ(opened.store.last_ts(), 5);  // the refused bar was not taken
  ops.fail_writes = 0;
  ASSERT_TRUE(opened.store.append({6, 1, 1, 1, 1, 0, 0}).ok());
  EXPECT_EQ(opened.store.records(), 6u);
}

TEST(BarStoreErrors, ShortWritesAndEintrAreRetried) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    const auto bars = random_bars(rng, 200);
    BarStoreDir dir;
    TestOps ops;
    ops.short_writes = true;
    ops.eintr = true;
    BarStoreOptions options;
    options.ops = &ops;
    options.fsync = FsyncPolicy::every;
    {
      auto opened = open_ok(dir.path(), "S", options);
      for (const Bar& b : bars) ASSERT_TRUE(opened.store.append(b).ok());
      EXPECT_GT(ops.write_calls, bars.size());  // the short writes did happen
    }
    auto opened = open_ok(dir.path(), "S");
    EXPECT_TRUE(opened.report.clean());
    expect_bars(opened, bars, bars.size());
  }
}

}  // namespace
}  // namespace wfod::daemon
