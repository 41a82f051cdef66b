// wfo's flag parser (tools/wfo/args.hpp, header-only): "--flag value" and "--flag=value",
// switches, and the errors scripts rely on (unknown flag, missing value, bad number, repeats).

#include <gtest/gtest.h>

#include <array>
#include <string_view>
#include <vector>

#include "tools/wfo/args.hpp"
#include "tools/wfo/strategy_from_flags.hpp"

namespace wfod::cli {
namespace {

constexpr std::array kFlags = {FlagSpec{"csv"}, FlagSpec{"window"}, FlagSpec{"cost-bps"},
                               FlagSpec{"json", false}, FlagSpec{"fast"}};

ParsedArgs parse(std::vector<std::string_view> args) { return parse_args(args, kFlags); }

// The message of the UsageError `args` throws ("" if none).
std::string args_error_of(std::vector<std::string_view> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CliArgs, ValuesSwitchesAndEqualsForm) {
  ParsedArgs a = parse({"--csv", "a.csv", "--window=2000", "--json", "--fast", "5:50:1"});
  EXPECT_EQ(a.text("csv"), "a.csv");
  EXPECT_EQ(a.count("window", 1), 2000u);
  EXPECT_TRUE(a.has("json"));
  EXPECT_EQ(a.text("fast"), "5:50:1");
  EXPECT_FALSE(a.has("cost-bps"));
  EXPECT_EQ(a.real("cost-bps", 0), std::nullopt);
}

TEST(CliArgs, NegativeNumberIsAValueNotAFlag) {
  ParsedArgs a = parse({"--cost-bps", "-1.5"});
  EXPECT_EQ(a.text("cost-bps"), "-1.5");
}

TEST(CliArgs, ErrorsNameTheFlag) {
  EXPECT_EQ(args_error_of({"--bogus", "1"}), "unknown flag '--bogus'");
  EXPECT_EQ(args_error_of({"--window"}), "--window needs a value");
  EXPECT_EQ(args_error_of({"--window", "--json"}), "--window needs a value");
  EXPECT_EQ(args_error_of({"--window", "1", "--window", "2"}), "--window given more than once");
  EXPECT_EQ(args_error_of({"--json=1"}), "--json takes no value");
  EXPECT_EQ(args_error_of({"--csv="}), "--csv: empty value");
  EXPECT_EQ(args_error_of({"stray"}), "unexpected argument 'stray' (flags start with --)");
}

TEST(CliArgs, TypedGettersCheckRangeAndSyntax) {
  ParsedArgs a = parse({"--window", "12x", "--cost-bps", "abc", "--fast", "0"});
  EXPECT_THROW(a.count("window", 1), UsageError);
  EXPECT_THROW(a.real("cost-bps", 0), UsageError);
  EXPECT_THROW(a.count("fast", 1), UsageError);
  try {
    a.count("fast", 1);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--fast: must be >= 1, got '0'");
  }
  ParsedArgs b = parse({"--cost-bps", "2", "--window", "99999999999999999999"});
  EXPECT_THROW(b.real("cost-bps", 0, 1), UsageError);
  EXPECT_THROW(b.count("window", 1), UsageError);
  EXPECT_THROW(parse_real("nan", "x", 0), UsageError);
  EXPECT_THROW(parse_real("inf", "x", 0), UsageError);
  EXPECT_DOUBLE_EQ(parse_real("0.25", "x", 0, 1), 0.25);
  EXPECT_EQ(parse_integer("-3", "x", -5, 5), -3);
}

TEST(CliArgs, HelpAnywhere) {
  std::vector<std::string_view> with_help{"--csv", "a", "-h"};
  std::vector<std::string_view> without{"--csv", "a"};
  EXPECT_TRUE(wants_help(with_help));
  EXPECT_FALSE(wants_help(without));
}

// --threads above the hardware count is lowered to it, with a warning; 0 and counts within
// it are kept, and so is any count where the hardware count is unknown (0).
TEST(CliArgs, ThreadCountsAboveTheHardwareAreLowered) {
  std::string warning;
  EXPECT_EQ(usable_threads(500, 2, "--threads", &warning), 2);
  EXPECT_EQ(warning, "--threads 500 is more than the 2 cores this process may use; using 2");
  warning.clear();
  EXPECT_EQ(usable_threads(2, 2, "--threads", &warning), 2);
  EXPECT_EQ(usable_threads(0, 2, "--threads", &warning), 0);
  EXPECT_EQ(usable_threads(64, 0, "--threads", &warning), 64);
  EXPECT_EQ(warning, "");
}

// The message of the UsageError strategy_from_flags throws for `args` ("" if none).
std::string strategy_error_of(std::vector<std::string_view> args) {
  try {
    const ParsedArgs parsed = parse_args(args, strategy_flags());
    strategy_from_flags(parsed);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// A repeated axis value is a typo that would be evaluated twice (and inflate the DSR's
// trial count): the flag and the value are named.
TEST(CliStrategyFlags, RepeatedAxisValuesAreRejected) {
  EXPECT_EQ(strategy_error_of(
                {"--csv", "a.csv", "--family", "ma_cross", "--fast", "5,5,5,5,10", "--slow", "30"})
                .rfind("--fast: lists 5 more than once", 0),
            0u);
  EXPECT_EQ(strategy_error_of({"--csv", "a.csv", "--family", "ma_cross", "--fast", "5", "--slow",
                               "30", "--ma", "sma,sma"})
                .rfind("--ma: lists sma more than once", 0),
            0u);
  EXPECT_EQ(
      strategy_error_of({"--csv", "a.csv", "--family", "channel_breakout", "--n", "20",
                         "--vol-short", "5", "--vol-long", "30,60,30", "--vol-threshold", "1"})
          .rfind("--vol-long: lists 30 more than once", 0),
      0u);
  // One-value ranges and decimal ranges are not repeats.
  EXPECT_EQ(
      strategy_error_of({"--csv", "a.csv", "--family", "channel_breakout", "--n", "5:5:1",
                         "--vol-short", "5", "--vol-long", "30", "--vol-threshold", "0.8:1.2:0.2"}),
      "");
}

}  // namespace
}  // namespace wfod::cli
