// publication_text: a small append-only JSON writer and the payload written with it, field by
// field in publication_json's order. Numbers go through nlohmann's own float formatter so the
// text is byte-identical to dump() (tests/unit/publication_text_test.cpp checks that).
#include "wfod/daemon/publication_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>

namespace wfod::daemon {
namespace {

class JsonText {
 public:
  explicit JsonText(size_t reserve) { out_.reserve(reserve); }
  std::string take() { return std::move(out_); }

  void open_object() { open('{'); }
  void close_object() { close('}'); }
  void open_array() { open('['); }
  void close_array() { close(']'); }
  void key(std::string_view k) {
    comma();
    string_literal(k);
    out_ += ':';
    after_key_ = true;
  }
  void value(std::string_view s) {
    comma();
    string_literal(s);
  }
  void value(int64_t v) { integer(v); }
  void value(uint64_t v) { integer(v); }
  void value(int v) { integer(static_cast<int64_t>(v)); }
  void value(bool b) {
    comma();
    out_ += b ? "true" : "false";
  }
  void null() {
    comma();
    out_ += "null";
  }
  // JSON has no infinity or NaN: null, as real() in publication.cpp.
  void real(double v) {
    comma();
    if (!std::isfinite(v)) {
      out_ += "null";
      return;
    }
    std::array<char, 64> buf{};
    char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
    out_.append(buf.data(), end);
  }
  // A complete JSON value written by nlohmann (rare, small parts such as "selection").
  void raw(const Json& j) {
    comma();
    out_ += j.dump();
  }

 private:
  void open(char c) {
    comma();
    out_ += c;
    first_ = true;
  }
  void close(char c) {
    out_ += c;
    first_ = false;
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) out_ += ',';
    first_ = false;
  }
  template <typename T>
  void integer(T v) {
    comma();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  // As nlohmann's dump (ensure_ascii off): ", \ and control characters escaped, the rest as is.
  void string_literal(std::string_view s) {
    out_ += '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\b':
          out_ += "\\b";
          break;
        case '\f':
          out_ += "\\f";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out_ += esc;
          } else {
            out_ += ch;
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  bool first_ = true, after_key_ = false;
};

bool is_integer_metric(std::string_view name) {
  return name == "trades" || name == "wins" || name == "long_bars" || name == "short_bars" ||
         name == "flat_bars" || name == "changes";
}

void write_metrics(JsonText& w, const Metrics& m) {
  w.open_object();
  for (std::string_view name : kMetricNames) {
    const double v = metric_value(m, name);
    w.key(name);
    if (is_integer_metric(name)) {
      w.value(static_cast<int64_t>(v));
    } else {
      w.real(v);
    }
  }
  w.close_object();
}

void write_params(JsonText& w, const Grid& grid, const Combo& c) {
  w.open_object();
  if (grid.family == Family::ma_cross) {
    w.key("fast");
    w.value(c.fast);
    w.key("slow");
    w.value(c.slow);
    w.key("ma");
    w.value(to_string(c.ma));
    w.key("side");
    w.value(to_string(c.side));
    w.key("entry");
    w.value(to_string(c.entry));
  } else {
    w.key("n");
    w.value(c.n);
    w.key("source");
    w.value(to_string(c.source));
    w.key("side");
    w.value(to_string(c.side));
  }
  if (grid.has_vol_filter()) {
    w.key("vol_short");
    w.value(c.vol_short);
    w.key("vol_long");
    w.value(c.vol_long);
    w.key("vol_threshold");
    w.real(c.vol_threshold);
  }
  w.close_object();
}

}  // namespace

std::string publication_text(const PublicationInput& in) {
  if (in.grid == nullptr || in.result == nullptr || in.result->top.empty()) {
    throw std::invalid_argument("publication_text: no winner to publish");
  }
  const Ranked& best = in.published ? *in.published : in.result->top.front();
  JsonText w(4096 + 512 * in.result->top.size());
  w.open_object();
  w.key("schema");
  w.value(1);
  w.key("symbol");
  w.value(in.symbol);
  w.key("strategy");
  w.value(in.strategy);
  w.key("seq");
  w.value(in.seq);
  w.key("published_ns");
  w.value(in.published_ns);
  w.key("window");
  w.open_object();
  w.key("bars");
  w.value(static_cast<uint64_t>(in.window_bars));
  w.key("first_ts");
  w.value(in.first_ts);
  w.key("last_ts");
  w.value(in.last_ts);
  w.close_object();
  w.key("params");
  write_params(w, *in.grid, best.combo);
  w.key("id");
  w.value(best.combo.id);
  w.key("metrics");
  write_metrics(w, best.metrics);
  w.key("changed");
  w.value(in.changed);
  w.key("top");
  w.open_array();
  for (const Ranked& r : in.result->top) {
    w.open_object();
    w.key("id");
    w.value(r.combo.id);
    w.key("params");
    write_params(w, *in.grid, r.combo);
    w.key("metrics");
    write_metrics(w, r.metrics);
    w.close_object();
  }
  w.close_array();
  w.key("evaluated");
  w.value(in.result->evaluated);
  w.key("skipped");
  w.value(in.result->skipped);
  w.key("elapsed_ms");
  w.real(in.elapsed_ms);
  w.key("backend");
  w.value(in.backend);
  w.key("config_version");
  w.value(in.config_version);
  w.key("live_oos");
  if (in.live_oos) {
    w.open_object();
    w.key("seq");
    w.value(in.live_oos->seq);
    w.key("bars");
    w.value(static_cast<uint64_t>(in.live_oos->bars));
    w.key("metrics");
    write_metrics(w, in.live_oos->metrics);
    w.close_object();
  } else {
    w.null();
  }
  if (in.selection) {
    w.key("selection");
    w.raw(*in.selection);
  }
  w.close_object();
  return w.take();
}

}  // namespace wfod::daemon
