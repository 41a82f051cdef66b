// The symbols of `wfo walk --universe` (issue 47): read from a universe file (a CSV
// `symbol,path[,bars_per_year]`, paths relative to it), a folder of CSV files or a glob
// (symbol = file stem), and their split into --shard I/N sets.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wfod::cli {

struct UniverseSymbol {
  std::string symbol;
  std::string path;                     // as the run opens it (relative to the universe file)
  std::optional<double> bars_per_year;  // the file's third column, where given
};

struct Universe {
  std::string source;                   // what --universe named
  std::vector<UniverseSymbol> symbols;  // file order; a folder's or glob's in name order
};

// Throws InputError naming the file (and line) for an unreadable or malformed universe, a
// symbol listed twice, a folder without CSV files or a glob that matches none. The data files
// themselves are not opened here: a bad one is the run's to report or skip.
Universe read_universe(const std::string& arg);

// --shard I/N: symbol k (0-based, in universe order) belongs to shard k mod N; I in [0, N).
struct Shard {
  size_t index = 0;
  size_t count = 1;
  bool holds(size_t k) const { return k % count == index; }
};

// "I/N" -> Shard; throws UsageError.
Shard parse_shard(std::string_view text);

}  // namespace wfod::cli
