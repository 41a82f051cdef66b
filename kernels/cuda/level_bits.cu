// The level families' decision-bit table (level_bits.cuh): one thread per (n index, bar)
// evaluates every band comparison of that bar with level_next_at's float64 operations.
#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "level_bits.cuh"
#include "sweep_device_memory.hpp"

namespace wfod::cuda {
namespace {

constexpr int kThreads = 256;

// The bits of values [0, count) of one comparison, 32 to a word, into rec[0], rec[1], ...
template <typename Bit>
__device__ void write_bits(uint32_t* rec, int count, Bit bit) {
  for (int base = 0; base < count; base += 32) {
    uint32_t word = 0;
    const int end = count - base < 32 ? count - base : 32;
    for (int j = 0; j < end; ++j) word |= static_cast<uint32_t>(bit(base + j)) << j;
    *rec++ = word;
  }
}

template <int Family>
__global__ void __launch_bounds__(kThreads)
    level_bits_kernel(GridTables g, const double* __restrict__ m, int rows,
                      const double* __restrict__ close, long long bars, int n_count, int up_count,
                      int down_count, int words, int up_words, uint32_t* __restrict__ out) {
  const long long gid = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (gid >= static_cast<long long>(n_count) * bars) return;
  const int ni = static_cast<int>(gid / bars);
  const long long t = gid % bars;
  const double* at = m + t * rows;
  uint32_t* rec = out + gid * words;
  double x, middle;
  if constexpr (Family == kBollinger) {
    x = close[t];
    middle = at[g.a_row[ni]];
    const double sd = at[g.b_row[ni]];
    // level_next_at's bands: k*STD rounded once, then added to / taken from the middle.
    write_bits(rec + 1, up_count, [&](int j) {
      return dev_db_greater(x, __dadd_rn(middle, __dmul_rn(g.k_value[j], sd)));
    });
    write_bits(rec + 1 + up_words, down_count, [&](int j) {
      return dev_db_greater(__dsub_rn(middle, __dmul_rn(g.k_value[j], sd)), x);
    });
  } else {
    x = at[g.a_row[ni]];
    middle = kRsiMiddle;
    write_bits(rec + 1, up_count, [&](int j) { return dev_db_greater(x, g.hi_value[j]); });
    write_bits(rec + 1 + up_words, down_count,
               [&](int j) { return dev_db_greater(g.lo_value[j], x); });
  }
  rec[0] = static_cast<uint32_t>(dev_db_greater(x, middle)) |
           static_cast<uint32_t>(dev_db_greater(middle, x)) << 1;
}

}  // namespace

void build_level_bits(const GridTables& g, const double* matrix, int rows, const double* close,
                      long long bars, DeviceLevelBits& out) {
  out.view = LevelBits{};
  if (!is_level_family(g.family) || bars <= 0) {
    out.bits = DeviceBuffer<uint32_t>{};
    return;
  }
  // bollinger: n, k, style, side; rsi_reversion: n, lo, hi, side (decode_combo's order).
  const int n_count = static_cast<int>(g.radix[0]);
  const int up_count = static_cast<int>(g.family == kBollinger ? g.radix[1] : g.radix[2]);
  const int down_count = static_cast<int>(g.radix[1]);
  const int up_words = (up_count + 31) / 32;
  const int words = 1 + up_words + (down_count + 31) / 32;
  const size_t count = static_cast<size_t>(
      level_bits_words(static_cast<uint64_t>(n_count), static_cast<uint64_t>(up_count),
                       static_cast<uint64_t>(down_count), static_cast<uint64_t>(bars)));
  // The buffer is reused in place when it fits.
  if (count * sizeof(uint32_t) > decision_table_cap(out.bits.size() * sizeof(uint32_t))) {
    out.bits = DeviceBuffer<uint32_t>{};
    return;
  }
  out.bits.resize(count);
  const long long threads = static_cast<long long>(n_count) * bars;
  const unsigned int blocks = static_cast<unsigned int>((threads + kThreads - 1) / kThreads);
  if (g.family == kBollinger)
    level_bits_kernel<kBollinger><<<blocks, kThreads>>>(g, matrix, rows, close, bars, n_count,
                                                        up_count, down_count, words, up_words,
                                                        out.bits.data());
  else
    level_bits_kernel<kRsi><<<blocks, kThreads>>>(g, matrix, rows, close, bars, n_count, up_count,
                                                  down_count, words, up_words, out.bits.data());
  WFOD_CUDA_CHECK_LAUNCH();
  out.view = LevelBits{out.bits.data(), bars, words, up_words};
}

}  // namespace wfod::cuda
