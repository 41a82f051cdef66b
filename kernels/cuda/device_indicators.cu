// Device indicator kernels. Sliding sums use the host's compensated arithmetic and re-anchor
// on the same 256-bar blocks, each block one thread, so rows match the CPU backend's to a
// few ulps; EMA, STD and RSI run one thread per row (their state is sequential); Donchian
// bounds are direct windowed extremes, exact.
#include <cmath>
#include <limits>

#include "cuda_check.cuh"
#include "device_grid.cuh"  // float_cell
#include "device_indicators.cuh"
#include "src/compensated.hpp"
#include "src/sliding.hpp"
#include "sweep_device_memory.hpp"
#include "wfod/indicators.hpp"

namespace wfod::cuda {
namespace {

using detail::CompensatedSum;
constexpr int kThreads = 256;

// Where a row's values go: out[row_offset + t * t_stride].
struct RowOut {
  double* base;
  long long t_stride;
};

// One thread per (row j, re-anchor block b): SMA or WMA of in_j[0..len_j) where
// in_j = x + j * x_row_stride + start[j], len_j = bars - start[j]; value i lands at bar
// start[j] + i. Mirrors sma()/wma() in kernels/core/src/indicators.cpp.
template <bool Weighted>
__global__ void sliding_kernel(const double* __restrict__ x, long long x_row_stride,
                               const long long* __restrict__ start, long long bars,
                               const int* __restrict__ periods,
                               const long long* __restrict__ row_offset, int count,
                               long long blocks_per_row, RowOut out) {
  const long long gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int j = static_cast<int>(gid / blocks_per_row);
  const long long b = gid % blocks_per_row;
  if (j >= count) return;
  const long long p = periods[j];
  const double* in = x + j * x_row_stride + start[j];
  const long long len = bars - start[j];
  const long long t0 = p - 1 + b * kReanchorBars;
  if (p < 1 || t0 >= len) return;
  const long long t1 = t0 + kReanchorBars < len ? t0 + kReanchorBars : len;
  double* dst = out.base + row_offset[j];
  const double denom = Weighted ? static_cast<double>(p) * (p + 1.0) / 2.0 : static_cast<double>(p);
  CompensatedSum weighted, plain;
  for (long long k = 1; k <= p; ++k) {
    const double v = in[t0 - p + k];
    if (Weighted) weighted.add_product(static_cast<double>(k), v);
    plain.add(v);
  }
  dst[(start[j] + t0) * out.t_stride] = (Weighted ? weighted.value() : plain.value()) / denom;
  for (long long t = t0 + 1; t < t1; ++t) {
    if (Weighted) {
      weighted.add_product(static_cast<double>(p), in[t]);
      weighted.add(-plain.sum);
      weighted.add(-plain.comp);
    }
    plain.add(in[t]);
    plain.add(-in[t - p]);
    dst[(start[j] + t) * out.t_stride] = (Weighted ? weighted.value() : plain.value()) / denom;
  }
}

__global__ void ema_kernel(const double* __restrict__ x, long long bars, const int* periods,
                           const long long* row_offset, int count, RowOut out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const long long p = periods[j];
  if (p < 1 || bars < p) return;
  CompensatedSum seed;
  for (long long i = 0; i < p; ++i) seed.add(x[i]);
  detail::ExactEma e(static_cast<int>(p),
                     seed.value() / static_cast<double>(p));  // as ema() on the host
  double* dst = out.base + row_offset[j];
  dst[(p - 1) * out.t_stride] = e.value();
  for (long long t = p; t < bars; ++t) {
    dst[t * out.t_stride] = e.step(x[t]);
  }
}

// STD with the SPEC §4 zero rule (STD <= delta * SMA counts as 0), one thread per row:
// the same shifted-sum algorithm and re-anchor schedule as stdev() on the host, and the
// SMA of the same period with sma()'s block schedule, so values match the CPU backend's.
__global__ void vol_kernel(const double* __restrict__ x, long long bars, const int* periods,
                           const long long* row_offset, int count, RowOut out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const long long p = periods[j];
  double* dst = out.base + row_offset[j];
  detail::SlidingStd sd(x, p);
  detail::SlidingMean mean(x, p);
  for (long long t = p - 1; t < bars; ++t) {
    const double s = sd.at(t), m = mean.at(t);
    dst[t * out.t_stride] = s <= kDeadBand * m ? 0.0 : s;
  }
}

// Wilder's average a + (x - a) / n seeded with sum / n: ExactEma's double-double recursion
// (kernels/core/src/compensated.hpp, the host's own), seeded with the mean as a pair, so the
// rounded value is the exactly rounded average (SPEC §4 asks 1e-13 relative) after any
// number of steps.
__device__ inline detail::ExactEma wilder_average(long long n, double sum) {
  const double p = static_cast<double>(n);
  const double mean = sum / p;
  return detail::ExactEma::wilder(static_cast<int>(n), mean, fma(-mean, p, sum) / p);
}

// RSI = 100 G / (G + L), 50 where G + L is exactly 0 (SPEC §4; both are >= 0).
__device__ inline double rsi_of(double gain, double loss) {
  const double total = gain + loss;
  return total == 0.0 ? 50.0 : 100.0 * gain / total;
}

// RSI(n) (Wilder, SPEC §4), one thread per row: the means of the first n changes' gains and
// losses at bar n, then Wilder's recursion from bar n + 1 on.
__global__ void rsi_kernel(const double* __restrict__ x, long long bars, const int* periods,
                           const long long* row_offset, int count, RowOut out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const long long p = periods[j];
  if (p < 1 || bars <= p) return;
  CompensatedSum gains, losses;
  for (long long i = 1; i <= p; ++i) {
    const double d = x[i] - x[i - 1];
    gains.add(d > 0 ? d : 0.0);
    losses.add(d < 0 ? -d : 0.0);
  }
  detail::ExactEma g = wilder_average(p, gains.value()), l = wilder_average(p, losses.value());
  double* dst = out.base + row_offset[j];
  dst[p * out.t_stride] = rsi_of(g.value(), l.value());
  for (long long t = p + 1; t < bars; ++t) {
    const double d = x[t] - x[t - 1];
    const double up = g.step(d > 0 ? d : 0.0), down = l.step(d < 0 ? -d : 0.0);
    dst[t * out.t_stride] = rsi_of(up, down);
  }
}

// Donchian bounds of the previous n bars, one thread per (row, bar): exact extremes.
__global__ void channel_kernel(const double* __restrict__ x, long long bars, const int* periods,
                               const long long* row_offset, int count, bool upper, RowOut out) {
  const long long gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int j = static_cast<int>(gid / bars);
  const long long t = gid % bars;
  if (j >= count) return;
  const long long p = periods[j];
  if (t < p) return;
  double v = x[t - p];
  for (long long i = t - p + 1; i < t; ++i) v = upper ? fmax(v, x[i]) : fmin(v, x[i]);
  out.base[row_offset[j] + t * out.t_stride] = v;
}

// diff = 2 * WMA(n/2) - WMA(n), row-major scratch, from bar n-1 on.
__global__ void hma_diff_kernel(const double* half, const double* full, long long bars,
                                const long long* start, int count, double* diff) {
  const long long gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int j = static_cast<int>(gid / bars);
  const long long t = gid % bars;
  if (j >= count || t < start[j]) return;
  diff[j * bars + t] = 2.0 * half[j * bars + t] - full[j * bars + t];
}

// The float32 matrix in groups of bars (float_cell), from the float64 one ([t][rows]): a
// thread per float cell, padding cells 0.
__global__ void to_float_kernel(const double* __restrict__ in, float* __restrict__ out,
                                long long bars, int rows, long long cells) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= cells) return;
  const long long group = i / (static_cast<long long>(rows) * kFloatGroup);
  const int row = static_cast<int>(i / kFloatGroup % rows);
  const long long t = group * kFloatGroup + i % kFloatGroup;
  out[i] = t < bars ? static_cast<float>(in[t * rows + row]) : 0.0f;
}

int isqrt(int n) {
  int r = static_cast<int>(std::sqrt(static_cast<double>(n)));
  while (r > 0 && static_cast<long long>(r) * r > n) --r;
  while (static_cast<long long>(r + 1) * (r + 1) <= n) ++r;
  return r;
}

unsigned grid_for(long long threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

}  // namespace

RowKind row_kind_of(MaType m) {
  switch (m) {
    case MaType::sma:
      return RowKind::sma;
    case MaType::ema:
      return RowKind::ema;
    case MaType::wma:
      return RowKind::wma;
    case MaType::hma:
      return RowKind::hma;
  }
  return RowKind::sma;
}

void build_indicators(const DeviceHistory& h, size_t bars_u, const std::vector<RowKey>& keys,
                      DeviceIndicators& out) {
  const long long bars = static_cast<long long>(bars_u);
  out.row_of.clear();
  for (const auto& k : keys) out.row_of.emplace(k, 0);
  out.rows = static_cast<int>(out.row_of.size());
  out.first_defined.assign(out.row_of.size(), 0);
  const long long rows = out.rows;
  out.matrix.resize(static_cast<size_t>(bars * rows));
  // NaN everywhere first: undefined values stay NaN (SPEC §4).
  // All-ones bytes are a NaN double.
  WFOD_CUDA_CHECK(
      cudaMemset(out.matrix.data(), 0xFF, static_cast<size_t>(bars * rows) * sizeof(double)));
  RowOut to_matrix{out.matrix.data(), rows};

  // Group rows by kind; each group is one launch.
  std::map<RowKind, std::vector<std::pair<int, int>>> groups;  // kind -> (period, row)
  std::map<std::pair<RowKind, Source>, std::vector<std::pair<int, int>>> channels;
  int row = 0;
  for (auto& [key, index] : out.row_of) {
    index = row++;
    long long fd;
    const int p = key.period;
    switch (key.kind) {
      case RowKind::hma:
        fd = p / 2 >= 1 ? (p - 1) + (isqrt(p) - 1) : bars;
        break;
      case RowKind::upper:
      case RowKind::lower:
      case RowKind::rsi:  // RSI: the first bar with n changes
        fd = p;
        break;
      default:
        fd = p - 1;
        break;
    }
    out.first_defined[static_cast<size_t>(index)] = static_cast<int>(fd < bars ? fd : bars);
    if (key.kind == RowKind::upper || key.kind == RowKind::lower)
      channels[{key.kind, key.source}].push_back({p, index});
    else
      groups[key.kind].push_back({p, index});
  }

  auto upload_ints = [](const std::vector<std::pair<int, int>>& list, DeviceBuffer<int>& periods,
                        DeviceBuffer<long long>& offsets, long long offset_scale) {
    std::vector<int> p;
    std::vector<long long> o;
    for (auto [period, r] : list) {
      p.push_back(period);
      o.push_back(static_cast<long long>(r) * offset_scale);
    }
    periods.upload(p);
    offsets.upload(o);
  };
  const double* close = h.close.data();

  for (auto& [kind, list] : groups) {
    const int count = static_cast<int>(list.size());
    DeviceBuffer<int> periods;
    DeviceBuffer<long long> offsets;
    upload_ints(list, periods, offsets, 1);  // row r of the transposed matrix: offset r
    DeviceBuffer<long long> zero_start;
    zero_start.upload(std::vector<long long>(static_cast<size_t>(count), 0));
    const long long blocks_per_row = (bars + kReanchorBars - 1) / kReanchorBars;
    switch (kind) {
      case RowKind::sma:
      case RowKind::wma: {
        const long long threads = blocks_per_row * count;
        if (kind == RowKind::sma)
          sliding_kernel<false><<<grid_for(threads), kThreads>>>(close, 0, zero_start.data(), bars,
                                                                 periods.data(), offsets.data(),
                                                                 count, blocks_per_row, to_matrix);
        else
          sliding_kernel<true><<<grid_for(threads), kThreads>>>(close, 0, zero_start.data(), bars,
                                                                periods.data(), offsets.data(),
                                                                count, blocks_per_row, to_matrix);
        WFOD_CUDA_CHECK_LAUNCH();
        break;
      }
      case RowKind::ema:
        ema_kernel<<<grid_for(count), kThreads>>>(close, bars, periods.data(), offsets.data(),
                                                  count, to_matrix);
        WFOD_CUDA_CHECK_LAUNCH();
        break;
      case RowKind::vol:
        vol_kernel<<<grid_for(count), kThreads>>>(close, bars, periods.data(), offsets.data(),
                                                  count, to_matrix);
        WFOD_CUDA_CHECK_LAUNCH();
        break;
      case RowKind::rsi:
        rsi_kernel<<<grid_for(count), kThreads>>>(close, bars, periods.data(), offsets.data(),
                                                  count, to_matrix);
        WFOD_CUDA_CHECK_LAUNCH();
        break;
      case RowKind::hma: {
        // HMA(n) = WMA(floor(sqrt n)) of 2 WMA(n/2) - WMA(n): two WMA passes into row-major
        // scratch, the difference, then a WMA of the difference from bar n-1 on.
        std::vector<int> half_p, full_p, root_p;
        std::vector<long long> scratch_off, diff_start, out_off;
        std::vector<std::pair<int, int>> kept;
        for (auto [p, r] : list) {
          if (p / 2 < 1) continue;  // HMA(1) is undefined everywhere
          kept.push_back({p, r});
        }
        const int kc = static_cast<int>(kept.size());
        if (kc == 0) break;
        for (int i = 0; i < kc; ++i) {
          const int p = kept[static_cast<size_t>(i)].first;
          half_p.push_back(p / 2);
          full_p.push_back(p);
          root_p.push_back(isqrt(p));
          scratch_off.push_back(static_cast<long long>(i) * bars);
          diff_start.push_back(p - 1 < bars ? p - 1 : bars);
          out_off.push_back(kept[static_cast<size_t>(i)].second);
        }
        DeviceBuffer<int> d_half, d_full, d_root;
        DeviceBuffer<long long> d_scratch_off, d_diff_start, d_out_off, d_zero;
        d_half.upload(half_p);
        d_full.upload(full_p);
        d_root.upload(root_p);
        d_scratch_off.upload(scratch_off);
        d_diff_start.upload(diff_start);
        d_out_off.upload(out_off);
        d_zero.upload(std::vector<long long>(static_cast<size_t>(kc), 0));
        DeviceBuffer<double> w_half(static_cast<size_t>(kc * bars)),
            w_full(static_cast<size_t>(kc * bars)), diff(static_cast<size_t>(kc * bars));
        const RowOut to_half{w_half.data(), 1}, to_full{w_full.data(), 1};
        const long long threads = blocks_per_row * kc;
        sliding_kernel<true><<<grid_for(threads), kThreads>>>(close, 0, d_zero.data(), bars,
                                                              d_half.data(), d_scratch_off.data(),
                                                              kc, blocks_per_row, to_half);
        WFOD_CUDA_CHECK_LAUNCH();
        sliding_kernel<true><<<grid_for(threads), kThreads>>>(close, 0, d_zero.data(), bars,
                                                              d_full.data(), d_scratch_off.data(),
                                                              kc, blocks_per_row, to_full);
        WFOD_CUDA_CHECK_LAUNCH();
        hma_diff_kernel<<<grid_for(kc * bars), kThreads>>>(w_half.data(), w_full.data(), bars,
                                                           d_diff_start.data(), kc, diff.data());
        WFOD_CUDA_CHECK_LAUNCH();
        sliding_kernel<true><<<grid_for(threads), kThreads>>>(
            diff.data(), bars, d_diff_start.data(), bars, d_root.data(), d_out_off.data(), kc,
            blocks_per_row, to_matrix);
        WFOD_CUDA_CHECK_LAUNCH();
        WFOD_CUDA_CHECK(cudaDeviceSynchronize());  // scratch buffers are freed on scope exit
        break;
      }
      default:
        break;
    }
    WFOD_CUDA_CHECK(cudaDeviceSynchronize());
  }
  for (auto& [kind_source, list] : channels) {
    const auto [kind, source] = kind_source;
    const int count = static_cast<int>(list.size());
    DeviceBuffer<int> periods;
    DeviceBuffer<long long> offsets;
    upload_ints(list, periods, offsets, 1);
    const bool upper = kind == RowKind::upper;
    const double* x = source == Source::close ? close : (upper ? h.high.data() : h.low.data());
    channel_kernel<<<grid_for(bars * count), kThreads>>>(x, bars, periods.data(), offsets.data(),
                                                         count, upper, to_matrix);
    WFOD_CUDA_CHECK_LAUNCH();
    WFOD_CUDA_CHECK(cudaDeviceSynchronize());
  }
  const long long cells = static_cast<long long>(float_row_cells(
      static_cast<size_t>(bars), static_cast<size_t>(rows), static_cast<size_t>(kFloatGroup)));
  out.matrix32.resize(static_cast<size_t>(cells));
  to_float_kernel<<<grid_for(cells), kThreads>>>(out.matrix.data(), out.matrix32.data(), bars, rows,
                                                 cells);
  WFOD_CUDA_CHECK_LAUNCH();
}

}  // namespace wfod::cuda
