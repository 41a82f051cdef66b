// A plain aligned text table (headers, rows of cells, per-column alignment) and the number
// formats wfo's human-readable output uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wfod::cli {

class TextTable {
 public:
  enum class Align { left, right };
  void add_column(std::string header, Align align = Align::right);
  // One cell per column, in column order.
  void add_row(std::vector<std::string> cells);
  // Header, a rule, then the rows; columns two spaces apart, no trailing blanks.
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

// "%.<digits>f", or "nan"/"inf"/"-inf".
std::string fixed(double v, int digits);
// 1234567 -> "1,234,567".
std::string grouped(uint64_t v);
// A timestamp for people: "2013-05-02" for midnight UTC, else "2024-01-01 23:01:00".
std::string short_ts(int64_t ts_ns);

}  // namespace wfod::cli
