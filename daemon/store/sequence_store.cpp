// publications.seq: strict text parsing with a CRC over the content, and the atomic
// replace (write temp, fsync, rename, fsync directory) that makes each number durable.
#include "wfod/daemon/store/sequence_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <limits>

#include "file_util.hpp"
#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {
namespace {

constexpr std::string_view kSequenceFirstLine = "wfod-publications 1";
constexpr std::string_view kCrcPrefix = "crc32 ";

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c <= ' ' || c > '~') return false;  // no spaces, controls or non-ASCII: one token
  }
  return true;
}

std::string encode(const std::map<SequenceStore::Key, uint64_t>& entries) {
  std::string text(kSequenceFirstLine);
  text += '\n';
  for (const auto& [key, seq] : entries) {
    text.append(key.first).append(" ").append(key.second).append(" ");
    text.append(std::to_string(seq)).append("\n");
  }
  char crc[16];
  std::snprintf(crc, sizeof crc, "%08x", static_cast<unsigned>(crc32(text)));
  text.append(kCrcPrefix).append(crc).append("\n");
  return text;
}

IoError corrupt(const std::string& path, size_t line, std::string_view what) {
  std::string message = path;
  if (line > 0) message += ": line " + std::to_string(line);
  message.append(": ").append(what);
  message +=
      " (corrupt sequence file; refusing to start over, which would reuse numbers: "
      "see docs/operations.md)";
  return IoError{0, std::move(message)};
}

Result<std::map<SequenceStore::Key, uint64_t>> parse(std::string_view text,
                                                     const std::string& path) {
  std::map<SequenceStore::Key, uint64_t> entries;
  if (text.empty() || text.back() != '\n') return corrupt(path, 0, "does not end in a newline");
  size_t line_no = 0;
  size_t pos = 0;
  bool saw_crc = false;
  while (pos < text.size()) {
    const size_t eol = text.find('\n', pos);
    const std::string_view line = text.substr(pos, eol - pos);
    ++line_no;
    if (saw_crc) return corrupt(path, line_no, "text after the crc32 line");
    if (line_no == 1) {
      if (line != kSequenceFirstLine) {
        return corrupt(path, 1, "expected '" + std::string(kSequenceFirstLine) + "'");
      }
    } else if (line.substr(0, kCrcPrefix.size()) == kCrcPrefix) {
      const std::string_view hex = line.substr(kCrcPrefix.size());
      uint32_t stored = 0;
      auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), stored, 16);
      if (hex.size() != 8 || ec != std::errc() || end != hex.data() + hex.size()) {
        return corrupt(path, line_no, "bad crc32 value");
      }
      if (stored != crc32(text.substr(0, pos))) return corrupt(path, line_no, "CRC mismatch");
      saw_crc = true;
    } else {
      const size_t a = line.find(' ');
      const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
      if (b == std::string_view::npos) {
        return corrupt(path, line_no, "expected '<symbol> <strategy> <seq>'");
      }
      const std::string_view symbol = line.substr(0, a);
      const std::string_view strategy = line.substr(a + 1, b - a - 1);
      const std::string_view number = line.substr(b + 1);
      uint64_t seq = 0;
      auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), seq);
      if (!valid_name(symbol) || !valid_name(strategy) || number.empty() || ec != std::errc() ||
          end != number.data() + number.size() || seq == 0) {
        return corrupt(path, line_no, "expected '<symbol> <strategy> <seq>', seq >= 1");
      }
      if (!entries.emplace(SequenceStore::Key(symbol, strategy), seq).second) {
        return corrupt(path, line_no, "stream listed twice");
      }
    }
    pos = eol + 1;
  }
  if (!saw_crc) return corrupt(path, 0, "no crc32 line (truncated?)");
  return entries;
}

}  // namespace

Result<SequenceStore> SequenceStore::open(const std::string& state_dir,
                                          const SequenceStoreOptions& options) {
  SequenceStore store;
  store.ops_ = options.ops != nullptr ? options.ops : &posix_file_ops();
  store.reserve_ = options.reserve == 0 ? 1 : options.reserve;
  store.dir_ = state_dir;
  store.path_ = state_dir + "/" + std::string(kSequenceFileName);
  if (auto made = detail::make_dirs(*store.ops_, state_dir); !made.ok()) return made.error();

  auto fd = detail::open_file(store.path_, O_RDONLY, 0);
  if (!fd.ok()) {
    if (fd.error().code == ENOENT) return store;  // first start
    return fd.error();
  }
  auto bytes = detail::read_all(fd.value().get(), store.path_);
  if (!bytes.ok()) return bytes.error();
  const std::string_view text(reinterpret_cast<const char*>(bytes.value().data()),
                              bytes.value().size());
  auto entries = parse(text, store.path_);
  if (!entries.ok()) return entries.error();
  store.last_ = std::move(entries.value());
  store.handed_ = store.last_;
  return store;
}

Status SequenceStore::persist(const std::map<Key, uint64_t>& entries) {
  const std::string text = encode(entries);
  const std::string tmp = path_ + ".tmp";
  {
    auto fd = detail::open_file(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!fd.ok()) return fd.error();
    Status s = detail::write_all(*ops_, fd.value().get(), text.data(), text.size(), 0, tmp);
    // The data must be durable before the rename publishes it, or a crash could leave an
    // empty publications.seq behind the new name.
    if (s.ok()) s = detail::sync_file(*ops_, fd.value().get(), tmp);
    if (!s.ok()) return s;
  }
  while (ops_->rename(tmp.c_str(), path_.c_str()) != 0) {
    if (errno != EINTR) return errno_error("rename " + tmp + " to", path_, errno);
  }
  return detail::sync_dir(*ops_, dir_);  // makes the rename itself durable
}

Result<uint64_t> SequenceStore::next(std::string_view symbol, std::string_view strategy) {
  if (!valid_name(symbol) || !valid_name(strategy)) {
    return IoError{EINVAL, path_ + ": bad stream name '" + std::string(symbol) + "' / '" +
                               std::string(strategy) + "' (printable ASCII, no spaces)"};
  }
  Key key(symbol, strategy);
  const auto h = handed_.find(key);
  const uint64_t handed = h == handed_.end() ? 0 : h->second;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (handed == kMax) {
    return IoError{EOVERFLOW,
                   path_ + ": sequence of " + key.first + " " + key.second + " exhausted"};
  }
  const uint64_t value = handed + 1;
  const auto l = last_.find(key);
  if (l == last_.end() || value > l->second) {
    auto copy = last_;
    copy[key] = value + std::min(reserve_ - 1, kMax - value);
    if (Status s = persist(copy); !s.ok()) return s.error();
    last_ = std::move(copy);
  }
  handed_[key] = value;
  return value;
}

uint64_t SequenceStore::last(std::string_view symbol, std::string_view strategy) const {
  auto it = handed_.find(Key(symbol, strategy));
  return it == handed_.end() ? 0 : it->second;
}

Status SequenceStore::reserve_all(const std::vector<Key>& keys) {
  auto copy = last_;
  bool changed = false;
  for (const Key& key : keys) {
    if (!valid_name(key.first) || !valid_name(key.second)) continue;  // next() reports it
    const auto h = handed_.find(key);
    const uint64_t handed = h == handed_.end() ? 0 : h->second;
    uint64_t& reserved = copy[key];
    if (reserved > handed || reserve_ <= 1) continue;
    reserved = handed + std::min(reserve_, std::numeric_limits<uint64_t>::max() - handed);
    changed = true;
  }
  if (!changed) return {};
  if (Status s = persist(copy); !s.ok()) return s;
  last_ = std::move(copy);
  return {};
}

Status SequenceStore::top_up(std::string_view symbol, std::string_view strategy) {
  if (reserve_ <= 1 || !valid_name(symbol) || !valid_name(strategy)) return {};
  const Key key(symbol, strategy);
  const auto h = handed_.find(key);
  const uint64_t handed = h == handed_.end() ? 0 : h->second;
  const auto l = last_.find(key);
  const uint64_t reserved = l == last_.end() ? 0 : l->second;
  if (reserved > handed && reserved - handed > reserve_ / 2) return {};
  const uint64_t room = std::numeric_limits<uint64_t>::max() - handed;
  if (room == 0) return {};  // exhausted: next() reports it
  auto copy = last_;
  copy[key] = handed + std::min(reserve_ - 1, room);
  if (copy[key] <= reserved) return {};
  if (Status s = persist(copy); !s.ok()) return s;
  last_ = std::move(copy);
  return {};
}

Result<std::map<SequenceStore::Key, uint64_t>> SequenceStore::raise_floors(
    const std::map<Key, uint64_t>& floors) {
  std::map<Key, uint64_t> raised;
  auto last = last_;
  auto handed = handed_;
  for (const auto& [key, floor] : floors) {
    if (!valid_name(key.first) || !valid_name(key.second)) continue;
    const auto h = handed.find(key);
    const uint64_t before = h == handed.end() ? 0 : h->second;
    if (floor <= before) continue;  // (a floor of 0 is never stored: the file holds >= 1)
    raised[key] = before;
    handed[key] = floor;
    last[key] = std::max(last[key], floor);
  }
  if (raised.empty()) return raised;
  if (Status s = persist(last); !s.ok()) return s.error();
  last_ = std::move(last);
  handed_ = std::move(handed);
  return raised;
}

Status SequenceStore::close() {
  if (handed_ == last_) return {};
  if (Status s = persist(handed_); !s.ok()) return s;
  last_ = handed_;
  return {};
}

}  // namespace wfod::daemon
