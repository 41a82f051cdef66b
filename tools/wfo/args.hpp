// Flag parsing shared by every wfo command: "--flag value", "--flag=value" and switches,
// checked against each command's table; typed getters name the flag in every error.
// Header-only, so tests/unit/tools/wfo/cli_args_test.cpp can use it without linking the tool.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace wfod::cli {

// Bad command line: unknown flag, missing value, bad number. Exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Flags fine, but the input does not allow the run (no bars, window longer than the data).
// Exit code 2, without the "see --help" hint.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FlagSpec {
  std::string_view name;    // without the leading "--"
  bool takes_value = true;  // false: a switch ("--json")
};

// Text -> number, the whole text or an error naming `flag` ("--window: ...").
inline int64_t parse_integer(std::string_view text, std::string_view flag, int64_t min,
                             int64_t max = std::numeric_limits<int64_t>::max()) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != end) {
    throw UsageError("--" + std::string(flag) + ": expected a whole number, got '" +
                     std::string(text) + "'");
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    std::string range = max == std::numeric_limits<int64_t>::max()
                            ? ">= " + std::to_string(min)
                            : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    throw UsageError("--" + std::string(flag) + ": must be " + range + ", got '" +
                     std::string(text) + "'");
  }
  return v;
}

inline double parse_real(std::string_view text, std::string_view flag, double min,
                         double max = std::numeric_limits<double>::infinity()) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc{} || ptr != end || !std::isfinite(v)) {
    throw UsageError("--" + std::string(flag) + ": expected a finite number, got '" +
                     std::string(text) + "'");
  }
  if (v < min || v > max) {
    auto g = [](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x);
      return std::string(buf);
    };
    std::string range = std::isinf(max) ? ">= " + g(min) : "in [" + g(min) + ", " + g(max) + "]";
    throw UsageError("--" + std::string(flag) + ": must be " + range + ", got '" +
                     std::string(text) + "'");
  }
  return v;
}

// Worker threads for a requested count (--threads, or a config's threads): 0 means every core
// this process may use (wfod::available_cores). More threads than that only oversubscribe
// those cores (and can exhaust a per-user thread limit), so a larger count is lowered to
// `hardware`, and `warning` says so. hardware == 0 (unknown): the count is kept.
inline int usable_threads(int64_t requested, unsigned hardware, std::string_view what,
                          std::string* warning) {
  if (requested == 0 || hardware == 0 || requested <= static_cast<int64_t>(hardware)) {
    return static_cast<int>(requested);
  }
  if (warning) {
    *warning = std::string(what) + " " + std::to_string(requested) + " is more than the " +
               std::to_string(hardware) + " cores this process may use; using " +
               std::to_string(hardware);
  }
  return static_cast<int>(hardware);
}

// The flags one command line gave, by name. Each flag at most once.
class ParsedArgs {
 public:
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }

  std::optional<std::string> text(std::string_view name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

  std::optional<int64_t> integer(std::string_view name, int64_t min,
                                 int64_t max = std::numeric_limits<int64_t>::max()) const {
    auto t = text(name);
    if (!t) return std::nullopt;
    return parse_integer(*t, name, min, max);
  }

  std::optional<size_t> count(std::string_view name, size_t min = 0) const {
    auto v = integer(name, static_cast<int64_t>(min));
    if (!v) return std::nullopt;
    return static_cast<size_t>(*v);
  }

  std::optional<double> real(std::string_view name, double min,
                             double max = std::numeric_limits<double>::infinity()) const {
    auto t = text(name);
    if (!t) return std::nullopt;
    return parse_real(*t, name, min, max);
  }

  // Names given, in name order (for "flag X does not apply" checks).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : values_) out.push_back(k);
    return out;
  }

  void set(std::string name, std::string value) { values_[std::move(name)] = std::move(value); }

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

// True when the command line asks for help ("--help" or "-h" anywhere).
inline bool wants_help(std::span<const std::string_view> args) {
  for (auto a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

// True when the command line asks for the version ("--version" anywhere).
inline bool wants_version(std::span<const std::string_view> args) {
  for (auto a : args) {
    if (a == "--version") return true;
  }
  return false;
}

// Parses `args` (without the program and command names) against `flags`.
inline ParsedArgs parse_args(std::span<const std::string_view> args,
                             std::span<const FlagSpec> flags) {
  auto find = [&](std::string_view name) -> const FlagSpec* {
    for (const auto& f : flags) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a.size() < 3 || a.substr(0, 2) != "--") {
      throw UsageError("unexpected argument '" + std::string(a) + "' (flags start with --)");
    }
    std::string_view body = a.substr(2);
    std::optional<std::string_view> inline_value;
    if (auto eq = body.find('='); eq != std::string_view::npos) {
      inline_value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    const FlagSpec* spec = find(body);
    if (spec == nullptr) throw UsageError("unknown flag '--" + std::string(body) + "'");
    if (out.has(body)) throw UsageError("--" + std::string(body) + " given more than once");
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("--" + std::string(body) + " takes no value");
      out.set(std::string(body), "");
      continue;
    }
    if (inline_value) {
      if (inline_value->empty()) throw UsageError("--" + std::string(body) + ": empty value");
      out.set(std::string(body), std::string(*inline_value));
      continue;
    }
    // A following "--flag" is the next flag, not this one's value.
    if (i + 1 >= args.size() || args[i + 1].substr(0, 2) == "--" || args[i + 1].empty()) {
      throw UsageError("--" + std::string(body) + " needs a value");
    }
    out.set(std::string(body), std::string(args[++i]));
  }
  return out;
}

}  // namespace wfod::cli
