// Grid tables on the device: axis values, row indices, per-row first defined bar.
#include <stdexcept>

#include "grid_tables.cuh"
#include "wfod/support.hpp"

namespace wfod::cuda {

std::vector<RowKey> rows_needed(const Grid& g) {
  std::vector<RowKey> keys;
  if (g.family == Family::ma_cross) {
    for (MaType m : g.ma) {
      for (int p : g.fast) keys.push_back({row_kind_of(m), p, Source::close});
      for (int p : g.slow) keys.push_back({row_kind_of(m), p, Source::close});
    }
  } else if (g.family == Family::bollinger) {
    for (int p : g.n) {  // the bands are formed per combo from k (level_next_at)
      keys.push_back({RowKind::sma, p, Source::close});
      keys.push_back({RowKind::vol, p, Source::close});
    }
  } else if (g.family == Family::rsi_reversion) {
    for (int p : g.n) keys.push_back({RowKind::rsi, p, Source::close});
  } else {
    for (Source s : g.source)
      for (int p : g.n) {
        keys.push_back({RowKind::upper, p, s});
        keys.push_back({RowKind::lower, p, s});
      }
  }
  for (int p : g.vol_short) keys.push_back({RowKind::vol, p, Source::close});
  for (int p : g.vol_long) keys.push_back({RowKind::vol, p, Source::close});
  return keys;
}

void build_tables(const Grid& g, const DeviceIndicators& ind, DeviceGridTables& t) {
  GridTables& v = t.view;
  v = GridTables{};
  switch (g.family) {
    case Family::ma_cross:
      v.family = kMaCross;
      break;
    case Family::channel_breakout:
      v.family = kChannel;
      break;
    case Family::bollinger:
      v.family = kBollinger;
      break;
    case Family::rsi_reversion:
      v.family = kRsi;
      break;
    case Family::rules:  // refused by the backend's supports() before any table is built
      throw Unsupported("the cuda backend does not run rules strategies (SPEC §5a)");
  }
  v.has_vol = g.has_vol_filter() ? 1 : 0;
  // The stop axes (SPEC §5b) stay out of the radix: the view is the grid without them, which
  // every kernel reads as before, and the stop evaluator decodes a stop grid's ids through
  // t.stops (stop_eval.cuh).
  std::vector<size_t> radix;
  bool before_stops = true;
  t.stops = StopTables{};
  for (const AxisInfo& axis : g.axes()) {
    const bool stop_axis =
        axis.name == "stop_loss" || axis.name == "take_profit" || axis.name == "trailing_stop";
    if (stop_axis) {
      before_stops = false;
      continue;
    }
    radix.push_back(axis.size);
    if (before_stops) t.stops.stride *= axis.size;
  }
  if (radix.size() > static_cast<size_t>(kMaxAxes))
    throw std::invalid_argument("grid has too many axes");
  v.axes = static_cast<int>(radix.size());
  for (size_t i = 0; i < radix.size(); ++i) v.radix[i] = radix[i];
  if (g.has_stops()) {
    std::vector<double> values;
    int i = 0;
    for (const std::vector<double>* axis : {&g.stop_loss, &g.take_profit, &g.trailing_stop}) {
      const std::vector<double> off{0.0};  // a stop not given is the size-1 axis {0}
      const std::vector<double>& a = axis->empty() ? off : *axis;
      values.insert(values.end(), a.begin(), a.end());
      t.stops.radix[i++] = a.size();
    }
    t.stop_values.upload(values);
    t.stops.values = t.stop_values.data();
  }
  auto row = [&](RowKind k, int p, Source s) { return ind.row_of.at({k, p, s}); };
  std::vector<int> a_row, b_row;
  if (g.family == Family::ma_cross) {
    for (MaType m : g.ma)
      for (int p : g.fast) a_row.push_back(row(row_kind_of(m), p, Source::close));
    for (MaType m : g.ma)
      for (int p : g.slow) b_row.push_back(row(row_kind_of(m), p, Source::close));
    t.a_value.upload(g.fast);
    t.b_value.upload(g.slow);
  } else if (g.family == Family::bollinger || g.family == Family::rsi_reversion) {
    const bool bands = g.family == Family::bollinger;
    for (int p : g.n) {
      a_row.push_back(row(bands ? RowKind::sma : RowKind::rsi, p, Source::close));
      b_row.push_back(row(bands ? RowKind::vol : RowKind::rsi, p, Source::close));
    }
    t.a_value.upload(g.n);
    t.b_value.upload(g.n);
    if (bands) {
      std::vector<int> fade;
      for (Style s : g.style) fade.push_back(s == Style::reversion ? 1 : 0);
      t.k_value.upload(g.k);
      t.fade.upload(fade);
    } else {
      t.lo_value.upload(g.lo);
      t.hi_value.upload(g.hi);
    }
  } else {
    for (Source s : g.source)
      for (int p : g.n) {
        a_row.push_back(row(RowKind::upper, p, s));
        b_row.push_back(row(RowKind::lower, p, s));
      }
    t.a_value.upload(g.n);
    t.b_value.upload(g.n);
  }
  t.a_row.upload(a_row);
  t.b_row.upload(b_row);
  std::vector<double> short_value;
  for (Side s : g.side) short_value.push_back(s == Side::long_short ? -1.0 : 0.0);
  t.short_value.upload(short_value);
  std::vector<int> cross;
  for (Entry e : g.entry) cross.push_back(e == Entry::cross ? 1 : 0);
  t.cross.upload(cross);
  if (g.has_vol_filter()) {
    std::vector<int> vs_row, vl_row;
    for (int p : g.vol_short) vs_row.push_back(row(RowKind::vol, p, Source::close));
    for (int p : g.vol_long) vl_row.push_back(row(RowKind::vol, p, Source::close));
    t.vs_value.upload(g.vol_short);
    t.vl_value.upload(g.vol_long);
    t.vs_row.upload(vs_row);
    t.vl_row.upload(vl_row);
    t.threshold.upload(g.vol_threshold);
  }
  t.first_defined.upload(ind.first_defined);
  v.a_value = t.a_value.data();
  v.b_value = t.b_value.data();
  v.a_row = t.a_row.data();
  v.b_row = t.b_row.data();
  v.short_value = t.short_value.data();
  v.cross = t.cross.data();
  v.vs_value = t.vs_value.data();
  v.vl_value = t.vl_value.data();
  v.vs_row = t.vs_row.data();
  v.vl_row = t.vl_row.data();
  v.k_value = t.k_value.data();
  v.fade = t.fade.data();
  v.lo_value = t.lo_value.data();
  v.hi_value = t.hi_value.data();
  v.threshold = t.threshold.data();
  v.row_first_defined = t.first_defined.data();
  v.rows = ind.rows;
}

}  // namespace wfod::cuda
