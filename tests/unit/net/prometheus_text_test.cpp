// PrometheusText: label and help escaping, sample value syntax, HELP/TYPE once per family.

#include "wfod/net/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace wfod::net {
namespace {

TEST(PrometheusText, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("BRK.B"), "BRK.B");
  EXPECT_EQ(escape_label_value("BTC/USD"), "BTC/USD");
  EXPECT_EQ(escape_label_value("a\"b"), "a\\\"b");
  EXPECT_EQ(escape_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(escape_label_value("a\nb"), "a\\nb");
  EXPECT_EQ(escape_label_value("\\\"\n"), "\\\\\\\"\\n");
}

TEST(PrometheusText, EscapesHelpButNotQuotes) {
  EXPECT_EQ(escape_help("say \"x\""), "say \"x\"");
  EXPECT_EQ(escape_help("a\\b\nc"), "a\\\\b\\nc");
}

TEST(PrometheusText, SampleValues) {
  EXPECT_EQ(format_sample_value(0), "0");
  EXPECT_EQ(format_sample_value(12.5), "12.5");
  EXPECT_EQ(format_sample_value(0.1), "0.1");
  EXPECT_EQ(format_sample_value(0.0025), "0.0025");
  // An epoch time in fixed notation, to the digit that reads back to the same double.
  EXPECT_EQ(format_sample_value(1.5e9), "1500000000");
  EXPECT_EQ(format_sample_value(1700000000.123), "1700000000.123");
  EXPECT_EQ(format_sample_value(-3), "-3");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_sample_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_sample_value(1e-300), "1e-300");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  for (const double v : {1e-7, 3.14159, 123456.789, 9.99e16, 2.5e20}) {
    EXPECT_EQ(std::stod(format_sample_value(v)), v) << format_sample_value(v);
  }
}

TEST(PrometheusText, FamiliesAndSamples) {
  PrometheusText m;
  m.family("x_total", "counter", "Things.\nCounted.");
  m.sample({{"symbol", "BTC/USD"}, {"strategy", "t\"1"}}, 3);
  m.sample({}, 4);
  m.family("y_seconds", "histogram", "Durations.");
  m.sample("_bucket", {{"le", "+Inf"}}, uint64_t{2});
  m.sample("_sum", {}, 0.5);
  EXPECT_EQ(m.text(),
            "# HELP x_total Things.\\nCounted.\n"
            "# TYPE x_total counter\n"
            "x_total{symbol=\"BTC/USD\",strategy=\"t\\\"1\"} 3\n"
            "x_total 4\n"
            "# HELP y_seconds Durations.\n"
            "# TYPE y_seconds histogram\n"
            "y_seconds_bucket{le=\"+Inf\"} 2\n"
            "y_seconds_sum 0.5\n");
  // A family written in two places would be two TYPE lines: refused.
  EXPECT_THROW(m.family("x_total", "counter", "again"), std::logic_error);
  PrometheusText empty;
  EXPECT_THROW(empty.sample({}, 1), std::logic_error);
}

}  // namespace
}  // namespace wfod::net
