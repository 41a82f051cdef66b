// Builders for the rows of the key tables (wfod/config/config_keys.hpp), one per kind of
// value: each reads through TableReader (so every error is located), checks the value and
// stores it in the member `field` names; read_keys() reads a whole table through its rows.
// `field` is a generic lambda returning a reference to the member, e.g.
// [](auto& s) -> auto& { return s.rank.top; }, so one row can both fill and compare it.
// Internal to wfod_config.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "toml_reader.hpp"
#include "wfod/config/config_keys.hpp"

namespace wfod::config::detail {

// What some rows need beyond their own table: the configured symbol names
// (strategy.symbols), the strategy's grid (selection.plateau_radius by axis).
struct ReadContext {
  const std::vector<std::string>* symbols = nullptr;
  const Grid* grid = nullptr;
};

template <class Field, class Struct>
using FieldType = std::remove_reference_t<std::invoke_result_t<Field, Struct&>>;

template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

// differs() of a row: the member compared with operator!=, where it has one (the reload plan
// compares only members that do; see Key::differs).
template <class Struct, class Field>
std::function<bool(const Struct&, const Struct&)> member_differs(Field field) {
  if constexpr (std::equality_comparable<FieldType<Field, Struct>>) {
    return [field](const Struct& a, const Struct& b) { return field(a) != field(b); };
  } else {
    return {};
  }
}

// A row read by `read(t, s, ctx)` itself, for values no builder below covers.
template <class Struct, class Read>
Key<Struct> custom_key(std::string_view name, Reload reload, Read read, bool required = false) {
  return Key<Struct>{name, reload, required, read, {}};
}

// A string, passed through `check(t, key, value)`, which returns it or fails.
template <class Struct, class Field, class Check>
Key<Struct> string_key(std::string_view name, Reload reload, Field field, Check check,
                       bool required = false) {
  return Key<Struct>{name, reload, required,
                     [name, field, check](TableReader& t, Struct& s, const ReadContext&) {
                       if (auto v = t.get_string(name)) field(s) = check(t, name, *v);
                     },
                     member_differs<Struct>(field)};
}

// An integer in [min, max], stored in the member's own integer type.
template <class Struct, class Field>
Key<Struct> integer_key(std::string_view name, Reload reload, Field field, int64_t min, int64_t max,
                        bool required = false) {
  return Key<Struct>{name, reload, required,
                     [name, field, min, max](TableReader& t, Struct& s, const ReadContext&) {
                       if (auto v = t.get_integer(name, min, max)) {
                         using Member = FieldType<Field, Struct>;
                         if constexpr (kIsOptional<Member>) {
                           field(s) = static_cast<typename Member::value_type>(*v);
                         } else {
                           field(s) = static_cast<Member>(*v);
                         }
                       }
                     },
                     member_differs<Struct>(field)};
}

// A finite number for which `ok(v)` holds, else `message` ("must be > 0").
template <class Struct, class Field, class Ok>
Key<Struct> number_key(std::string_view name, Reload reload, Field field, Ok ok,
                       std::string_view message) {
  return Key<Struct>{name, reload, false,
                     [name, field, ok, message](TableReader& t, Struct& s, const ReadContext&) {
                       if (auto v = t.get_number(name)) {
                         if (!ok(*v)) t.fail(name, message);
                         field(s) = *v;
                       }
                     },
                     member_differs<Struct>(field)};
}

template <class Struct, class Field>
Key<Struct> bool_key(std::string_view name, Reload reload, Field field) {
  return Key<Struct>{name, reload, false,
                     [name, field](TableReader& t, Struct& s, const ReadContext&) {
                       if (auto v = t.get_bool(name)) field(s) = *v;
                     },
                     member_differs<Struct>(field)};
}

// One of the listed words, stored as the value paired with it.
template <class Struct, class Value, class Field>
Key<Struct> choice_key(std::string_view name, Reload reload, Field field,
                       std::vector<std::pair<std::string_view, Value>> choices) {
  std::vector<std::string_view> words;
  for (const auto& choice : choices) words.push_back(choice.first);
  return Key<Struct>{name, reload, false,
                     [name, field, words, choices](TableReader& t, Struct& s, const ReadContext&) {
                       if (auto v = t.get_choice(name, words)) {
                         for (const auto& [word, value] : choices) {
                           if (word == *v) field(s) = value;
                         }
                       }
                     },
                     member_differs<Struct>(field)};
}

// A string kept as written, one of `words`.
template <class Struct, class Field>
Key<Struct> word_key(std::string_view name, Reload reload, Field field,
                     std::vector<std::string_view> words) {
  std::vector<std::pair<std::string_view, std::string>> choices;
  for (const std::string_view w : words) choices.emplace_back(w, std::string(w));
  return choice_key<Struct>(name, reload, field, std::move(choices));
}

// A string passed through `parse` (wfod::parse_fill, ...); its std::invalid_argument is
// reported at the value.
template <class Struct, class Field, class Parse>
Key<Struct> parsed_key(std::string_view name, Reload reload, Field field, Parse parse,
                       bool required = false) {
  return Key<Struct>{name, reload, required,
                     [name, field, parse](TableReader& t, Struct& s, const ReadContext&) {
                       if (auto v = t.get_parsed(name, parse)) field(s) = *v;
                     },
                     member_differs<Struct>(field)};
}

// The names of a table's keys: what TableReader allows.
template <class Struct>
std::vector<std::string_view> key_names(const KeyTable<Struct>& keys) {
  std::vector<std::string_view> names;
  for (const Key<Struct>& k : keys) names.push_back(k.name);
  return names;
}

// Reads every key of `keys` in their order: a missing required key fails, an absent
// optional one leaves its member as it is.
template <class Struct>
void read_keys(TableReader& t, const KeyTable<Struct>& keys, Struct& s,
               const ReadContext& ctx = {}) {
  for (const Key<Struct>& k : keys) {
    if (!t.has(k.name)) {
      if (k.required) t.fail_missing(k.name);
      continue;
    }
    k.read(t, s, ctx);
  }
}

}  // namespace wfod::config::detail
