// The set-or-hold families' shared signal tables (signal_bits.cuh): one thread per (word,
// key) evaluates 32 bars of one pair's or one filter's comparisons with decide_at's float64
// operations.
#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "signal_bits.cuh"
#include "sweep_device_memory.hpp"

namespace wfod::cuda {
namespace {

constexpr int kThreads = 256;

// The grid's axis where the filter's three axes start (decode_combo's order).
int vol_axis_of(const GridTables& g) { return signal_vol_axis(g.family == kMaCross); }

template <int Family>
__global__ void __launch_bounds__(kThreads)
    pair_bits_kernel(GridTables g, const double* __restrict__ m, int rows,
                     const double* __restrict__ close, long long bars, long long keys,
                     long long words, uint32_t* __restrict__ out) {
  const long long gid = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (gid >= keys * words) return;
  const long long w = gid / keys, key = gid % keys;
  int ra, rb;
  if constexpr (Family == kMaCross) {
    const long long nf = static_cast<long long>(g.radix[0]),
                    ns = static_cast<long long>(g.radix[1]);
    const long long fi = key % nf, si = (key / nf) % ns, mi = key / (nf * ns);
    ra = g.a_row[mi * nf + fi];
    rb = g.b_row[mi * ns + si];
  } else {
    ra = g.a_row[key];  // channel_breakout: key = source * n values + n, a_row's own index
    rb = g.b_row[key];
  }
  const long long defined = max(g.row_first_defined[ra], g.row_first_defined[rb]);
  uint32_t up = 0, down = 0;
  for (int j = 0; j < 32; ++j) {
    const long long t = w * 32 + j;
    if (t >= bars) break;
    if (t < defined) continue;
    const double* at = m + t * rows;
    bool u, d;
    if constexpr (Family == kMaCross) {
      u = dev_db_greater(at[ra], at[rb]);
      d = dev_db_greater(at[rb], at[ra]);
    } else {
      const TrendSignals<bool> s = channel_signals(close[t], at[ra], at[rb]);
      u = s.up;
      d = s.down;
    }
    up |= static_cast<uint32_t>(u) << j;
    down |= static_cast<uint32_t>(d) << j;
  }
  out[gid * 2] = up;
  out[gid * 2 + 1] = down;
}

__global__ void __launch_bounds__(kThreads)
    gate_bits_kernel(GridTables g, int vol_axis, const double* __restrict__ m, int rows,
                     long long bars, long long keys, long long words, uint32_t* __restrict__ out) {
  const long long gid = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (gid >= keys * words) return;
  const long long w = gid / keys, key = gid % keys;
  const long long nvs = static_cast<long long>(g.radix[vol_axis]);
  const long long nvl = static_cast<long long>(g.radix[vol_axis + 1]);
  const int rs = g.vs_row[key % nvs], rl = g.vl_row[(key / nvs) % nvl];
  const double threshold = g.threshold[key / (nvs * nvl)];
  const long long defined = max(g.row_first_defined[rs], g.row_first_defined[rl]);
  uint32_t open = 0;
  for (int j = 0; j < 32; ++j) {
    const long long t = w * 32 + j;
    if (t >= bars) break;
    if (t < defined) continue;
    const double* at = m + t * rows;
    // decide_at's gate, to the operation.
    const double lv = at[rl];
    open |= static_cast<uint32_t>(lv != 0.0 && dev_db_greater(at[rs] / lv, threshold)) << j;
  }
  out[gid] = open;
}

unsigned int blocks_for(long long threads) {
  return static_cast<unsigned int>((threads + kThreads - 1) / kThreads);
}

}  // namespace

void build_signal_bits(const GridTables& g, unsigned long long min_sharing, const double* matrix,
                       int rows, const double* close, long long bars, DeviceSignalBits& out) {
  out.view = SignalBits{};
  // The tables' sizes from the query's arithmetic (sweep_device_memory.hpp): one rule for
  // the build and the size query of sweeps.
  const SignalBitsWords w = signal_bits_words(
      g.family == kMaCross, g.family == kMaCross || g.family == kChannel, g.radix, g.axes,
      g.has_vol != 0, vol_axis_of(g), min_sharing, bars > 0 ? static_cast<uint64_t>(bars) : 0);
  const long long pair_keys = static_cast<long long>(w.pair_keys);
  const long long gate_keys = static_cast<long long>(w.gate_keys);
  const long long words = (bars + 31) / 32;
  const size_t pair_count = static_cast<size_t>(w.pair);
  const size_t gate_count = static_cast<size_t>(w.gate);
  const size_t held = (out.pair.size() + out.gate.size()) * sizeof(uint32_t);
  if ((pair_count + gate_count) * sizeof(uint32_t) > decision_table_cap(held) ||
      pair_count + gate_count == 0) {
    out.pair = DeviceBuffer<uint32_t>{};
    out.gate = DeviceBuffer<uint32_t>{};
    return;
  }
  if (pair_count > 0) {
    out.pair.resize(pair_count);
    const long long threads = pair_keys * words;
    if (g.family == kMaCross)
      pair_bits_kernel<kMaCross><<<blocks_for(threads), kThreads>>>(
          g, matrix, rows, close, bars, pair_keys, words, out.pair.data());
    else
      pair_bits_kernel<kChannel><<<blocks_for(threads), kThreads>>>(
          g, matrix, rows, close, bars, pair_keys, words, out.pair.data());
    WFOD_CUDA_CHECK_LAUNCH();
    out.view.pair = out.pair.data();
    out.view.pair_keys = pair_keys;
  } else {
    out.pair = DeviceBuffer<uint32_t>{};
  }
  if (gate_count > 0) {
    out.gate.resize(gate_count);
    gate_bits_kernel<<<blocks_for(gate_keys * words), kThreads>>>(
        g, vol_axis_of(g), matrix, rows, bars, gate_keys, words, out.gate.data());
    WFOD_CUDA_CHECK_LAUNCH();
    out.view.gate = out.gate.data();
    out.view.gate_keys = gate_keys;
  } else {
    out.gate = DeviceBuffer<uint32_t>{};
  }
}

}  // namespace wfod::cuda
