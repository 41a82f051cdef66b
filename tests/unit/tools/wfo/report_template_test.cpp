// The --report page as embedded at build time (tools/wfo/report/embed_report.cmake): it is
// report.html with report.css (indented into <style>) and report.js inlined at their @inline
// lines, whole and in order. (render_html() filling its slots: report_data_test.)

#include "tools/wfo/report_template.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace wfod::cli {
namespace {

std::string source_file(const std::string& name) {
  const std::string path = std::string(WFOD_SOURCE_DIR) + "/tools/wfo/report/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every non-empty line indented by two spaces, as the build writes the style sheet.
std::string indented(const std::string& css) {
  std::string out;
  bool line_start = true;
  for (char c : css) {
    if (line_start && c != '\n') out += "  ";
    out += c;
    line_start = c == '\n';
  }
  return out;
}

void replace_line(std::string& text, const std::string& line, const std::string& with) {
  const auto at = text.find(line);
  ASSERT_NE(at, std::string::npos) << line;
  text.replace(at, line.size(), with);
}

TEST(ReportTemplate, IsTheHtmlWithTheStyleAndScriptInlined) {
  std::string want = source_file("report.html");
  replace_line(want, "/* @inline report.css */\n", indented(source_file("report.css")));
  replace_line(want, "// @inline report.js\n", source_file("report.js"));
  // Compared whole: a chunk lost or doubled by the embedding shows up as a size difference.
  ASSERT_EQ(report_template().size(), want.size());
  EXPECT_TRUE(report_template() == want);
  EXPECT_EQ(report_template().find("/* @inline report.css */"), std::string_view::npos);
  EXPECT_EQ(report_template().find("// @inline report.js"), std::string_view::npos);
}

TEST(ReportTemplate, UniversePageIsItsHtmlWithTheSharedStyleAndItsScript) {
  std::string want = source_file("universe.html");
  replace_line(want, "/* @inline report.css */\n", indented(source_file("report.css")));
  replace_line(want, "// @inline universe.js\n", source_file("universe.js"));
  ASSERT_EQ(universe_template().size(), want.size());
  EXPECT_TRUE(universe_template() == want);
  EXPECT_EQ(universe_template().find("// @inline"), std::string_view::npos);
}

}  // namespace
}  // namespace wfod::cli
