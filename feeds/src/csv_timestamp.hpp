// A CSV row's time (internal to feeds): the timestamp field, or a date field joined with a
// time-of-day field, in the forms exports write beyond parse_timestamp's ISO-8601 subset:
// MetaTrader's dotted dates (2024.01.02) and times without seconds (09:30). Only CSV files
// get these forms; feeds' JSON bars keep PROTOCOL's strict timestamps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wfod::feeds::csv {

// `time` empty: `date` is the whole timestamp (ISO-8601, dotted date, or epoch). Otherwise
// `date` is a date and `time` HH:MM[:SS[.fraction]] of that day, UTC. `scratch` is reused
// between rows. False when the text is none of these.
bool parse_row_time(std::string_view date, std::string_view time, std::string& scratch,
                    int64_t& ts_ns);

}  // namespace wfod::feeds::csv
