// The HTML page of `wfo walk|sweep --report DIR`: the page is written as real files in
// report/ (report.html, report.css, report.js); the build inlines the style and script into
// the html and embeds the result here (report/embed_report.cmake -> report_page.hpp).
// report_writer.cpp fills the title and data slots; nothing here is fetched at view time.

#include "report_template.hpp"

#include <string>

#include "wfo/report_page.hpp"

namespace wfod::cli {

std::string_view report_template() {
  // The generated header holds the page in chunks (no one string literal may be this long);
  // joined once, on first use.
  static const std::string page = [] {
    std::string joined;
    for (const std::string_view chunk : generated::kReportPageChunks) joined += chunk;
    return joined;
  }();
  return page;
}

}  // namespace wfod::cli
