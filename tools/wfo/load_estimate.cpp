// The CSV load's memory before the load (load_estimate.hpp). It models feeds::read_csv: the
// file read whole into one std::string in 64 KiB appends, then one Series reserved for a bar
// per line, six 8-byte columns.
#include "load_estimate.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "args.hpp"
#include "run_plan.hpp"
#include "text_table.hpp"

namespace wfod::cli {

namespace {

constexpr double kColumnBytesPerBar = 6 * 8;  // ts, open, high, low, close, volume
constexpr uint64_t kReadChunk = 64 << 10;     // read_csv's fread buffer
// No bar line is shorter than this ("1,1,1,1,1\n"): the bound where the head has no whole
// data line to measure.
constexpr uint64_t kShortestBarLine = 10;
constexpr size_t kHeadBytes = 64 << 10;

// The string's capacity once the whole file is appended: libstdc++ doubles it from the
// first 64 KiB chunk, so the smallest 64 KiB x 2^k that holds the file.
double text_capacity(uint64_t file_bytes) {
  uint64_t cap = kReadChunk;
  while (cap < file_bytes) cap *= 2;
  return static_cast<double>(cap);
}

}  // namespace

LoadEstimate estimate_load(uint64_t file_bytes, std::string_view head) {
  LoadEstimate e;
  e.file_bytes = file_bytes;
  // The shortest whole line after the first (a header, or a headerless file's first bar)
  // bounds the bytes per bar from below, so the bars from above: conservative where lines
  // differ in length (prices growing digits), exact where they do not.
  uint64_t shortest = 0;
  size_t at = head.find('\n');
  while (at != std::string_view::npos) {
    const size_t end = head.find('\n', at + 1);
    if (end == std::string_view::npos) break;
    const uint64_t len = end - at;  // the line and its newline
    // Blank lines make no bar.
    const std::string_view line = head.substr(at + 1, end - at - 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos &&
        (shortest == 0 || len < shortest))
      shortest = len;
    at = end;
  }
  const uint64_t per_line = std::max(shortest == 0 ? kShortestBarLine : shortest, kShortestBarLine);
  e.bars = file_bytes / per_line + 1;
  e.text_bytes = text_capacity(file_bytes);
  e.columns_bytes = static_cast<double>(e.bars) * kColumnBytesPerBar;
  // Reading: the last doubling holds the old half and the new whole at once; parsing: the
  // text and the reserved columns.
  e.peak_bytes = kProcessBytes + std::max(1.5 * e.text_bytes, e.text_bytes + e.columns_bytes);
  return e;
}

std::optional<LoadEstimate> estimate_csv_load(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) return std::nullopt;
  std::string head(kHeadBytes, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), file.get()));
  return estimate_load(static_cast<uint64_t>(st.st_size), head);
}

void check_load(const LoadEstimate& e, const MemoryBudget& budget, const std::string& path) {
  if (e.peak_bytes <= budget.bytes) return;
  throw InputError(
      "loading " + path + " (" + bytes_text(static_cast<double>(e.file_bytes)) + ") needs about " +
      bytes_text(e.peak_bytes) + " (its text " + bytes_text(e.text_bytes) + " and up to " +
      grouped(e.bars) + " bars of " + std::to_string(int(kColumnBytesPerBar)) + " bytes), over " +
      budget.name +
      ": refused before reading it; keep only the rows you need in a smaller file "
      "(--start and --end cut the history after it is loaded, so they do not lower this), "
      "or " +
      budget.raise);
}

}  // namespace wfod::cli
