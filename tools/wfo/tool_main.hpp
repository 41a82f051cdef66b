// The opening that the command-line tools' main() functions share (wfo-replay, wfo-sub,
// wfo-proxy): --help and --version answered before anything else, and usage errors printed
// the same way (`PROGRAM: MESSAGE (see --help)`, exit 2) by every tool.
#pragma once

#include <cstdio>
#include <optional>
#include <span>
#include <string_view>

#include "wfo/args.hpp"
#include "wfod/version.hpp"

namespace wfod::cli {

inline constexpr int kExitUsageError = 2;

// Exit 0 after printing the usage text (--help, -h) or the program's version (--version);
// nullopt when the command line asks for neither.
inline std::optional<int> answer_help_or_version(std::span<const std::string_view> args,
                                                 const char* program, std::string_view usage) {
  if (wants_help(args)) {
    std::fwrite(usage.data(), 1, usage.size(), stdout);
    return 0;
  }
  if (wants_version(args)) {
    std::printf("%s %s\n", program, kVersionText);
    return 0;
  }
  return std::nullopt;
}

// parse(args), or nullopt after printing its UsageError (the caller exits kExitUsageError).
template <class Parse>
auto parse_tool_options(std::span<const std::string_view> args, const char* program, Parse parse)
    -> std::optional<decltype(parse(args))> {
  try {
    return parse(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s (see --help)\n", program, e.what());
    return std::nullopt;
  }
}

}  // namespace wfod::cli
