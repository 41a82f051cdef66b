// Stream indicator rows: creation from the grid, per-bar append, and the trailing storage.
#include "src/rolling_indicators.hpp"

#include <algorithm>
#include <cmath>

#include "src/worker_pool.hpp"
#include "wfod/indicators.hpp"
#include "wfod/support.hpp"

namespace wfod::detail {
namespace {

constexpr size_t kNever = static_cast<size_t>(-1) / 2;

RollingRow ma_row(MaType type, int n) {
  const size_t last = static_cast<size_t>(n) - 1;
  switch (type) {
    case MaType::sma:
      return {detail::SmaState(n), last, 0};
    case MaType::ema:
      return {detail::EmaState(n), last, 0};
    case MaType::wma:
      return {detail::WmaState(n), last, 0};
    case MaType::hma: {
      const int half = n / 2, root = detail::isqrt(n);
      const size_t first = half >= 1 && root >= 1 ? last + static_cast<size_t>(root) - 1 : kNever;
      return {detail::HmaState(n, half, root), first, 0};
    }
  }
  return {detail::SmaState(n), last, 0};
}

std::span<const double> input_of(const RollingRow& row, const HistoryView& h) {
  switch (row.input) {
    case RollingRow::Input::high:
      return h.high;
    case RollingRow::Input::low:
      return h.low;
    case RollingRow::Input::close:
      break;
  }
  return h.close;
}

// A state's own heap storage besides its fixed size (the HMA inner tail, a Donchian deque).
template <typename State>
size_t heap_bytes(const State& s) {
  if constexpr (requires { s.heap_bytes(); }) {
    return s.heap_bytes();
  } else {
    return 0;
  }
}

template <typename State>
size_t max_heap_bytes(const State& s) {
  if constexpr (requires { s.max_heap_bytes(); }) {
    return s.max_heap_bytes();
  } else {
    return 0;
  }
}

}  // namespace

RollingIndicators::RollingIndicators(const Grid& grid) {
  auto vol_row = [](int p) {
    return RollingRow{detail::VolState(p, kDeadBand), static_cast<size_t>(p) - 1, 0};
  };
  switch (grid.family) {
    case Family::ma_cross:
      for (MaType type : grid.ma) {
        for (int p : grid.fast) mas_.try_emplace({type, p}, ma_row(type, p));
        for (int p : grid.slow) mas_.try_emplace({type, p}, ma_row(type, p));
      }
      break;
    case Family::channel_breakout:
      for (Source src : grid.source)
        for (int p : grid.n) {
          const size_t first = static_cast<size_t>(p);  // the previous p bars
          const bool hl = src == Source::high_low;
          uppers_.try_emplace({src, p},
                              RollingRow{detail::ExtremeState(p, true), first, 0,
                                         hl ? RollingRow::Input::high : RollingRow::Input::close});
          lowers_.try_emplace({src, p},
                              RollingRow{detail::ExtremeState(p, false), first, 0,
                                         hl ? RollingRow::Input::low : RollingRow::Input::close});
        }
      break;
    case Family::bollinger:  // M = SMA(n) and S = STD(n) with the zero rule: a vol row
      for (int p : grid.n) {
        mas_.try_emplace({MaType::sma, p}, ma_row(MaType::sma, p));
        vols_.try_emplace(p, vol_row(p));
      }
      break;
    case Family::rsi_reversion:  // defined from bar n, the first with n changes
      for (int p : grid.n)
        rsis_.try_emplace(p, RollingRow{detail::RsiState(p), static_cast<size_t>(p), 0});
      break;
    case Family::rules:  // no incremental stream runs rules yet (cpu_ref re-sweeps them)
      throw Unsupported("streams do not run rules strategies (SPEC §5a) yet");
  }
  for (int p : grid.vol_short) vols_.try_emplace(p, vol_row(p));
  for (int p : grid.vol_long) vols_.try_emplace(p, vol_row(p));
  auto index = [this](RollingRow& row) {
    row.index = rows_.size();
    rows_.push_back(&row);
  };
  for (auto& [key, row] : mas_) index(row);
  for (auto& [key, row] : uppers_) index(row);
  for (auto& [key, row] : lowers_) index(row);
  for (auto& [key, row] : vols_) index(row);
  for (auto& [key, row] : rsis_) index(row);
  lookback_ = static_cast<size_t>(std::max(grid.max_period(), 1)) + 1;
}

void RollingIndicators::reserve_for(size_t new_end) {
  if (new_end - base_ <= stride_) return;
  // Re-lay out: drop released bars, and at least double the room so appends amortise; within
  // a reserved span (reserve_span: its owner bounds what it keeps and appends) the span stays.
  const size_t new_base = std::max(base_, std::min(keep_from_, end_));
  const size_t need = new_end - new_base;
  relayout(need <= min_stride_ ? std::max(stride_, min_stride_)
                               : std::max<size_t>({64, 2 * need, stride_, min_stride_}));
}

void RollingIndicators::reserve_span(size_t bars) {
  min_stride_ = std::max(min_stride_, bars);
  if (stride_ < min_stride_) relayout(min_stride_);
}

// Rows of new_stride values from the first bar still stored (released ones are dropped). At
// the same stride the rows move down in place: no second matrix, not even for a moment.
void RollingIndicators::relayout(size_t new_stride) {
  const size_t new_base = std::max(base_, std::min(keep_from_, end_));
  const size_t kept = end_ - new_base;
  if (new_stride == stride_ && new_base != base_ && matrix_.size() == rows_.size() * stride_) {
    for (size_t r = 0; r < rows_.size(); ++r) {
      const auto row = matrix_.begin() + static_cast<ptrdiff_t>(r * stride_);
      const auto from = row + static_cast<ptrdiff_t>(new_base - base_);
      std::copy(from, from + static_cast<ptrdiff_t>(kept), row);  // forward: row < from
    }
    base_ = new_base;
    ++layout_version_;
    return;
  }
  std::vector<double> next(rows_.size() * new_stride);
  for (size_t r = 0; r < rows_.size(); ++r)
    std::copy_n(matrix_.begin() + static_cast<ptrdiff_t>(r * stride_ + (new_base - base_)), kept,
                next.begin() + static_cast<ptrdiff_t>(r * new_stride));
  matrix_ = std::move(next);
  stride_ = new_stride;
  base_ = new_base;
  ++layout_version_;
}

void RollingIndicators::append(const HistoryView& h, size_t bars_base) {
  const size_t new_end = bars_base + h.size();
  if (new_end <= end_) return;
  reserve_for(new_end);
  auto source_of = [&h](Source s, bool upper) {
    return s == Source::close ? h.close : (upper ? h.high : h.low);
  };
  auto fill = [&](RollingRow& row, std::span<const double> x) {
    double* out = matrix_.data() + row.index * stride_;
    for (size_t t = end_; t < new_end; ++t)
      out[t - base_] = std::visit(
          [&](auto& s) { return s.next(detail::SeriesTail(x.data(), bars_base, t + 1)); },
          row.state);
  };
  for (auto& [key, row] : mas_) fill(row, h.close);
  for (auto& [key, row] : uppers_) fill(row, source_of(key.first, true));
  for (auto& [key, row] : lowers_) fill(row, source_of(key.first, false));
  for (auto& [key, row] : vols_) fill(row, h.close);
  for (auto& [key, row] : rsis_) fill(row, h.close);
  end_ = new_end;
}

void RollingIndicators::append_columns(const HistoryView& h, double* out, int threads) {
  const size_t new_end = h.size(), rows = rows_.size();
  auto slice = [&](size_t r0, size_t r1) {
    for (size_t t = end_; t < new_end; ++t) {
      double* col = out + (t - end_) * rows;
      for (size_t r = r0; r < r1; ++r) {
        RollingRow& row = *rows_[r];
        const std::span<const double> x = input_of(row, h);
        col[r] = std::visit([&](auto& s) { return s.next(x.first(t + 1)); }, row.state);
      }
    }
  };
  const size_t parts = std::clamp<size_t>(static_cast<size_t>(threads), 1, rows / 512 + 1);
  wfod::detail::run_workers(static_cast<int>(parts), [&](int worker) {
    const size_t p = static_cast<size_t>(worker);
    slice(rows * p / parts, rows * (p + 1) / parts);
  });
  end_ = new_end;
}

void RollingIndicators::prepare_next(const HistoryView& h) {
  if (h.size() != end_) return;  // only ahead of the very next bar
  for (RollingRow* row : rows_) {
    const std::span<const double> x = input_of(*row, h).first(end_);
    std::visit([&](auto& s) { s.prepare(x); }, row->state);
  }
}

void RollingIndicators::seed_from(const RollingIndicators& from, size_t values_from) {
  auto take = [](auto& mine, const auto& theirs) {
    for (auto& [key, row] : mine) {
      const RollingRow& src = theirs.at(key);
      row.state = src.state;
      row.first_defined = src.first_defined;
    }
  };
  take(mas_, from.mas_);
  take(uppers_, from.uppers_);
  take(lowers_, from.lowers_);
  take(vols_, from.vols_);
  take(rsis_, from.rsis_);
  end_ = from.end_;
  base_ = keep_from_ = values_from;
  stride_ = std::max<size_t>(64, 2 * (end_ - base_));
  matrix_.assign(rows_.size() * stride_, 0.0);
  auto values = [&](auto& mine, const auto& theirs) {
    for (auto& [key, row] : mine) {
      const RollingRow& src = theirs.at(key);
      for (size_t t = base_; t < end_; ++t)
        matrix_[row.index * stride_ + (t - base_)] = from.value(src.index, t);
    }
  };
  values(mas_, from.mas_);
  values(uppers_, from.uppers_);
  values(lowers_, from.lowers_);
  values(vols_, from.vols_);
  values(rsis_, from.rsis_);
  ++layout_version_;
}

size_t RollingIndicators::most_state_bytes() const {
  size_t states = 0;
  for (const RollingRow* row : rows_)
    states += sizeof(RollingRow) +
              std::visit([](const auto& s) { return max_heap_bytes(s); }, row->state);
  return states;
}

size_t RollingIndicators::footprint_bytes() const {
  size_t states = 0;
  for (const RollingRow* row : rows_)
    states +=
        sizeof(RollingRow) + std::visit([](const auto& s) { return heap_bytes(s); }, row->state);
  return matrix_.capacity() * sizeof(double) + states;
}

}  // namespace wfod::detail
