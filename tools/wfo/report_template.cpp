// The HTML pages of `wfo walk|sweep --report DIR` and the universe page: the page is written as
// real files in report/ (report.html, report.css, report.js); the build inlines the style and
// script into the html and embeds the result here (report/embed_report.cmake -> report_page.hpp).
// report_writer.cpp fills the title and data slots; nothing here is fetched at view time.

#include "report_template.hpp"

#include <string>

#include "wfo/report_page.hpp"
#include "wfo/universe_page.hpp"

namespace wfod::cli {

namespace {

// The generated headers hold a page in chunks (no one string literal may be this long).
template <size_t N>
std::string joined(const std::string_view (&chunks)[N]) {
  std::string page;
  for (const std::string_view chunk : chunks) page += chunk;
  return page;
}

}  // namespace

std::string_view report_template() {
  static const std::string page = joined(generated::kReportPageChunks);  // once, on first use
  return page;
}

std::string_view universe_template() {
  static const std::string page = joined(generated::kUniversePageChunks);
  return page;
}

}  // namespace wfod::cli
