// The per-stream live state file: a header line, one line of fields, the last payload, and
// a CRC32 line over everything before it; written to a temp file and renamed over the old
// one, so a crash leaves the old state or the new, never a mix.
#include "wfod/daemon/store/live_state.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <cerrno>
#include <charconv>
#include <cstdio>

#include "file_util.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {
namespace {

constexpr std::string_view kLiveFirstLine = "wfod-live 1";

std::string hex8(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(v));
  return buf;
}

bool parse_u64(std::string_view text, uint64_t& out, int base = 10) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// "key=value" -> value, or nullopt when the token is another key.
std::optional<std::string_view> field(std::string_view token, std::string_view key) {
  if (token.size() <= key.size() || !token.starts_with(key) || token[key.size()] != '=') {
    return std::nullopt;
  }
  return token.substr(key.size() + 1);
}

IoError corrupt(const std::string& path, std::string_view what) {
  return IoError{
      0, path + ": " + std::string(what) + " (corrupt live state; starting the stream over)"};
}

}  // namespace

Result<LiveStateStore> LiveStateStore::open(const std::string& state_dir, config::FsyncPolicy fsync,
                                            FileOps* ops) {
  LiveStateStore s;
  s.dir_ = state_dir + "/streams";
  s.fsync_ = fsync;
  s.ops_ = ops != nullptr ? ops : &posix_file_ops();
  if (auto made = detail::make_dirs(*s.ops_, s.dir_); !made.ok()) return made.error();
  return s;
}

std::string LiveStateStore::path(std::string_view symbol, std::string_view strategy) const {
  // Strategy names are [A-Za-z0-9_-]+ (PROTOCOL §4), so '.' separates them unambiguously.
  return dir_ + "/" + bar_log::escape_symbol(symbol) + "." + std::string(strategy) + ".live";
}

Status LiveStateStore::save(std::string_view symbol, std::string_view strategy,
                            const LiveState& st) {
  std::string text(kLiveFirstLine);
  text += '\n';
  text += "fp=" + hex8(st.fingerprint) + " seq=" + std::to_string(st.seq) +
          " end=" + std::to_string(st.end) + " winner=" + std::to_string(st.winner) +
          " before=" + (st.before ? std::to_string(*st.before) : std::string("-")) + "\n";
  text += st.payload;  // nlohmann's dump(): one line, no raw newline
  text += '\n';
  text += "crc32 " + hex8(crc32(text.data(), text.size())) + "\n";

  const std::string final_path = path(symbol, strategy);
  const std::string tmp = final_path + ".tmp";
  auto fd = detail::open_file(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!fd.ok()) return fd.error();
  // Synced only under fsync = every: a kill -9 finds the renamed file either way, and after a
  // power loss under batch / none the previous file (or a torn one, caught by the CRC, which
  // only restarts live_oos) is an acceptable loss for the policy that bounds loss in time.
  const bool sync = fsync_ == config::FsyncPolicy::every;
  Status s = detail::write_all(*ops_, fd.value().get(), text.data(), text.size(), 0, tmp);
  if (s.ok() && sync) s = detail::sync_file(*ops_, fd.value().get(), tmp);
  if (!s.ok()) return s;
  fd.value().reset();
  if (ops_->rename(tmp.c_str(), final_path.c_str()) != 0) {
    return errno_error("rename", tmp, errno);
  }
  if (sync) return detail::sync_dir(*ops_, dir_);
  return {};
}

Result<std::optional<LiveState>> LiveStateStore::load(std::string_view symbol,
                                                      std::string_view strategy) const {
  const std::string p = path(symbol, strategy);
  auto fd = detail::open_file(p, O_RDONLY, 0);
  if (!fd.ok()) {
    if (fd.error().code == ENOENT) return std::optional<LiveState>();
    return fd.error();
  }
  auto bytes = detail::read_all(fd.value().get(), p);
  if (!bytes.ok()) return bytes.error();
  const std::string text(bytes.value().begin(), bytes.value().end());
  // The last line is the CRC of everything before it.
  const size_t crc_at = text.rfind("crc32 ");
  if (text.empty() || text.back() != '\n' || crc_at == std::string::npos ||
      (crc_at > 0 && text[crc_at - 1] != '\n')) {
    return corrupt(p, "no crc32 line");
  }
  uint64_t crc = 0;
  if (!parse_u64(std::string_view(text).substr(crc_at + 6, text.size() - crc_at - 7), crc, 16) ||
      crc != crc32(text.data(), crc_at)) {
    return corrupt(p, "CRC mismatch");
  }
  std::string_view body(text.data(), crc_at);
  const size_t l1 = body.find('\n');
  if (l1 == std::string_view::npos || body.substr(0, l1) != kLiveFirstLine) {
    return corrupt(p, "first line is not \"wfod-live 1\"");
  }
  body.remove_prefix(l1 + 1);
  const size_t l2 = body.find('\n');
  if (l2 == std::string_view::npos) return corrupt(p, "no field line");
  std::string_view fields = body.substr(0, l2);
  body.remove_prefix(l2 + 1);
  if (body.empty() || body.back() != '\n') return corrupt(p, "no payload line");
  LiveState st;
  st.payload = std::string(body.substr(0, body.size() - 1));
  int seen = 0;
  while (!fields.empty()) {
    const size_t sp = fields.find(' ');
    const std::string_view tok = fields.substr(0, sp);
    fields = sp == std::string_view::npos ? std::string_view() : fields.substr(sp + 1);
    uint64_t v = 0;
    if (auto f = field(tok, "fp"); f && parse_u64(*f, v, 16) && v <= 0xFFFFFFFFu) {
      st.fingerprint = static_cast<uint32_t>(v);
    } else if (auto f2 = field(tok, "seq"); f2 && parse_u64(*f2, st.seq)) {
    } else if (auto f3 = field(tok, "end"); f3 && parse_u64(*f3, st.end)) {
    } else if (auto f4 = field(tok, "winner"); f4 && parse_u64(*f4, st.winner)) {
    } else if (auto f5 = field(tok, "before"); f5 && (*f5 == "-" || parse_u64(*f5, v))) {
      if (*f5 != "-") st.before = v;
    } else {
      return corrupt(p, "bad field \"" + std::string(tok.substr(0, 40)) + "\"");
    }
    ++seen;
  }
  if (seen != 5) return corrupt(p, "expected 5 fields");
  return std::optional<LiveState>(std::move(st));
}

Result<std::vector<LiveStateStore::SavedSeq>> LiveStateStore::saved_seqs() const {
  std::vector<SavedSeq> out;
  DIR* dir = ::opendir(dir_.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return out;
    return errno_error("open directory", dir_, errno);
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) names.emplace_back(entry->d_name);
  const int err = errno;
  ::closedir(dir);
  if (err != 0) return errno_error("read directory", dir_, err);
  constexpr std::string_view kSuffix = ".live";
  for (const std::string& name : names) {
    if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) continue;  // .tmp too
    // <escaped symbol>.<strategy>.live: strategy names have no '.', symbols may.
    const std::string_view stem(name.data(), name.size() - kSuffix.size());
    const size_t dot = stem.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == stem.size()) continue;
    const auto symbol = bar_log::unescape_symbol(stem.substr(0, dot));
    if (!symbol) continue;
    const std::string strategy(stem.substr(dot + 1));
    auto loaded = load(*symbol, strategy);
    if (!loaded.ok() || !loaded.value()) continue;
    out.push_back({*symbol, strategy, loaded.value()->seq, path(*symbol, strategy)});
  }
  return out;
}

}  // namespace wfod::daemon
