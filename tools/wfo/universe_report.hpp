// The HTML report of a universe (`wfo walk --universe FILE --report DIR`, `wfo merge ...
// --report DIR`): the symbols' page folders, named safely from user-given symbols, and the
// writing of DIR/index.html (the universe page, report/universe.html), DIR/universe.json and
// each walked symbol's single-symbol walk report in DIR/NAME/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "json_output.hpp"

namespace wfod::cli {

// The folder of each symbol's page under DIR, in universe order: the symbol with every byte
// but ASCII letters, digits, '-', '_' and '.' made '_', at most 64 bytes, '_' put before one
// that would start with '.' ("..", hidden) or be empty or name a file of DIR itself
// (index.html, universe.json); where two symbols would get one name (letter case aside, for
// case-insensitive file systems), the later gets "~2", "~3", ... So no symbol escapes DIR or
// shares another's folder, and the names depend on the universe only: every shard of a run
// gives a symbol the same folder.
std::vector<std::string> symbol_dir_names(const std::vector<std::string>& symbols);

// Writes DIR/NAME/ for every (NAME, report) pair (a walk_report_files() document), then
// DIR/universe.json and DIR/index.html from `page` (the universe page's document). DIR must
// exist (prepare_report_dir). Returns the path of index.html.
std::string write_universe_report(const std::string& dir, const Json& page,
                                  const std::vector<std::pair<std::string, const Json*>>& symbols);

}  // namespace wfod::cli
