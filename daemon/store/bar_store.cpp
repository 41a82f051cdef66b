// The bar log: format encoding, symbol escaping, load with torn-tail recovery and corruption
// refused or quarantined, and appends under the three fsync policies with a bounded
// in-memory queue for bars the disk refused.
#include "wfod/daemon/store/bar_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <deque>
#include <utility>

#include "file_util.hpp"
#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {

// ---------------------------------------------------------------------------------------
// Format.

namespace {

// Explicit little-endian so a log moves between machines byte for byte.
void put_u16(unsigned char* p, uint16_t v) {
  for (int i = 0; i < 2; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint16_t get_u16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

namespace bar_log {
namespace {

constexpr size_t kHeaderCrcOffset = 28;
constexpr size_t kRecordCrcOffset = 60;

bool is_plain(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower case is not canonical: escape_symbol never writes it
}

}  // namespace

HeaderBytes encode_header(std::string_view symbol) {
  HeaderBytes h{};
  std::copy(kMagic.begin(), kMagic.end(), h.begin());
  put_u16(&h[4], kVersion);
  put_u16(&h[6], static_cast<uint16_t>(kRecordSize));
  h[8] = static_cast<unsigned char>(std::min<size_t>(symbol.size(), 255));
  std::memcpy(&h[9], symbol.data(), std::min(symbol.size(), kHeaderSymbolBytes));
  put_u32(&h[kHeaderCrcOffset], crc32(h.data(), kHeaderCrcOffset));
  return h;
}

RecordBytes encode_record(const Bar& bar) {
  RecordBytes r{};
  put_u64(&r[0], static_cast<uint64_t>(bar.ts_ns));
  put_u64(&r[8], std::bit_cast<uint64_t>(bar.open));
  put_u64(&r[16], std::bit_cast<uint64_t>(bar.high));
  put_u64(&r[24], std::bit_cast<uint64_t>(bar.low));
  put_u64(&r[32], std::bit_cast<uint64_t>(bar.close));
  put_u64(&r[40], std::bit_cast<uint64_t>(bar.volume));
  put_u64(&r[48], bar.seq);
  // 56..59 reserved, zero. The CRC covers them too, so no byte of a record goes unchecked.
  put_u32(&r[kRecordCrcOffset], crc32(r.data(), kRecordCrcOffset));
  return r;
}

std::optional<Bar> decode_record(const unsigned char* p) {
  if (get_u32(p + kRecordCrcOffset) != crc32(p, kRecordCrcOffset)) return std::nullopt;
  Bar b;
  b.ts_ns = static_cast<int64_t>(get_u64(p));
  b.open = std::bit_cast<double>(get_u64(p + 8));
  b.high = std::bit_cast<double>(get_u64(p + 16));
  b.low = std::bit_cast<double>(get_u64(p + 24));
  b.close = std::bit_cast<double>(get_u64(p + 32));
  b.volume = std::bit_cast<double>(get_u64(p + 40));
  b.seq = get_u64(p + 48);
  return b;
}

std::string escape_symbol(std::string_view symbol) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(symbol.size() * 3);
  for (size_t i = 0; i < symbol.size(); ++i) {
    char c = symbol[i];
    if (is_plain(c) && !(i == 0 && c == '.')) {
      out.push_back(c);
    } else {
      auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    }
  }
  return out;
}

std::optional<std::string> unescape_symbol(std::string_view escaped) {
  std::string out;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != '%') {
      out.push_back(escaped[i]);
      continue;
    }
    if (i + 2 >= escaped.size()) return std::nullopt;
    int hi = hex_value(escaped[i + 1]);
    int lo = hex_value(escaped[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  // Canonical form only, so file name <-> symbol is one to one.
  if (out.empty() || escape_symbol(out) != escaped) return std::nullopt;
  return out;
}

std::string file_name(std::string_view symbol) { return escape_symbol(symbol) + ".wfb"; }

}  // namespace bar_log

// ---------------------------------------------------------------------------------------
// Load.

namespace {

using bar_log::kHeaderSize;
using bar_log::kRecordSize;

// What the bytes of a log hold: the intact prefix and, if the rest is bad, why, and whether
// a crash can explain it.
struct Scan {
  size_t good_end = 0;   // bytes from 0 that are a valid header + whole valid records
  uint64_t records = 0;  // valid records (good_end = header + 64 x records)
  int64_t last_ts = 0;   // the last valid record's, when records > 0
  uint64_t first = 0;    // index of bars[0]: only the newest records are decoded into bars
  Series bars;
  std::vector<uint64_t> seqs;
  std::string reason;
  // Not a torn tail: a bad header with records behind it, a record that passes its CRC but
  // does not increase ts, or a failing record with a valid one after it. An append that a
  // crash cut short leaves only bytes that fail (a partial record, unwritten zeros) at the
  // end; these shapes need a flipped bit or a foreign writer.
  bool corrupt = false;
  uint64_t valid_after = 0;          // records after the first bad one that pass their CRC
  uint64_t records_quarantined = 0;  // whole 64-byte records from good_end to the end
};

// Records after `from` (on the record grid) that pass their CRC.
uint64_t valid_records_from(std::span<const unsigned char> bytes, size_t from) {
  uint64_t n = 0;
  for (size_t off = from; off + kRecordSize <= bytes.size(); off += kRecordSize) {
    if (bar_log::decode_record(bytes.data() + off)) ++n;
  }
  return n;
}

std::string display_symbol(const unsigned char* h) {
  size_t n = std::min<size_t>(h[8], bar_log::kHeaderSymbolBytes);
  std::string s(reinterpret_cast<const char*>(h + 9), n);
  if (h[8] > n) s += "...";
  return s;
}

// Refuses (IoError) only where quarantining would be wrong: a valid header that belongs to
// another symbol or another format, i.e. a file someone put here, not a torn one.
Result<Scan> scan_log(std::span<const unsigned char> bytes, std::string_view symbol,
                      const std::string& path, size_t load_newest) {
  Scan scan;
  const size_t size = bytes.size();
  if (size == 0) return scan;
  if (size < kHeaderSize) {
    scan.reason = "header: truncated (" + std::to_string(size) + " of 32 bytes)";
    return scan;
  }
  const unsigned char* h = bytes.data();
  // A header is written and synced before any record: a bad one with records behind it was
  // damaged later, and quarantining it would throw away every bar.
  auto bad_header = [&](std::string why) {
    scan.reason = "header at byte 0: " + std::move(why);
    scan.records_quarantined = (size - kHeaderSize) / kRecordSize;
    scan.valid_after = valid_records_from(bytes, kHeaderSize);
    scan.corrupt = size > kHeaderSize;
    return scan;
  };
  if (!std::equal(bar_log::kMagic.begin(), bar_log::kMagic.end(), h)) {
    return bad_header("bad magic (not a wfod bar log)");
  }
  if (get_u32(h + 28) != crc32(h, 28)) return bad_header("CRC mismatch");
  const uint16_t version = get_u16(h + 4);
  const uint16_t record_size = get_u16(h + 6);
  if (version != bar_log::kVersion) {
    return IoError{0, "open " + path + ": format version " + std::to_string(version) +
                          " (this wfod reads version 1); not touching it"};
  }
  if (record_size != kRecordSize) {
    return IoError{0, "open " + path + ": record size " + std::to_string(record_size) +
                          " (expected 64); not touching it"};
  }
  auto expected = bar_log::encode_header(symbol);
  if (!std::equal(expected.begin(), expected.end(), h)) {
    return IoError{0, "open " + path + ": holds symbol '" + display_symbol(h) + "', expected '" +
                          std::string(symbol) + "'; not touching it"};
  }

  // Every record is checked; only the newest load_newest are kept (second pass below).
  size_t off = kHeaderSize;
  for (size_t i = 0; off < size; ++i, off += kRecordSize) {
    auto where = [&] { return "record " + std::to_string(i) + " at byte " + std::to_string(off); };
    if (size - off < kRecordSize) {
      scan.reason = where() + ": truncated (" + std::to_string(size - off) + " of 64 bytes)";
      break;
    }
    auto bar = bar_log::decode_record(bytes.data() + off);
    if (!bar) {
      scan.reason = where() + ": CRC mismatch";
      scan.valid_after = valid_records_from(bytes, off + kRecordSize);
      scan.corrupt = scan.valid_after > 0;
      break;
    }
    if (i > 0 && bar->ts_ns <= scan.last_ts) {
      scan.reason = where() + ": ts " + std::to_string(bar->ts_ns) +
                    " not after the previous record's " + std::to_string(scan.last_ts);
      scan.valid_after = valid_records_from(bytes, off + kRecordSize);
      scan.corrupt = true;  // it passes its CRC: written so, not torn
      break;
    }
    scan.last_ts = bar->ts_ns;
    ++scan.records;
  }
  scan.good_end = std::min(off, size);
  scan.records_quarantined = (size - scan.good_end) / kRecordSize;
  const uint64_t n = scan.records;
  scan.first = load_newest > 0 && n > load_newest ? n - load_newest : 0;
  scan.bars.reserve(n - scan.first);
  scan.seqs.reserve(n - scan.first);
  for (uint64_t i = scan.first; i < n; ++i) {
    const auto bar = bar_log::decode_record(bytes.data() + kHeaderSize + i * kRecordSize);
    scan.bars.push_back(*bar);  // checked above
    scan.seqs.push_back(bar->seq);
  }
  return scan;
}

// The refusal under on_corrupt_log = refuse: where the damage starts and what the
// alternative would cost, so the operator can decide without reading code.
std::string corrupt_message(const std::string& path, const Scan& scan, size_t size) {
  return "bar log " + path + " is corrupt (not a torn tail): " + scan.reason + ", and " +
         std::to_string(scan.valid_after) +
         " intact record(s) follow it; not touching it. Repair or move the file away, or start "
         "with [daemon] on_corrupt_log = \"quarantine\" to move bytes " +
         std::to_string(scan.good_end) + ".." + std::to_string(size) + " (" +
         std::to_string(scan.records_quarantined) + " bars) aside and run on the " +
         std::to_string(scan.records) + " bars before them";
}

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status truncate_to(FileOps& ops, int fd, off_t length, std::string_view path) {
  while (ops.ftruncate(fd, length) != 0) {
    if (errno != EINTR) return errno_error("ftruncate", path, errno);
  }
  return {};
}

// Copies bytes [from, end) into a new <path>.quarantine.<unix_ns> and makes it durable
// before cutting them off the log: a crash in between leaves the tail in both places (the
// next load quarantines it again), never in neither.
Result<std::string> quarantine_tail(FileOps& ops, int fd, const std::string& path,
                                    const std::string& dir, std::span<const unsigned char> bytes,
                                    size_t from) {
  const int64_t now = unix_now_ns();
  std::string qpath;
  UniqueFd qfd;
  for (int attempt = 0; !qfd.valid(); ++attempt) {
    qpath = path + ".quarantine." + std::to_string(now + attempt);
    auto opened = detail::open_file(qpath, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (opened.ok()) {
      qfd = std::move(opened.value());
    } else if (opened.error().code != EEXIST || attempt >= 1000) {
      return opened.error();
    }
  }
  Status s = detail::write_all(ops, qfd.get(), bytes.data() + from, bytes.size() - from, 0, qpath);
  if (s.ok()) s = detail::sync_file(ops, qfd.get(), qpath);
  if (s.ok()) s = detail::sync_dir(ops, dir);
  if (!s.ok()) return s.error();
  s = truncate_to(ops, fd, static_cast<off_t>(from), path);
  if (s.ok()) s = detail::sync_file(ops, fd, path);
  if (!s.ok()) return s.error();
  return qpath;
}

constexpr size_t kWriteChunkRecords = 1024;  // 64 KiB per write() when draining a backlog

}  // namespace

// ---------------------------------------------------------------------------------------
// The open store.

struct BarStore::Impl {
  std::string symbol;
  std::string dir;
  std::string path;
  UniqueFd fd;
  BarStoreOptions options;
  FileOps* ops = nullptr;

  uint64_t end = 0;         // byte offset after the last record write() accepted
  uint64_t synced_end = 0;  // prefix known durable (fdatasync returned 0)
  uint64_t records = 0;     // records in the file
  std::deque<Bar> pending;  // accepted, not in the file yet, in ts order
  // In the file since the last successful fdatasync (not kept under fsync = none). A failed
  // fdatasync may have dropped them from the page cache while marking it clean (Linux), so
  // they go back to the front of `pending` and are written again.
  std::vector<Bar> unsynced;
  std::chrono::steady_clock::time_point unsynced_since{};
  std::optional<int64_t> last_ts;
  BarStoreStats stats;
  std::optional<IoError> last_error;
  bool lost = false;  // check_file(): the open file is no longer the log at `path`

  std::chrono::steady_clock::time_point now() const {
    return options.clock ? options.clock() : std::chrono::steady_clock::now();
  }

  Status fail(IoError error, uint64_t BarStoreStats::*counter) {
    ++(stats.*counter);
    last_error = error;
    return error;
  }

  // Writes every pending bar, in order, in chunks. On error, the bars whose records fully
  // reached the file leave the queue; a torn partial record is cut off (best effort: if
  // that fails too, the next write overwrites it, or a load after a crash quarantines it).
  std::vector<unsigned char> buf;  // drain()'s records; kept to avoid an allocation per batch

  Status drain() {
    while (!pending.empty()) {
      const size_t n = std::min(pending.size(), kWriteChunkRecords);
      buf.resize(n * kRecordSize);
      for (size_t i = 0; i < n; ++i) {
        auto r = bar_log::encode_record(pending[i]);
        std::memcpy(buf.data() + i * kRecordSize, r.data(), kRecordSize);
      }
      size_t written = 0;
      Status s = detail::write_all(*ops, fd.get(), buf.data(), buf.size(), static_cast<off_t>(end),
                                   path, &written);
      const size_t full = written / kRecordSize;
      if (full > 0) {
        if (options.fsync != config::FsyncPolicy::none) {
          if (unsynced.empty()) unsynced_since = now();
          unsynced.insert(unsynced.end(), pending.begin(), pending.begin() + full);
        }
        pending.erase(pending.begin(), pending.begin() + full);
        end += full * kRecordSize;
        records += full;
        stats.records_written += full;
      }
      if (!s.ok()) {
        if (written % kRecordSize != 0)
          (void)truncate_to(*ops, fd.get(), static_cast<off_t>(end), path);
        return fail(s.error(), &BarStoreStats::write_errors);
      }
    }
    return {};
  }

  Status sync() {
    if (unsynced.empty()) return {};
    ++stats.fdatasyncs;
    Status s = detail::sync_data(*ops, fd.get(), path);
    if (!s.ok()) {
      pending.insert(pending.begin(), unsynced.begin(), unsynced.end());
      records -= unsynced.size();
      end = synced_end;
      unsynced.clear();
      return fail(s.error(), &BarStoreStats::sync_errors);
    }
    synced_end = end;
    unsynced.clear();
    return {};
  }

  Status sync_per_policy_after_append() {
    switch (options.fsync) {
      case config::FsyncPolicy::every:
        return sync();
      case config::FsyncPolicy::batch:
        if (!unsynced.empty() && (unsynced.size() >= options.batch_records ||
                                  now() - unsynced_since >= options.batch_interval)) {
          return sync();
        }
        return {};
      case config::FsyncPolicy::none:
        return {};
    }
    return {};
  }
};

BarStore::BarStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BarStore::BarStore(BarStore&&) noexcept = default;

BarStore& BarStore::operator=(BarStore&& other) noexcept {
  if (this != &other) {
    if (impl_) (void)flush();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

BarStore::~BarStore() {
  // Best effort: a graceful shutdown should call flush() itself and log its result.
  if (impl_) (void)flush();
}

Result<OpenedBarStore> BarStore::open(const std::string& state_dir, std::string_view symbol,
                                      const BarStoreOptions& options) {
  if (symbol.empty() || symbol.size() > bar_log::kMaxSymbolBytes) {
    return IoError{
        EINVAL, "open bar log for '" + std::string(symbol) + "': a symbol is 1-32 bytes (SPEC §1)"};
  }
  auto impl = std::make_unique<Impl>();
  impl->symbol = symbol;
  impl->options = options;
  impl->ops = options.ops != nullptr ? options.ops : &posix_file_ops();
  FileOps& ops = *impl->ops;

  impl->dir = state_dir + "/bars";
  if (auto made = detail::make_dirs(ops, impl->dir); !made.ok()) return made.error();
  impl->path = impl->dir + "/" + bar_log::file_name(symbol);
  const std::string& path = impl->path;

  auto fd = detail::open_file(path, O_RDWR | O_CREAT, 0644);
  if (!fd.ok()) return fd.error();
  impl->fd = std::move(fd.value());
  // Two writers on one log would interleave records; the lock dies with the process.
  while (::flock(impl->fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) {
      return IoError{EWOULDBLOCK,
                     "lock " + path + ": held by another store (one wfod per state_dir)"};
    }
    return errno_error("lock", path, errno);
  }

  auto mapped = detail::map_file(impl->fd.get(), path);
  if (!mapped.ok()) return mapped.error();
  // Read only until quarantine_tail truncates the file (reading past the new end faults).
  const std::span<const unsigned char> bytes = mapped.value().bytes();
  auto scanned = scan_log(bytes, symbol, path, options.load_newest);
  if (!scanned.ok()) return scanned.error();
  Scan& scan = scanned.value();
  if (scan.corrupt && options.on_corrupt == config::CorruptLogPolicy::refuse) {
    return IoError{0, corrupt_message(path, scan, bytes.size())};
  }

  LoadReport report;
  report.records_loaded = scan.records;
  if (scan.good_end < bytes.size()) {
    auto q = quarantine_tail(ops, impl->fd.get(), path, impl->dir, bytes, scan.good_end);
    if (!q.ok()) return q.error();
    report.bytes_quarantined = bytes.size() - scan.good_end;
    report.quarantine_path = std::move(q.value());
    report.reason = std::move(scan.reason);
    report.corrupt = scan.corrupt;
    report.records_quarantined = scan.records_quarantined;
  }
  if (scan.good_end == 0) {
    // A new log, or one whose header was quarantined: write the header and make the file's
    // directory entry durable, so a bar acknowledged later cannot lose its file.
    auto header = bar_log::encode_header(symbol);
    Status s = detail::write_all(ops, impl->fd.get(), header.data(), header.size(), 0, path);
    if (s.ok()) s = detail::sync_data(ops, impl->fd.get(), path);
    if (s.ok()) s = detail::sync_dir(ops, impl->dir);
    if (!s.ok()) return s.error();
    scan.good_end = kHeaderSize;
  }
  impl->end = impl->synced_end = scan.good_end;
  impl->records = scan.records;
  if (scan.records > 0) impl->last_ts = scan.last_ts;

  return OpenedBarStore{BarStore(std::move(impl)), scan.first, std::move(scan.bars),
                        std::move(scan.seqs), std::move(report)};
}

AppendResult BarStore::append(const Bar& bar) {
  // Refused exactly as stage() refuses; a staged bar is then written and synced per policy.
  if (AppendResult staged = stage(bar); staged.state == AppendState::refused) return staged;
  Impl& m = *impl_;
  Status s = m.drain();
  if (s.ok()) s = m.sync_per_policy_after_append();
  if (!s.ok()) return {AppendState::pending, s.error()};
  return {};
}

AppendResult BarStore::stage(const Bar& bar) {
  Impl& m = *impl_;
  if (m.last_ts && bar.ts_ns <= *m.last_ts) {
    ++m.stats.refused;
    return {AppendState::refused,
            IoError{EINVAL, "append to " + m.path + ": ts " + std::to_string(bar.ts_ns) +
                                " not after the last accepted " + std::to_string(*m.last_ts)}};
  }
  if (m.pending.size() >= m.options.max_pending) {
    (void)m.drain();  // a full queue may be writable again
    if (m.pending.size() >= m.options.max_pending) {
      ++m.stats.refused;
      std::string why = m.last_error ? m.last_error->message : "no error recorded";
      return {AppendState::refused,
              IoError{ENOSPC, "append to " + m.path + ": " + std::to_string(m.pending.size()) +
                                  " bars already pending (" + why + ")"}};
    }
  }
  m.pending.push_back(bar);
  m.last_ts = bar.ts_ns;
  ++m.stats.appended;
  return {AppendState::pending, std::nullopt};
}

Status BarStore::write_staged() { return impl_->drain(); }

Status BarStore::sync() { return impl_->sync(); }

bool BarStore::has_unsynced() const { return !impl_->unsynced.empty(); }

bool BarStore::sync_due() const {
  const Impl& m = *impl_;
  if (m.unsynced.empty()) return false;
  switch (m.options.fsync) {
    case config::FsyncPolicy::every:
      return true;
    case config::FsyncPolicy::batch:
      // Age only: the batched path writes whole loop batches, and bounding the power-loss
      // window in time (not in records) is what lets one sync cover many batches.
      return m.now() - m.unsynced_since >= m.options.batch_interval;
    case config::FsyncPolicy::none:
      return false;
  }
  return false;
}

void BarStore::mark_synced() {
  Impl& m = *impl_;
  if (m.unsynced.empty()) return;
  m.synced_end = m.end;
  m.unsynced.clear();
}

int BarStore::fd() const { return impl_->fd.get(); }

Status BarStore::flush() {
  Impl& m = *impl_;
  if (Status s = m.drain(); !s.ok()) return s;
  if (m.options.fsync == config::FsyncPolicy::none) return {};
  return m.sync();
}

Status BarStore::check_file() {
  Impl& m = *impl_;
  struct stat open {};
  struct stat named {};
  std::string why;
  if (::fstat(m.fd.get(), &open) != 0) {
    why = std::string("cannot be examined (fstat: ") + std::strerror(errno) + ")";
  } else if (open.st_nlink == 0) {
    why = "deleted while open (link count 0: the file or its directory was removed)";
  } else if (::stat(m.path.c_str(), &named) != 0) {
    // EACCES and the like (a state_dir made unreadable): the file may well be there.
    if (errno == ENOENT || errno == ENOTDIR) why = "moved away while open (no file at its path)";
  } else if (named.st_dev != open.st_dev || named.st_ino != open.st_ino) {
    why = "replaced by another file while open";
  }
  if (why.empty()) {
    m.lost = false;
    return {};
  }
  m.lost = true;
  IoError e{ENOENT, "bar log " + m.path + " was " + why + ": its " + std::to_string(m.records) +
                        " bars and every bar accepted since are not where the next start reads"};
  m.last_error = e;
  return e;
}

bool BarStore::lost() const { return impl_->lost; }

size_t BarStore::pending() const { return impl_->pending.size(); }
uint64_t BarStore::records() const { return impl_->records; }
std::optional<int64_t> BarStore::last_ts() const { return impl_->last_ts; }
const std::string& BarStore::symbol() const { return impl_->symbol; }
const std::string& BarStore::path() const { return impl_->path; }
const BarStoreStats& BarStore::stats() const { return impl_->stats; }
const std::optional<IoError>& BarStore::last_error() const { return impl_->last_error; }

}  // namespace wfod::daemon
