// The header every stream checkpoint opens with (cpu, cpu rules and cuda streams): magic,
// format version, byte order, the writing backend's name, the spec's fingerprint and text;
// and the checks a restore makes of it, with the whole blob's trailing checksum, each
// refusal naming what differs. Written once so the three formats refuse alike.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "src/blob_io.hpp"
#include "src/stream_spec_text.hpp"
#include "src/window_schedule.hpp"

namespace wfod::detail {

struct StreamBlobFormat {
  const char* magic;  // eight characters, e.g. "WFODSTRM"
  uint32_t version;   // this build's format version for (magic, backend)
  std::string_view backend;
  const char* spec_what;  // what the spec text covers, for the refusal
};

inline constexpr uint32_t kBlobByteOrder = 0x01020304;
inline constexpr uint64_t kBlobMaxBars = uint64_t{1} << 48;  // far beyond any history
inline constexpr size_t kBlobMaxSpecText = size_t{1}
                                           << 24;  // the spec text of any grid that fits in memory

inline void put_stream_blob_header(BlobWriter& w, const StreamBlobFormat& f,
                                   const std::string& spec_text) {
  w.put_array(std::span<const char>(f.magic, 8));
  w.put(f.version);
  w.put(kBlobByteOrder);
  w.put_string(f.backend);
  w.put(spec_fingerprint(spec_text));
  w.put_string(spec_text);
}

// Reads the header and checks it, and the checksum over everything before the blob's last 8
// bytes, against this stream's format and spec text; r.fail() on the first difference. The
// backend is checked before the version, so another backend's blob is named as such.
inline void check_stream_blob_header(BlobReader& r, std::span<const uint8_t> blob,
                                     const StreamBlobFormat& f, const std::string& spec_text) {
  if (blob.size() < 8 || std::memcmp(blob.data(), f.magic, 8) != 0)
    r.fail(std::string("not a stream checkpoint (no ") + std::string(f.magic, 8) + " magic)");
  r.get_bytes(8, "magic");
  const uint32_t version = r.get<uint32_t>("format version");
  if (r.get<uint32_t>("byte order") != kBlobByteOrder)
    r.fail("written on a machine of another byte order");
  const std::string backend = r.get_string(64, "backend name");
  if (backend != f.backend)
    r.fail("written by the " + backend + " backend's stream, not " + std::string(f.backend) + "'s");
  if (version != f.version)
    r.fail("format version " + std::to_string(version) + ", this build reads version " +
           std::to_string(f.version));
  if (blob.size() < r.offset() + 8) r.fail("truncated before its checksum");
  const size_t body = blob.size() - 8;
  uint64_t sealed;
  std::memcpy(&sealed, blob.data() + body, sizeof sealed);
  if (sealed != blob_checksum(blob.first(body)))
    r.fail("checksum mismatch: the blob is corrupted or truncated");
  const uint64_t fingerprint = r.get<uint64_t>("spec fingerprint");
  const std::string theirs = r.get_string(kBlobMaxSpecText, "spec text");
  if (fingerprint != spec_fingerprint(spec_text) || theirs != spec_text)
    r.fail(std::string("written for another stream spec (") + f.spec_what + "): it has '" + theirs +
           "', this stream's is '" + spec_text + "'");
}

// After the header and the bar count: the sizes the stream derives from its spec (each
// names[i] must read want[i]), the bar count's sanity, and the window schedule (split, cached
// head), which must not be past the newest chunk of `bars` bars; the schedule is restored.
inline void read_stream_layout(BlobReader& r, std::span<const size_t> want,
                               std::span<const char* const> names, uint64_t bars, size_t chunk,
                               WindowSchedule& schedule) {
  for (size_t i = 0; i < want.size(); ++i) {
    const uint64_t v = r.get<uint64_t>(names[i]);
    if (v != want[i])
      r.fail(std::string(names[i]) + " is " + std::to_string(v) + ", this spec makes it " +
             std::to_string(want[i]));
  }
  if (bars > kBlobMaxBars) r.fail("bar count " + std::to_string(bars) + " is absurd");
  const uint64_t split = r.get<uint64_t>("schedule split");
  const uint64_t cached_head = r.get<uint64_t>("schedule head");
  const size_t tail_chunk = static_cast<size_t>(bars) / chunk;
  if (split > tail_chunk || (cached_head != WindowSchedule::kNoHead && cached_head > tail_chunk))
    r.fail("window schedule (split " + std::to_string(split) + ", head " +
           std::to_string(cached_head) + ") is past the newest chunk " +
           std::to_string(tail_chunk));
  schedule.restore(static_cast<size_t>(split), static_cast<size_t>(cached_head));
}

}  // namespace wfod::detail
