// The indicator rows of a stream (SPEC §4), extended bar by bar: every row keeps its
// incremental state (src/indicator_state.hpp, the same code the batch rows run, so values
// are bit-identical to a fresh sweep's) and its values for a trailing range of bars only.
// Rows sit in one matrix read by the lane kernel as matrix[offset(row) + t], t absolute.
// The input bars may be a tail too (append(bars, base)): the states read back lookback()
// bars at most.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <variant>
#include <vector>

#include "src/indicator_state.hpp"
#include "wfod/bar.hpp"
#include "wfod/grid.hpp"

namespace wfod::detail {
class BlobWriter;
class BlobReader;
}  // namespace wfod::detail

namespace wfod::detail {

struct RollingRow {
  using State =
      std::variant<detail::SmaState, detail::EmaState, detail::WmaState, detail::HmaState,
                   detail::StdState, detail::ExtremeState, detail::VolState, detail::RsiState>;
  State state;
  size_t first_defined = 0;  // known from kind and period, before the bar arrives
  size_t index = 0;          // row number in the matrix
  enum class Input : uint8_t { close, high, low } input = Input::close;
};

class RollingIndicators {
 public:
  explicit RollingIndicators(const Grid& grid);

  // Computes every row for the bars of `h` not yet seen (h extends the previous history).
  void append(const HistoryView& h) { append(h, 0); }
  // The same from a tail of the history: bars[i] is bar base + i, and the tail must hold the
  // lookback() bars before bars() (base <= bars() - lookback(), or base 0).
  void append(const HistoryView& bars, size_t base);
  // Bars before the next one that a state may still read (the longest period, plus one).
  size_t lookback() const { return lookback_; }
  // For callers that keep the values elsewhere (the CUDA stream's device ring): computes
  // bars [bars(), h.size()) and writes them bar-major, out[(t - bars()) * row_count() + row],
  // without storing them here. Do not mix with append() on one instance. Rows are
  // independent, so `threads` > 1 splits them (worth it from a few thousand rows).
  void append_columns(const HistoryView& h, double* out, int threads = 1);
  // Does now what the next bar's update can do without that bar (the re-anchors of sliding
  // sums due at bar h.size()), so the next append is O(1) per row; `h` is the history so far
  // (h.size() == bars()). Values are unchanged.
  void prepare_next(const HistoryView& h);
  // Stores at least `bars` values per row from now on (a stream sizes its matrix once for
  // the most it can hold, so its memory does not creep up with the size of its advances).
  void reserve_span(size_t bars);
  // Bars before `bar` will not be read again; their storage may be reused.
  void release_before(size_t bar) { keep_from_ = bar > keep_from_ ? bar : keep_from_; }
  // First bar whose values are still stored (values of [stored_from(), bars()) are readable).
  size_t stored_from() const { return base_ > keep_from_ ? base_ : keep_from_; }

  const RollingRow& ma(MaType type, int period) const { return mas_.at({type, period}); }
  const RollingRow& upper(Source source, int n) const { return uppers_.at({source, n}); }
  const RollingRow& lower(Source source, int n) const { return lowers_.at({source, n}); }
  const RollingRow& vol(int period) const { return vols_.at(period); }
  const RollingRow& rsi(int period) const { return rsis_.at(period); }
  const double* matrix() const { return matrix_.data(); }
  int64_t offset(const RollingRow& row) const {
    return static_cast<int64_t>(row.index * stride_) - static_cast<int64_t>(base_);
  }
  // A row's bar-0 pointer, while nothing was released (else only a tail is stored: null).
  const double* data(const RollingRow& row) const {
    return base_ == 0 && !matrix_.empty() ? matrix_.data() + row.index * stride_ : nullptr;
  }

  size_t bars() const { return end_; }
  size_t row_count() const { return rows_.size(); }
  const RollingRow& row(size_t index) const { return *rows_[index]; }
  // Value of row `index` at bar t, for t in [released bars, bars()).
  double value(size_t index, size_t t) const { return matrix_[index * stride_ + (t - base_)]; }
  // Takes over the states of `from`'s rows that this instance has (same kind and period:
  // `from` is a stream's, this one a single combo's) and their values of bars
  // [values_from, from.bars()), values_from >= from.stored_from(): this instance then
  // continues from where `from` is.
  void seed_from(const RollingIndicators& from, size_t values_from);
  // Checkpoints (rolling_checkpoint.cpp): every row's state and its values of bars
  // [values_from, bars()) (values_from >= stored_from()); load() reads them back into an
  // instance built from the same grid that has seen no bar, validating every count against
  // `bars` and `values_from` (std::invalid_argument on a mismatch).
  void save(detail::BlobWriter& w, size_t values_from) const;
  void load(detail::BlobReader& r, size_t bars, size_t values_from);
  // Bumped whenever offsets change (the matrix was re-laid out): cached LaneInputs are stale.
  uint64_t layout_version() const { return layout_version_; }
  // The matrix and every state's own storage, in bytes.
  size_t footprint_bytes() const;
  // The most the states' part of footprint_bytes() reaches, whatever the bars (size queries).
  size_t most_state_bytes() const;

 private:
  void reserve_for(size_t new_end);
  void relayout(size_t new_stride);

  std::map<std::pair<MaType, int>, RollingRow> mas_;
  std::map<std::pair<Source, int>, RollingRow> uppers_, lowers_;
  std::map<int, RollingRow> vols_, rsis_;
  std::vector<RollingRow*> rows_;  // by index
  std::vector<double> matrix_;     // rows_.size() x stride_, bar t of row r at r*stride_ + t-base_
  size_t stride_ = 0, base_ = 0, end_ = 0, keep_from_ = 0;
  size_t min_stride_ = 0;  // reserve_span()
  size_t lookback_ = 1;
  uint64_t layout_version_ = 0;
};

// Distinct indicator series a sweep of `grid` computes: the rolling rows of a built-in family;
// for a rules grid (which RollingIndicators does not build) each used indicator once per value
// of its period's and width's axes, plus the vol filter's (stream_defaults.cpp; the size
// queries of the default backend and of the cuda backend's rules rows).
double series_rows(const Grid& grid);

}  // namespace wfod::detail
