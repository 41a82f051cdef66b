// The HTML page of `wfo walk|sweep --report DIR` (tools/wfo/report/, embedded at build time):
// one self-contained file whose inline script draws every chart as SVG from the embedded JSON
// data block.
#pragma once

#include <string_view>

namespace wfod::cli {

// Placeholders that report_writer.cpp replaces: the page title (HTML-escaped text) and the
// report document (script_safe_json()).
inline constexpr std::string_view kReportTitleSlot = "__WFO_REPORT_TITLE__";
inline constexpr std::string_view kReportDataSlot = "__WFO_REPORT_DATA__";

// The page, with both slots once each.
std::string_view report_template();
// The universe page of `wfo walk --universe --report` (report/universe.html), the same slots.
std::string_view universe_template();

}  // namespace wfod::cli
