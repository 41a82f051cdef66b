// read_bar_log: pread of whole records, each checked against its CRC.
#include "wfod/daemon/store/bar_log_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "file_util.hpp"
#include "wfod/daemon/store/bar_store.hpp"

namespace wfod::daemon {

Result<Series> read_bar_log(const std::string& path, size_t first, size_t end) {
  Series out;
  if (end <= first) return out;
  auto fd = detail::open_file(path, O_RDONLY, 0);
  if (!fd.ok()) return fd.error();
  out.reserve(end - first);
  constexpr size_t kBatch = 4096;  // records per pread
  std::vector<unsigned char> buf(kBatch * bar_log::kRecordSize);
  for (size_t at = first; at < end;) {
    const size_t n = std::min(kBatch, end - at);
    const size_t want = n * bar_log::kRecordSize;
    const off_t offset = static_cast<off_t>(bar_log::kHeaderSize + at * bar_log::kRecordSize);
    size_t got = 0;
    while (got < want) {
      const ssize_t r =
          ::pread(fd.value().get(), buf.data() + got, want - got, offset + static_cast<off_t>(got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return errno_error("read", path, errno);
      if (r == 0) {
        return IoError{0, path + ": holds " + std::to_string(at + got / bar_log::kRecordSize) +
                              " bars, " + std::to_string(end) + " expected"};
      }
      got += static_cast<size_t>(r);
    }
    for (size_t i = 0; i < n; ++i) {
      const auto bar = bar_log::decode_record(buf.data() + i * bar_log::kRecordSize);
      if (!bar) {
        return IoError{0,
                       path + ": record " + std::to_string(at + i) + " at byte " +
                           std::to_string(offset + static_cast<off_t>(i * bar_log::kRecordSize)) +
                           ": CRC mismatch"};
      }
      out.push_back(*bar);
    }
    at += n;
  }
  return out;
}

}  // namespace wfod::daemon
