// Fuzzes the daemon's on-disk bar log loader (BarStore::open: header and record CRCs,
// strictly increasing ts, quarantine of a bad tail; SPEC §1 "nothing already accepted is
// lost or altered"). The input is the log file's bytes, written to a scratch state_dir
// before each open. Beyond "no crash, no leak, no UB" it asserts:
// Each input is opened under both [daemon] on_corrupt_log policies.
// - a refused open (another symbol, version or record size; corruption under refuse)
//   leaves the file untouched and quarantines nothing;
// - refuse never loads a log it reports corrupt; a torn tail loads under both;
// - otherwise the loaded bars have strictly increasing ts, the file is now exactly the
//   header plus one record per loaded bar, and those bytes are the input's own prefix when
//   its header was intact (records are never rewritten);
// - every byte not kept is in the quarantine file, in order: kept + quarantined == input.
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "wfod/daemon/store/bar_store.hpp"

namespace {

namespace fs = std::filesystem;
using namespace wfod::daemon;

constexpr std::string_view kSymbol = "BTC/USD";  // escaped on disk: BTC%2FUSD.wfb

// One scratch state_dir per process (tmpfs when there is one: open() fsyncs), removed
// at exit. Held by a pointer that is never destroyed, so the atexit handler, which runs
// after static destructors registered before it, can still use it.
const fs::path& state_dir() {
  static const fs::path* const dir = [] {
    const fs::path base = fs::exists("/dev/shm") ? "/dev/shm" : fs::temp_directory_path();
    std::string pattern = (base / "wfod-fuzz-bar-log-XXXXXX").string();
    WFOD_FUZZ_CHECK(mkdtemp(pattern.data()) != nullptr, "a scratch state_dir");
    fs::create_directories(fs::path(pattern) / "bars");
    std::atexit([] { fs::remove_all(state_dir()); });
    return new fs::path(pattern);
  }();
  return *dir;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The quarantine files open() left beside the log, concatenated (there is at most one).
std::string quarantined_bytes(const fs::path& bars_dir, size_t& files) {
  std::string bytes;
  files = 0;
  for (const auto& entry : fs::directory_iterator(bars_dir)) {
    if (entry.path().filename().string().find(".quarantine.") == std::string::npos) continue;
    bytes += read_file(entry.path());
    ++files;
  }
  return bytes;
}

template <size_t N>
std::string_view as_text(const std::array<unsigned char, N>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), N};
}

void check_loaded(const OpenedBarStore& opened, std::string_view input, const fs::path& log,
                  std::string_view quarantined) {
  const wfod::Series& bars = opened.bars;
  const size_t n = bars.size();
  WFOD_FUZZ_CHECK(
      opened.report.records_loaded == n && opened.store.records() == n && opened.seqs.size() == n,
      "the report, the store and the series agree on the record count");
  for (size_t i = 1; i < n; ++i) {
    WFOD_FUZZ_CHECK(bars.ts_ns[i] > bars.ts_ns[i - 1], "loaded ts strictly increase");
  }
  const std::string file = read_file(log);
  const size_t kept = bar_log::kHeaderSize + n * bar_log::kRecordSize;
  WFOD_FUZZ_CHECK(file.size() == kept, "the log is now header + the loaded records");
  WFOD_FUZZ_CHECK(std::string_view(file).substr(0, bar_log::kHeaderSize) ==
                      as_text(bar_log::encode_header(kSymbol)),
                  "the log starts with this symbol's header");
  for (size_t i = 0; i < n; ++i) {
    const wfod::Bar bar{bars.ts_ns[i], bars.open[i],   bars.high[i],  bars.low[i],
                        bars.close[i], bars.volume[i], opened.seqs[i]};
    WFOD_FUZZ_CHECK(file.substr(bar_log::kHeaderSize + i * bar_log::kRecordSize,
                                bar_log::kRecordSize) == as_text(bar_log::encode_record(bar)),
                    "each record on disk is the bar that was loaded");
  }
  const bool header_intact =
      input.substr(0, bar_log::kHeaderSize) == as_text(bar_log::encode_header(kSymbol));
  if (header_intact) {
    WFOD_FUZZ_CHECK(input.substr(0, kept) == file, "kept records are the input's own bytes");
    WFOD_FUZZ_CHECK(quarantined == input.substr(kept), "the rest of the input is quarantined");
  } else {
    WFOD_FUZZ_CHECK(n == 0, "no record is loaded past a bad header");
    WFOD_FUZZ_CHECK(quarantined == input, "a log with a bad header is quarantined whole");
  }
  WFOD_FUZZ_CHECK(opened.report.bytes_quarantined == quarantined.size(),
                  "the report counts the quarantined bytes");
  WFOD_FUZZ_CHECK(opened.report.clean() == opened.report.reason.empty(),
                  "a reason is given exactly when bytes were quarantined");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const fs::path bars_dir = state_dir() / "bars";
  const fs::path log = bars_dir / bar_log::file_name(kSymbol);
  for (const auto policy :
       {wfod::config::CorruptLogPolicy::refuse, wfod::config::CorruptLogPolicy::quarantine}) {
    write_file(log, input);
    BarStoreOptions options;
    options.fsync = wfod::config::FsyncPolicy::none;
    options.on_corrupt = policy;
    {
      Result<OpenedBarStore> opened = BarStore::open(state_dir().string(), kSymbol, options);
      size_t files = 0;
      const std::string quarantined = quarantined_bytes(bars_dir, files);
      WFOD_FUZZ_CHECK(files <= 1, "at most one quarantine file per open");
      if (opened.ok()) {
        check_loaded(opened.value(), input, log, quarantined);
        WFOD_FUZZ_CHECK(
            policy == wfod::config::CorruptLogPolicy::quarantine || !opened.value().report.corrupt,
            "refuse never loads a corrupt log");
      } else {
        WFOD_FUZZ_CHECK(read_file(log) == input, "a refused log is not touched");
        WFOD_FUZZ_CHECK(files == 0, "a refused log quarantines nothing");
      }
    }  // the store (and its flock) goes before the files do
    for (const auto& entry : fs::directory_iterator(bars_dir)) fs::remove(entry.path());
  }
  return 0;
}
