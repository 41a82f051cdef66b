// Summary's fields listed once, for code that stores or copies a Summary field by field:
// the CUDA stream's field-major columns (kernels/cuda/stream_kernels.cu) and the cpu
// stream's checkpoint records (kernels/cpu/cpu_stream_checkpoint.cpp). Three lists by
// storage type: the counts (int64_t), the real sums (double) and the one-byte run flags (two
// booleans, two positions). A field added to Summary goes into one list here, and every
// user follows; the static_asserts catch a list that loses or gains a field unnoticed.
#pragma once

#include <cstdint>

#include "wfod/detail/hd.hpp"
#include "wfod/summary.hpp"

namespace wfod::detail {

// f(field) for each count of `s` (a Summary or a const Summary), in this order.
template <typename S, typename F>
WFOD_HD constexpr void for_each_summary_count(S& s, F&& f) {
  f(s.bars);
  f(s.closed_trades);
  f(s.closed_wins);
  f(s.long_bars);
  f(s.short_bars);
  f(s.changes);
}

// f(field) for each real of `s`, in declaration order.
template <typename S, typename F>
WFOD_HD constexpr void for_each_summary_real(S& s, F&& f) {
  f(s.sum);
  f(s.sum_sq);
  f(s.down_sq);
  f(s.growth);
  f(s.peak);
  f(s.trough);
  f(s.drawdown);
  f(s.head_ret);
  f(s.tail_ret);
  f(s.head_abs);
  f(s.tail_abs);
  f(s.closed_win_sum);
  f(s.closed_loss_sum);
}

// f(field) for each one-byte flag of `s`: nonpositive, single_run (bool), head_pos,
// tail_pos (int8_t).
template <typename S, typename F>
WFOD_HD constexpr void for_each_summary_flag(S& s, F&& f) {
  f(s.nonpositive);
  f(s.single_run);
  f(s.head_pos);
  f(s.tail_pos);
}

template <typename Each>
constexpr int summary_list_size(Each each) {
  Summary s;
  int n = 0;
  each(s, [&n](auto&) { ++n; });
  return n;
}

inline constexpr int kSummaryCounts =
    summary_list_size([](Summary& s, auto&& f) { for_each_summary_count(s, f); });
inline constexpr int kSummaryReals =
    summary_list_size([](Summary& s, auto&& f) { for_each_summary_real(s, f); });
inline constexpr int kSummaryFlags =
    summary_list_size([](Summary& s, auto&& f) { for_each_summary_flag(s, f); });

// Every field is in a list: the listed bytes fill the struct but for the flags' padding
// (a field of 8 bytes or more missing from the lists, or added to Summary and not to them,
// fails here).
static_assert(kSummaryFlags <= 8 && sizeof(Summary) == 8 * (kSummaryCounts + kSummaryReals + 1),
              "a Summary field is missing from the lists in summary_fields.hpp");

}  // namespace wfod::detail
