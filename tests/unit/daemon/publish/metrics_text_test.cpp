// /metrics as a whole: every family once with HELP and TYPE before its samples, label values
// escaped, the stream and histogram families an operator alerts on, build and backend info.
// A small reader of the text format checks the structure here; promtool checks a real scrape
// in tests/integration/daemon_metrics_test.sh.

#include "wfod/daemon/publish/metrics_text.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace wfod::daemon {
namespace {

HealthInput full() {
  HealthInput h;
  h.backend = "cpu";
  h.requested_backend = "auto";
  h.version = "0.1.0";
  h.build_backend = "cuda";
  h.uptime_s = 5;
  for (const char* name : {"BRK.B", "BTC/USD", "we\"ird\\sym"}) {
    SymbolHealth& s = h.symbols[name];
    s.bars = 400;
    s.last_ts = 1'700'000'000'000'000'000;
    s.last_bar_age_s = 2.5;
    s.accepted_bars = 390;
    s.bar_interval_s = 60;
    s.stale_after_s = 300;
  }
  h.symbols["BTC/USD"].refused_bars = 7;
  h.rejects["parse"] = 1;
  h.rejects["future"] = 0;
  StreamHealth published;
  published.every_bars = 50;
  published.publications = 3;
  published.last_published_ns = 1'700'000'060'500'000'000;
  published.bars_since_publication = 12;
  h.streams[{"BRK.B", "trend"}] = published;
  h.streams[{"BTC/USD", "trend"}] = published;
  h.streams[{"we\"ird\\sym", "trend"}] = StreamHealth{};  // none yet: no timestamp
  h.optimisation_durations["trend"].observe(0.003);
  h.optimisation_durations["trend"].observe(0.2);
  h.optimisation_durations["trend"].observe(700);
  return h;
}

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped
  std::string value;
};

// Reads one sample line, unescaping label values; fails the test on bad syntax.
Sample read_sample(const std::string& line) {
  Sample s;
  size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name += line[i++];
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      std::string label;
      while (i < line.size() && line[i] != '=') label += line[i++];
      EXPECT_EQ(line.substr(i, 2), "=\"") << line;
      i += 2;
      std::string value;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\') {
          ++i;
          EXPECT_TRUE(line[i] == '\\' || line[i] == '"' || line[i] == 'n') << line;
          value += line[i] == 'n' ? '\n' : line[i];
        } else {
          value += line[i];
        }
        ++i;
      }
      ++i;  // closing quote
      EXPECT_TRUE(s.labels.emplace(label, value).second) << "label twice: " << line;
      if (line[i] == ',') ++i;
    }
    ++i;  // '}'
  }
  EXPECT_EQ(line[i], ' ') << line;
  s.value = line.substr(i + 1);
  return s;
}

struct Scrape {
  std::map<std::string, std::string> types;  // family -> type
  std::vector<Sample> samples;
  const Sample* find(const std::string& name,
                     const std::map<std::string, std::string>& labels) const {
    for (const Sample& s : samples) {
      if (s.name == name && s.labels == labels) return &s;
    }
    return nullptr;
  }
};

Scrape read_scrape(const std::string& text) {
  Scrape out;
  std::set<std::string> helped;
  std::string family, type;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# HELP ", 0) == 0) {
      family = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(helped.insert(family).second) << "HELP twice: " << family;
    } else if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_EQ(name, family) << "TYPE without its HELP first: " << line;
      type = line.substr(line.rfind(' ') + 1);
      EXPECT_TRUE(out.types.emplace(name, type).second) << "TYPE twice: " << name;
    } else {
      Sample s = read_sample(line);
      if (type == "histogram") {
        EXPECT_TRUE(s.name == family + "_bucket" || s.name == family + "_sum" ||
                    s.name == family + "_count")
            << line;
      } else {
        EXPECT_EQ(s.name, family) << "sample outside its family: " << line;
      }
      out.samples.push_back(std::move(s));
    }
  }
  return out;
}

TEST(MetricsText, EveryFamilyOnceAndWellFormed) {
  const std::string text = prometheus_metrics(full());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const Scrape m = read_scrape(text);
  EXPECT_EQ(m.types.count("wfod_backend"), 0u) << "the old name is gone";
  for (const auto& [family, type] : m.types) {
    EXPECT_EQ(family.rfind("wfod_", 0), 0u) << family;
    const bool total = family.size() > 6 && family.substr(family.size() - 6) == "_total";
    EXPECT_EQ(type == "counter", total) << family << " is a " << type;
  }
}

TEST(MetricsText, BuildBackendAndSymbolLabels) {
  const Scrape m = read_scrape(prometheus_metrics(full()));
  ASSERT_TRUE(m.find("wfod_build_info", {{"version", "0.1.0"}, {"backend", "cuda"}}));
  ASSERT_TRUE(m.find("wfod_backend_info", {{"backend", "cpu"}, {"requested", "auto"}}));
  EXPECT_EQ(m.find("wfod_backend_info", {{"backend", "cpu"}, {"requested", "auto"}})->value, "1");
  for (const char* sym : {"BRK.B", "BTC/USD", "we\"ird\\sym"}) {
    const auto* accepted = m.find("wfod_bars_accepted_total", {{"symbol", sym}});
    ASSERT_TRUE(accepted) << sym;
    EXPECT_EQ(accepted->value, "390");
    ASSERT_TRUE(m.find("wfod_bar_interval_seconds", {{"symbol", sym}}));
    EXPECT_EQ(m.find("wfod_last_bar_timestamp_seconds", {{"symbol", sym}})->value, "1700000000");
    EXPECT_EQ(m.find("wfod_symbol_stale_after_seconds", {{"symbol", sym}})->value, "300");
  }
  EXPECT_EQ(m.find("wfod_storage_refused_bars_total", {{"symbol", "BTC/USD"}})->value, "7");
  // The raw text carries the escaped form of the hostile name.
  EXPECT_NE(prometheus_metrics(full()).find("{symbol=\"we\\\"ird\\\\sym\"}"), std::string::npos);
}

TEST(MetricsText, StreamsAndTheirSchedule) {
  const Scrape m = read_scrape(prometheus_metrics(full()));
  const std::map<std::string, std::string> brk{{"symbol", "BRK.B"}, {"strategy", "trend"}};
  EXPECT_EQ(m.find("wfod_stream_every_bars", brk)->value, "50");
  EXPECT_EQ(m.find("wfod_stream_publication_interval_seconds", brk)->value, "3000");
  EXPECT_EQ(m.find("wfod_stream_publications_total", brk)->value, "3");
  EXPECT_EQ(m.find("wfod_stream_last_publication_timestamp_seconds", brk)->value, "1700000060.5");
  EXPECT_EQ(m.find("wfod_stream_bars_since_publication", brk)->value, "12");
  // A stream that has not published has its schedule and a zero counter, no timestamp.
  const std::map<std::string, std::string> none{{"symbol", "we\"ird\\sym"}, {"strategy", "trend"}};
  EXPECT_EQ(m.find("wfod_stream_publications_total", none)->value, "0");
  EXPECT_FALSE(m.find("wfod_stream_last_publication_timestamp_seconds", none));
  EXPECT_FALSE(m.find("wfod_stream_bars_since_publication", none));
  // Without an observed bar interval there is no interval in seconds to promise.
  HealthInput h = full();
  h.symbols["BRK.B"].bar_interval_s.reset();
  EXPECT_FALSE(
      read_scrape(prometheus_metrics(h)).find("wfod_stream_publication_interval_seconds", brk));
}

TEST(MetricsText, DurationHistogramByStrategy) {
  const Scrape m = read_scrape(prometheus_metrics(full()));
  EXPECT_EQ(m.types.at("wfod_optimisation_duration_seconds"), "histogram");
  std::vector<std::pair<std::string, uint64_t>> buckets;
  for (const Sample& s : m.samples) {
    if (s.name != "wfod_optimisation_duration_seconds_bucket") continue;
    EXPECT_EQ(s.labels.size(), 2u);
    EXPECT_EQ(s.labels.at("strategy"), "trend");
    buckets.emplace_back(s.labels.at("le"), std::stoull(s.value));
  }
  ASSERT_EQ(buckets.size(), DurationHistogram::kBounds.size() + 1);
  for (size_t i = 1; i < buckets.size(); ++i) EXPECT_GE(buckets[i].second, buckets[i - 1].second);
  EXPECT_EQ(buckets.front(), (std::pair<std::string, uint64_t>{"0.001", 0}));
  EXPECT_EQ(buckets[2], (std::pair<std::string, uint64_t>{"0.005", 1}));
  EXPECT_EQ(buckets.back(), (std::pair<std::string, uint64_t>{"+Inf", 3}));
  EXPECT_EQ(buckets[buckets.size() - 2].second, 2u);  // 700 s is above 500
  EXPECT_EQ(m.find("wfod_optimisation_duration_seconds_count", {{"strategy", "trend"}})->value,
            "3");
  EXPECT_DOUBLE_EQ(
      std::stod(m.find("wfod_optimisation_duration_seconds_sum", {{"strategy", "trend"}})->value),
      0.003 + 0.2 + 700);
}

TEST(MetricsText, EmptyDaemonIsStillValid) {
  // No symbols, streams or runs yet: families with no samples keep their HELP and TYPE.
  const Scrape m = read_scrape(prometheus_metrics(HealthInput{}));
  EXPECT_TRUE(m.types.count("wfod_optimisation_duration_seconds"));
  EXPECT_TRUE(m.find("wfod_up", {}));
}

}  // namespace
}  // namespace wfod::daemon
