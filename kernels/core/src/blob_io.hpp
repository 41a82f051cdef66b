// Byte buffers for checkpoints: a writer of fixed-width values in host byte order (the
// header records it) and a reader that checks every length before it reads, so a truncated
// or corrupted blob from disk ends in std::invalid_argument naming what was being read, never
// in a read past the end. A word-wise checksum seals the whole blob.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace wfod::detail {

class BlobWriter {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>);
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
  }
  void put_bool(bool v) { put(static_cast<uint8_t>(v ? 1 : 0)); }
  template <typename T>
  void put_array(std::span<const T> v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>);
    const size_t at = bytes_.size();
    bytes_.resize(at + v.size_bytes());
    if (!v.empty()) std::memcpy(bytes_.data() + at, v.data(), v.size_bytes());
  }
  void put_string(std::string_view s) {
    put(static_cast<uint64_t>(s.size()));
    put_array(std::span<const char>(s.data(), s.size()));
  }
  size_t size() const { return bytes_.size(); }
  std::vector<uint8_t>& bytes() { return bytes_; }
  void reserve(size_t n) { bytes_.reserve(n); }

 private:
  std::vector<uint8_t> bytes_;
};

class BlobReader {
 public:
  explicit BlobReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  template <typename T>
  T get(std::string_view what) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>);
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  bool get_bool(std::string_view what) {
    const uint8_t v = get<uint8_t>(what);
    if (v > 1) fail(std::string(what) + " is " + std::to_string(v) + ", not a boolean");
    return v == 1;
  }
  // `count` values; the length is checked against the bytes left before anything is
  // allocated, so an absurd count fails instead of exhausting memory.
  template <typename T>
  std::vector<T> get_array(size_t count, std::string_view what) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>);
    if (count > left() / sizeof(T))
      fail("truncated: " + std::string(what) + " needs " + std::to_string(count) + " values of " +
           std::to_string(sizeof(T)) + " bytes at byte " + std::to_string(at_) + ", " +
           std::to_string(left()) + " bytes are left");
    std::vector<T> v(count);
    if (count) std::memcpy(v.data(), bytes_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
    return v;
  }
  // `n` raw bytes, viewed in place.
  std::span<const uint8_t> get_bytes(size_t n, std::string_view what) {
    need(n, what);
    const std::span<const uint8_t> out = bytes_.subspan(at_, n);
    at_ += n;
    return out;
  }
  std::string get_string(size_t max_size, std::string_view what) {
    const uint64_t n = get<uint64_t>(what);
    if (n > max_size)
      fail(std::string(what) + " is " + std::to_string(n) + " bytes long, more than " +
           std::to_string(max_size));
    const std::vector<char> c = get_array<char>(static_cast<size_t>(n), what);
    return std::string(c.begin(), c.end());
  }
  size_t offset() const { return at_; }
  size_t left() const { return bytes_.size() - at_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("stream checkpoint: " + why);
  }

 private:
  void need(size_t n, std::string_view what) const {
    if (n > left())
      fail("truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes at byte " +
           std::to_string(at_) + ", " + std::to_string(left()) + " are left");
  }
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

// A 64-bit checksum of `bytes`, eight at a time: h = rotl((h ^ word) * odd, 29). Each step
// is a bijection of h for a given word, so a change confined to one 8-byte word (any single
// flipped bit or byte) always changes the result; wider damage goes undetected with
// probability ~2^-64.
inline uint64_t blob_checksum(std::span<const uint8_t> bytes) {
  constexpr uint64_t kOdd = 0x9E3779B97F4A7C15ull;
  uint64_t h = 0x243F6A8885A308D3ull ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = std::rotl((h ^ w) * kOdd, 29);
  }
  uint64_t last = 0;
  std::memcpy(&last, bytes.data() + i, bytes.size() - i);
  return std::rotl((h ^ last) * kOdd, 29);
}

}  // namespace wfod::detail
