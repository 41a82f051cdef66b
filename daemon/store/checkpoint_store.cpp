// CheckpointStore: the checkpoint file format (little-endian) and its crash-safe writes.
//   "WFCK" | u32 version (1) | u32 fingerprint | u64 bars | i64 last_ts | u64 blob size |
//   blob | u32 CRC32 of every byte before it
#include "wfod/daemon/store/checkpoint_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "file_util.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/daemon/store/crc32.hpp"

namespace wfod::daemon {
namespace {

constexpr char kMagic[4] = {'W', 'F', 'C', 'K'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeader = 4 + 4 + 4 + 8 + 8 + 8;
// A stream's state is O(combos x W / chunk): far below this; a larger size field is damage.
constexpr uint64_t kMaxBlob = uint64_t{1} << 36;

template <class T>
void put(std::vector<uint8_t>& out, size_t at, T v) {
  // The daemon runs on little-endian hosts (x86-64, arm64).
  std::memcpy(out.data() + at, &v, sizeof(T));
}

template <class T>
T get(const std::vector<uint8_t>& in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  return v;
}

IoError bad(const std::string& path, const std::string& what) {
  return IoError{0, path + ": " + what + " (corrupt checkpoint)"};
}

}  // namespace

Result<CheckpointStore> CheckpointStore::open(const std::string& state_dir, FileOps* ops) {
  CheckpointStore s;
  s.dir_ = state_dir + "/checkpoints";
  s.ops_ = ops != nullptr ? ops : &posix_file_ops();
  if (auto made = detail::make_dirs(*s.ops_, s.dir_); !made.ok()) return made.error();
  return s;
}

std::string CheckpointStore::path(std::string_view symbol, std::string_view strategy) const {
  // Strategy names are [A-Za-z0-9_-]+ (PROTOCOL §4), so '.' separates them unambiguously.
  return dir_ + "/" + bar_log::escape_symbol(symbol) + "." + std::string(strategy) + ".ckpt";
}

std::vector<uint8_t> CheckpointStore::encode(const Checkpoint& c) {
  // Sized once and filled by offset (GCC 12 misreads inserts into a growing vector).
  std::vector<uint8_t> out(kHeader + c.blob.size() + 4);
  std::memcpy(out.data(), kMagic, 4);
  put<uint32_t>(out, 4, kVersion);
  put<uint32_t>(out, 8, c.fingerprint);
  put<uint64_t>(out, 12, c.bars);
  put<int64_t>(out, 20, c.last_ts);
  put<uint64_t>(out, 28, c.blob.size());
  if (!c.blob.empty()) std::memcpy(out.data() + kHeader, c.blob.data(), c.blob.size());
  put<uint32_t>(out, out.size() - 4, crc32(out.data(), out.size() - 4));
  return out;
}

Result<Checkpoint> CheckpointStore::decode(const std::vector<uint8_t>& in,
                                           const std::string& path) {
  if (in.size() < kHeader + 4) return bad(path, std::to_string(in.size()) + " bytes, too short");
  if (std::memcmp(in.data(), kMagic, 4) != 0) return bad(path, "no WFCK magic");
  const uint32_t stored = get<uint32_t>(in, in.size() - 4);
  if (stored != crc32(in.data(), in.size() - 4)) return bad(path, "CRC mismatch");
  if (const uint32_t v = get<uint32_t>(in, 4); v != kVersion)
    return bad(path, "format version " + std::to_string(v) + ", this build reads 1");
  Checkpoint c;
  c.fingerprint = get<uint32_t>(in, 8);
  c.bars = get<uint64_t>(in, 12);
  c.last_ts = get<int64_t>(in, 20);
  const uint64_t n = get<uint64_t>(in, 28);
  if (n > kMaxBlob || n != in.size() - kHeader - 4)
    return bad(path, "state size " + std::to_string(n) + " does not match the file");
  c.blob.assign(in.begin() + kHeader, in.end() - 4);
  return c;
}

Status CheckpointStore::save(std::string_view symbol, std::string_view strategy,
                             const Checkpoint& c) const {
  const std::vector<uint8_t> bytes = encode(c);
  const std::string final_path = path(symbol, strategy);
  const std::string tmp = final_path + ".tmp";
  auto fd = detail::open_file(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!fd.ok()) return fd.error();
  // Always synced: checkpoints are rare (minutes apart), and one that a power loss tore
  // would only cost a replay, but a synced one bounds the restart time it exists for.
  Status s = detail::write_all(*ops_, fd.value().get(), bytes.data(), bytes.size(), 0, tmp);
  if (s.ok()) s = detail::sync_file(*ops_, fd.value().get(), tmp);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  fd.value().reset();
  if (ops_->rename(tmp.c_str(), final_path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return errno_error("rename", tmp, err);
  }
  return detail::sync_dir(*ops_, dir_);
}

Result<std::optional<Checkpoint>> CheckpointStore::load(std::string_view symbol,
                                                        std::string_view strategy) const {
  const std::string p = path(symbol, strategy);
  auto fd = detail::open_file(p, O_RDONLY, 0);
  if (!fd.ok()) {
    if (fd.error().code == ENOENT) return std::optional<Checkpoint>();
    return fd.error();
  }
  auto bytes = detail::read_all(fd.value().get(), p);
  if (!bytes.ok()) return bytes.error();
  auto c = decode(bytes.value(), p);
  if (!c.ok()) return c.error();
  return std::optional<Checkpoint>(std::move(c).value());
}

void CheckpointStore::remove(std::string_view symbol, std::string_view strategy) const {
  ::unlink(path(symbol, strategy).c_str());
}

}  // namespace wfod::daemon
