// A Grid's axes listed once, for whatever walks them axis by axis: an axis added to the grid
// goes here, and every walker follows. Two walks: the built-in families' axes (SPEC §5), each
// family's in its canonical order (Grid::axes, decode and repeated_value; the cpu sweep's
// tiles), and every axis vector of the grid, whatever its family (wfo's flags, a stream's
// spec text). Neither lists rules' axes, which are its program's params (Grid::rule_axes).
#pragma once

#include "wfod/grid.hpp"

namespace wfod::detail {

// f(name, grid_axis, combo_field) for each axis of `family`, in canonical order (the first
// the fastest in a combo id): grid_axis points at the Grid's vector of the axis's values,
// combo_field at the Combo's value. Nothing for rules.
template <typename F>
constexpr void for_each_family_axis(Family family, F&& f) {
  switch (family) {
    case Family::ma_cross:
      f("fast", &Grid::fast, &Combo::fast);
      f("slow", &Grid::slow, &Combo::slow);
      f("ma", &Grid::ma, &Combo::ma);
      f("side", &Grid::side, &Combo::side);
      f("entry", &Grid::entry, &Combo::entry);
      break;
    case Family::channel_breakout:
      f("n", &Grid::n, &Combo::n);
      f("source", &Grid::source, &Combo::source);
      f("side", &Grid::side, &Combo::side);
      break;
    case Family::bollinger:
      f("n", &Grid::n, &Combo::n);
      f("k", &Grid::k, &Combo::k);
      f("style", &Grid::style, &Combo::style);
      f("side", &Grid::side, &Combo::side);
      break;
    case Family::rsi_reversion:
      f("n", &Grid::n, &Combo::n);
      f("lo", &Grid::lo, &Combo::lo);
      f("hi", &Grid::hi, &Combo::hi);
      f("side", &Grid::side, &Combo::side);
      break;
    case Family::rules:
      break;
  }
}

// Which part of a grid an axis belongs to: a built-in family's parameters (those of SPEC
// v1.0's families, or of the families v1.1 added), the stops (SPEC §5b) or the vol filter.
enum class AxisGroup { family, family_v1_1, stops, filter };

// f(name, grid_axis, group) for every axis vector of Grid, in the order Grid declares them:
// the families' parameters, then the stops', then the filter's.
template <typename F>
constexpr void for_each_grid_axis(F&& f) {
  f("fast", &Grid::fast, AxisGroup::family);
  f("slow", &Grid::slow, AxisGroup::family);
  f("ma", &Grid::ma, AxisGroup::family);
  f("side", &Grid::side, AxisGroup::family);
  f("entry", &Grid::entry, AxisGroup::family);
  f("n", &Grid::n, AxisGroup::family);
  f("source", &Grid::source, AxisGroup::family);
  f("k", &Grid::k, AxisGroup::family_v1_1);
  f("style", &Grid::style, AxisGroup::family_v1_1);
  f("lo", &Grid::lo, AxisGroup::family_v1_1);
  f("hi", &Grid::hi, AxisGroup::family_v1_1);
  f("stop_loss", &Grid::stop_loss, AxisGroup::stops);
  f("take_profit", &Grid::take_profit, AxisGroup::stops);
  f("trailing_stop", &Grid::trailing_stop, AxisGroup::stops);
  f("vol_short", &Grid::vol_short, AxisGroup::filter);
  f("vol_long", &Grid::vol_long, AxisGroup::filter);
  f("vol_threshold", &Grid::vol_threshold, AxisGroup::filter);
}

}  // namespace wfod::detail
