// The universe report's folder names (symbol_dir_names: user-given symbols kept inside
// --report DIR, distinct, the same for every shard) and its page (render_universe_html: the
// symbols only as script-safe data, the title escaped).

#include "tools/wfo/universe_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/wfo/report_writer.hpp"

namespace wfod::cli {
namespace {

TEST(UniverseReport, PlainSymbolsKeepTheirNames) {
  EXPECT_EQ(symbol_dir_names({"goog", "BRK.B", "es-1_m"}),
            (std::vector<std::string>{"goog", "BRK.B", "es-1_m"}));
}

TEST(UniverseReport, NoNameLeavesDirOrHidesOrTakesItsFiles) {
  const auto names = symbol_dir_names({"..", ".", ".hidden", "a/../../x", "<script>", "index.html",
                                       "UNIVERSE.JSON", "", "caf\xc3\xa9"});
  EXPECT_EQ(names, (std::vector<std::string>{"_..", "_.", "_.hidden", "a_.._.._x", "_script_",
                                             "_index.html", "_UNIVERSE.JSON", "_", "caf__"}));
  for (const std::string& n : names) {
    EXPECT_EQ(n.find('/'), std::string::npos) << n;
    EXPECT_NE(n.front(), '.') << n;
  }
}

// '~' is no symbol's (it becomes '_'): a numbered name never meets a symbol's own.
TEST(UniverseReport, ClashesGetNumberedInUniverseOrderLetterCaseAside) {
  EXPECT_EQ(symbol_dir_names({"a&b", "a_b", "A_B", "a*b", "a_b~2"}),
            (std::vector<std::string>{"a_b", "a_b~2", "A_B~3", "a_b~4", "a_b_2"}));
}

TEST(UniverseReport, LongSymbolsAreCutAndStillDistinct) {
  const std::string a(100, 'x'), b = a + "y";
  const auto names = symbol_dir_names({a, b});
  EXPECT_EQ(names[0], std::string(64, 'x'));
  EXPECT_EQ(names[1], std::string(64, 'x') + "~2");
}

TEST(UniverseReport, PageHoldsSymbolsOnlyAsScriptSafeData) {
  Json doc = Json::object();
  doc["source"] = "u<b>.csv";
  doc["symbols"] = Json::array({Json{{"symbol", "</script><script>alert(1)"}}});
  const std::string page = render_universe_html(doc);
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
  EXPECT_NE(page.find("<title>wfo universe report - u&lt;b&gt;.csv</title>"), std::string::npos);
  EXPECT_EQ(page.find("__WFO_REPORT_DATA__"), std::string::npos);
}

}  // namespace
}  // namespace wfod::cli
