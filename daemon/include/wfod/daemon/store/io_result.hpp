// Error values for the daemon's file I/O: expected failures (ENOSPC, EIO, a corrupt file)
// come back as an IoError naming the operation and the file, never as an exception.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace wfod::daemon {

struct IoError {
  int code = 0;         // errno; 0 when the file's content, not the system, is at fault
  std::string message;  // e.g. "write /var/lib/wfod/bars/BTCUSD.wfb: No space left on device"
};

// "OP PATH: strerror(err)".
IoError errno_error(std::string_view op, std::string_view path, int err);

// Success or an IoError. [[nodiscard]]: an unchecked disk error is a lost bar.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(IoError error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  const IoError& error() const { return *error_; }

 private:
  std::optional<IoError> error_;
};

// A value or an IoError: the small part of std::expected (C++23) that we need.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}        // NOLINT: implicit
  Result(IoError error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const IoError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, IoError> v_;
};

}  // namespace wfod::daemon
