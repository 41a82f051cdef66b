// PrometheusText: the exposition format's escaping, number syntax and family bookkeeping.
#include "wfod/net/prometheus_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace wfod::net {

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_help(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_sample_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::array<char, 400> buf{};  // fixed notation of any double below 1e17 fits
  const double magnitude = std::fabs(value);
  // Fixed notation for the values a reader meets (timestamps, ages, counts, durations: no
  // 1.7e+09 for an epoch time); the shortest form, exponent included, outside that range.
  const bool fixed = magnitude == 0 || (magnitude >= 1e-6 && magnitude < 1e17);
  const auto r =
      fixed ? std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::fixed)
            : std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return std::string(buf.data(), r.ptr);
}

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  if (!started_.emplace(name).second) {
    throw std::logic_error("metric family " + std::string(name) + " written twice");
  }
  current_ = name;
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  out_ += escape_help(help);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void PrometheusText::name_and_labels(std::string_view suffix, Labels labels) {
  if (current_.empty()) throw std::logic_error("metric sample before its family");
  out_ += current_;
  out_ += suffix;
  if (labels.size() > 0) {
    out_ += '{';
    bool first = true;
    for (const auto& [label, value] : labels) {
      if (!first) out_ += ',';
      first = false;
      out_ += label;
      out_ += "=\"";
      out_ += escape_label_value(value);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
}

void PrometheusText::sample(std::string_view suffix, Labels labels, double value) {
  name_and_labels(suffix, labels);
  out_ += format_sample_value(value);
  out_ += '\n';
}

void PrometheusText::sample(std::string_view suffix, Labels labels, uint64_t value) {
  name_and_labels(suffix, labels);
  out_ += std::to_string(value);
  out_ += '\n';
}

}  // namespace wfod::net
