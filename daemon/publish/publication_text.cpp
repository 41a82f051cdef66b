// publication_text: a small append-only JSON writer and the payload written with it, field by
// field in publication_json's order. Numbers go through nlohmann's own float formatter so the
// text is byte-identical to dump() (tests/unit/daemon/publish/publication_text_test.cpp checks
// that).
#include "wfod/daemon/publish/publication_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "wfod/grid_params.hpp"

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
  // One member of the open object: key, then value (or real).
  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  void real_field(std::string_view k, double v) {
    key(k);
    real(v);
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
  (void)grid;  // the combo knows its family and filter
  for (const ParamValue& p : combo_params(c)) {
    if (p.kind == ParamKind::integer)
      w.field(p.name, static_cast<int64_t>(p.number));
    else if (p.kind == ParamKind::real)
      w.real_field(p.name, p.number);
    else
      w.field(p.name, p.text);
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
  w.field("schema", 1);
  w.field("symbol", in.symbol);
  w.field("strategy", in.strategy);
  w.field("seq", in.seq);
  w.field("published_ns", in.published_ns);
  w.key("window");
  w.open_object();
  w.field("bars", static_cast<uint64_t>(in.window_bars));
  w.field("first_ts", in.first_ts);
  w.field("last_ts", in.last_ts);
  w.close_object();
  w.key("params");
  write_params(w, *in.grid, best.combo);
  w.field("id", best.combo.id);
  w.key("metrics");
  write_metrics(w, best.metrics);
  w.field("changed", in.changed);
  w.key("top");
  w.open_array();
  for (const Ranked& r : in.result->top) {
    w.open_object();
    w.field("id", r.combo.id);
    w.key("params");
    write_params(w, *in.grid, r.combo);
    w.key("metrics");
    write_metrics(w, r.metrics);
    w.close_object();
  }
  w.close_array();
  w.field("evaluated", in.result->evaluated);
  w.field("skipped", in.result->skipped);
  w.real_field("elapsed_ms", in.elapsed_ms);
  w.field("backend", in.backend);
  w.field("config_version", in.config_version);
  w.key("live_oos");
  if (in.live_oos) {
    w.open_object();
    w.field("seq", in.live_oos->seq);
    w.field("bars", static_cast<uint64_t>(in.live_oos->bars));
    w.key("metrics");
    write_metrics(w, in.live_oos->metrics);
    w.close_object();
  } else {
    w.null();
  }
  w.key("position");
  if (in.position) {
    w.open_object();
    w.field("value", *in.position);
    w.field("ts", in.last_ts);
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
