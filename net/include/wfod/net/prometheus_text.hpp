// The Prometheus text exposition format (version 0.0.4), written to the letter: HELP and TYPE
// once per family and before its samples, label values and help text escaped, numbers as Go's
// ParseFloat reads them (NaN, +Inf, -Inf). Knows nothing about wfod's metrics (metrics_text).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace wfod::net {

// A label value as the format quotes it: backslash, double quote and line feed escaped.
std::string escape_label_value(std::string_view value);
// HELP text: backslash and line feed escaped (a quote needs none there).
std::string escape_help(std::string_view text);
// A sample value: integers exactly; other finite values in the shortest text that reads back
// to the same double, fixed notation in the usual range; NaN, +Inf, -Inf.
std::string format_sample_value(double value);

class PrometheusText {
 public:
  using Label = std::pair<std::string_view, std::string_view>;
  using Labels = std::initializer_list<Label>;

  // Starts the family `name` (`type`: counter, gauge, histogram, ...): its HELP and TYPE
  // lines. Samples that follow belong to it. A name started twice is a programming error
  // (std::logic_error): promtool and Prometheus reject a family split in two.
  void family(std::string_view name, std::string_view type, std::string_view help);

  // One sample of the current family: its name plus `suffix` ("", or "_bucket", "_sum",
  // "_count" for a histogram), the labels in the order given, the value.
  void sample(std::string_view suffix, Labels labels, double value);
  void sample(std::string_view suffix, Labels labels, uint64_t value);
  void sample(Labels labels, uint64_t value) { sample("", labels, value); }

  const std::string& text() const { return out_; }

 private:
  void name_and_labels(std::string_view suffix, Labels labels);

  std::string out_;
  std::string current_;
  std::set<std::string, std::less<>> started_;
};

}  // namespace wfod::net
