// The plateau stencil of one centre (docs/spec-10-selection.md §10.2), written once for host
// and device (WFOD_HD): the device kernel scores every centre with it, the host recomputes
// the winner's neighbour counts with it, and the CPU tests compare it with plateau_select.
// Same neighbourhood, same visiting order (odometer, first axis fastest), same arithmetic:
// the mean sums in visiting order; a quantile takes the order statistics by counting (no
// per-thread buffer: O(box^2), box = 27 for radius 1 on three numeric axes) and interpolates
// as plateau.cpp does. Host-includable: no CUDA API here.
#pragma once

#include <math.h>

#include <cstdint>

#include "wfod/detail/hd.hpp"

#if defined(__CUDACC__)
#define WFOD_PLATEAU_HD __host__ __device__ __forceinline__
#else
#define WFOD_PLATEAU_HD inline
#endif

namespace wfod::selection::stencil {

inline constexpr int kMaxAxes = 8;
// ComboState values (plateau.hpp), as bytes.
inline constexpr uint8_t kInvalid = 0, kUnranked = 1, kRanked = 2;

struct StencilGrid {
  int axes = 0;
  uint64_t size[kMaxAxes] = {};
  uint64_t stride[kMaxAxes] = {};
  uint64_t radius[kMaxAxes] = {};  // max(radius, 0)
  bool mean = true;
  double q = 0.25;
  double worst = 0;  // lowest objective of a ranked combo (NaN objectives aside)
};

struct CentreScore {
  double score = 0;
  uint64_t neighbours = 0;     // values in the statistic, the centre included
  uint64_t worst_counted = 0;  // of which stood in at `worst`
};

// Calls f(id) for every combo of the centre's box, in plateau.cpp's odometer order.
template <class F>
WFOD_PLATEAU_HD void for_box(const StencilGrid& g, const uint64_t* lo, const uint64_t* hi, F& f) {
  uint64_t k[kMaxAxes];
  uint64_t nb = 0;
  for (int a = 0; a < g.axes; ++a) {
    k[a] = lo[a];
    nb += lo[a] * g.stride[a];
  }
  for (;;) {
    f(nb);
    int a = 0;
    for (; a < g.axes; ++a) {
      if (k[a] < hi[a]) {
        ++k[a];
        nb += g.stride[a];
        break;
      }
      nb -= (k[a] - lo[a]) * g.stride[a];
      k[a] = lo[a];
    }
    if (a == g.axes) break;
  }
}

// The neighbour's value in the statistic, or false when it is left out (invalid).
WFOD_PLATEAU_HD bool neighbour_value(const StencilGrid& g, const double* objective,
                                     const uint8_t* state, uint64_t nb, double* v, bool* worst) {
  const uint8_t st = state[nb];
  if (st == kInvalid) return false;
  const double o = objective[nb];
  *worst = st == kUnranked || o != o;
  *v = *worst ? g.worst : o;
  return true;
}

// Score of a ranked centre with a non-NaN objective (callers check that).
WFOD_PLATEAU_HD CentreScore centre_score(const StencilGrid& g, uint64_t id, const double* objective,
                                         const uint8_t* state) {
  uint64_t lo[kMaxAxes], hi[kMaxAxes];
  uint64_t rest = id;
  for (int a = 0; a < g.axes; ++a) {
    const uint64_t x = rest % g.size[a];
    rest /= g.size[a];
    lo[a] = x >= g.radius[a] ? x - g.radius[a] : 0;
    hi[a] = x + g.radius[a] < g.size[a] - 1 ? x + g.radius[a] : g.size[a] - 1;
  }
  CentreScore out;
  double sum = 0;
  auto tally = [&](uint64_t nb) {
    double v;
    bool w;
    if (!neighbour_value(g, objective, state, nb, &v, &w)) return;
    ++out.neighbours;
    out.worst_counted += w ? 1 : 0;
    sum += v;
  };
  for_box(g, lo, hi, tally);
  const uint64_t m = out.neighbours;
  if (g.mean) {
    out.score = sum / static_cast<double>(m);
    return out;
  }
  // Type-7 quantile: the lo-th and (lo+1)-th smallest values, by counting.
  const double h = static_cast<double>(m - 1) * g.q;
  const uint64_t k0 = static_cast<uint64_t>(floor(h));
  const bool need_b = !(k0 + 1 >= m || h == static_cast<double>(k0));
  double a_val = 0, b_val = 0;
  bool a_found = false, b_found = false;
  auto pick = [&](uint64_t i_nb) {
    double x;
    bool wx;
    if ((a_found && (b_found || !need_b)) || !neighbour_value(g, objective, state, i_nb, &x, &wx))
      return;
    uint64_t less = 0, equal = 0;
    auto count = [&](uint64_t j_nb) {
      double y;
      bool wy;
      if (!neighbour_value(g, objective, state, j_nb, &y, &wy)) return;
      less += y < x ? 1 : 0;
      equal += y == x ? 1 : 0;
    };
    for_box(g, lo, hi, count);
    // x holds ranks [less, less + equal) of the sorted values.
    if (!a_found && less <= k0 && k0 < less + equal) {
      a_val = x;
      a_found = true;
    }
    if (need_b && !b_found && less <= k0 + 1 && k0 + 1 < less + equal) {
      b_val = x;
      b_found = true;
    }
  };
  for_box(g, lo, hi, pick);
  if (!need_b) {
    out.score = a_val;
  } else {
    out.score = b_val == a_val ? a_val : a_val + (h - static_cast<double>(k0)) * (b_val - a_val);
  }
  return out;
}

}  // namespace wfod::selection::stencil
