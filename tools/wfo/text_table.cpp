// A plain aligned text table (headers, rows of cells, per-column alignment) and the number
// formats wfo's human-readable output uses.

#include "text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

void TextTable::add_column(std::string header, Align align) {
  headers_.push_back(std::move(header));
  aligns_.push_back(align);
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers_.size()) throw std::logic_error("TextTable: row width");
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += "  ";
      std::string pad(width[c] - cells[c].size(), ' ');
      out += aligns_[c] == Align::right ? pad + cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c > 0 ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string fixed(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  // Annualised figures of short windows can be astronomically large (SPEC §6 cagr with A/n
  // big): switch to scientific notation rather than print 20 digits.
  if (std::fabs(v) >= 1e9)
    std::snprintf(buf, sizeof buf, "%.*e", digits, v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string short_ts(int64_t ts_ns) {
  std::string s = feeds::format_timestamp(ts_ns);
  constexpr std::string_view kMidnight = "T00:00:00Z";
  if (s.size() > kMidnight.size() &&
      s.compare(s.size() - kMidnight.size(), kMidnight.size(), kMidnight) == 0) {
    return s.substr(0, s.size() - kMidnight.size());
  }
  if (auto t = s.find('T'); t != std::string::npos) s[t] = ' ';
  if (!s.empty() && s.back() == 'Z') s.pop_back();
  return s;
}

}  // namespace wfod::cli
