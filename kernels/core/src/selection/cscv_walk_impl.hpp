// Body of the fast CSCV kernels (cscv_walk.hpp), compiled once per instruction set: each
// cscv_walk_<isa>.cpp includes it inside its own namespace. Every loop runs over a chunk of
// participants laid out side by side (one array per field), so the compiler turns it into
// vector code; the folds are combine()'s operations in combine()'s order (bit-identical
// values), the screens those of cscv_screen.hpp. Expects: namespace
// wfod::selection::cscv::<isa> open; <algorithm>, <limits> and cscv_walk.hpp included.

// GCC's ivdep (no loop-carried dependence through the chunk's arrays) lets gcc vectorise the
// folds. Clang builds (the sanitizer and fuzz passes) skip the hint: clang has no ivdep, and
// its nearest hint would change how those builds vectorise, not what they compute.
#ifndef WFOD_IVDEP
#if defined(__clang__)
#define WFOD_IVDEP
#else
#define WFOD_IVDEP _Pragma("GCC ivdep")
#endif
#endif

// detail::hd_max, the drawdown combine's max (NaN in the second argument is dropped).
inline double fold_max(double a, double b) { return a < b ? b : a; }

// One walk_unit call, depth-first over the unit's subtree. Level c of a half holds the left
// fold of its first c blocks for the chunk's slots (level 1 is the block itself: no copy).
// A branch that fills a half ends at a leaf, whose two halves are folded from their last
// stored level through their remaining blocks in registers, in the same loop that screens
// them: one stored level per leaf.
template <Screen Sc, bool DD, bool Chk, bool Guard>
class Walker {
  static constexpr bool kMoments = Sc != Screen::total_return;
  static constexpr bool kGrowth = Sc == Screen::total_return || DD;
  enum DoubleField { kM0, kM1, kGrowthField, kPeak, kDrawdown, kDoubleFields };
  enum IntField { kTrades, kTail, kHeld, kIntFields };
  static constexpr int kMaxHalf = 10;  // S <= 20

  // A fold's fields for the chunk's slots (in scratch, or a block's own arrays).
  struct Fold {
    const double* d[kDoubleFields] = {};
    const int32_t* i[kIntFields] = {};
  };

 public:
  Walker(const WalkBlocks& blocks, const WalkRanking& rank, const WalkChunk& chunk,
         const WalkOut& out, WalkScratch& scratch)
      : b_(blocks), r_(rank), s0_(chunk.s0), len_(chunk.len), h_(blocks.S / 2), out_(out) {
    const size_t len = len_;
    const size_t levels = 2 * static_cast<size_t>(h_ + 1);
    if (scratch.d.size() < levels * kDoubleFields * len)
      scratch.d.resize(levels * kDoubleFields * len);
    if (Chk && scratch.i.size() < levels * kIntFields * len)
      scratch.i.resize(levels * kIntFields * len);
    d_ = scratch.d.data();
    i_ = scratch.i.data();
  }

  void run(const WalkUnit& u) {
    // The prefix: each half's blocks among 0..depth-1 folded in one pass (only the deepest
    // level is read below it).
    int a[kMaxHalf], b[kMaxHalf], na = 0, nb = 0;
    for (int c = 0; c < u.depth; ++c) {
      if ((u.a_mask >> c) & 1u) {
        a[na++] = c;
      } else {
        b[nb++] = c;
      }
    }
    prefix(0, a, na);
    prefix(1, b, nb);
    if (na == h_ || nb == h_) {       // the prefix fills a half: one leaf, the rest to the other
      int rest[2 * kMaxHalf], m = 0;  // blocks depth..S-1
      uint32_t a_mask = u.a_mask;
      for (int c = u.depth; c < b_.S; ++c) {
        rest[m++] = c;
        if (nb == h_) a_mask |= 1u << c;
      }
      if (nb == h_) {
        leaf(a_mask, na, rest, m, nb, nullptr, 0);
      } else {
        leaf(a_mask, na, nullptr, 0, nb, rest, m);
      }
      return;
    }
    descend(u.depth, na, nb, u.a_mask);
  }

 private:
  // Block c's arrays for the chunk.
  Fold block(int c) const {
    const size_t o = static_cast<size_t>(c) * b_.slots + s0_;
    Fold f;
    if constexpr (kMoments) {
      f.d[kM0] = b_.m0 + o;
      f.d[kM1] = b_.m1 + o;
    }
    if constexpr (kGrowth) f.d[kGrowthField] = b_.growth + o;
    if constexpr (DD) {
      f.d[kPeak] = b_.peak + o;
      f.d[kDrawdown] = b_.drawdown + o;
    }
    if constexpr (Chk) {
      f.i[kTrades] = b_.runs + o;
      f.i[kTail] = b_.tail + o;
      f.i[kHeld] = b_.held + o;
    }
    return f;
  }
  double* dlevel(int side, int level, int field) const {
    return d_ +
           ((static_cast<size_t>(side) * static_cast<size_t>(h_ + 1) + static_cast<size_t>(level)) *
                kDoubleFields +
            static_cast<size_t>(field)) *
               len_;
  }
  int32_t* ilevel(int side, int level, int field) const {
    return i_ +
           ((static_cast<size_t>(side) * static_cast<size_t>(h_ + 1) + static_cast<size_t>(level)) *
                kIntFields +
            static_cast<size_t>(field)) *
               len_;
  }

  // Blocks rest[0..M) for the chunk: their arrays, and the trough and head arrays their
  // joins read (with DD, with Chk). One entry at least, so that M = 0 declares no empty array.
  template <int M>
  struct Joined {
    static constexpr int kN = M > 0 ? M : 1;
    Fold blk[kN];
    const double* trough[kN] = {};
    const int32_t* head[kN] = {};
  };
  template <int M>
  Joined<M> joined(const int* rest) const {
    Joined<M> J;
    for (int j = 0; j < M; ++j) {
      J.blk[j] = block(rest[j]);
      const size_t o = static_cast<size_t>(rest[j]) * b_.slots + s0_;
      if constexpr (DD) J.trough[j] = b_.trough + o;
      if constexpr (Chk) J.head[j] = b_.head + o;
    }
    return J;
  }

  // Slot k of `base` folded through the M joined blocks, field group by field group:
  // combine()'s operations in combine()'s order (extend() does the same one block at a time).
  // Inlined into the vector loops that call them, slot by slot.
  struct Moments {
    double s, q;
  };
  template <int M>
  [[gnu::always_inline]] static Moments fold_moments(const Fold& base, const Joined<M>& J,
                                                     size_t k) {
    double s = base.d[kM0][k], q = base.d[kM1][k];
    for (int j = 0; j < M; ++j) {
      s += J.blk[j].d[kM0][k];
      q += J.blk[j].d[kM1][k];
    }
    return {s, q};
  }
  struct Growth {
    double g, peak, dd;  // peak and dd 0 without DD
  };
  template <int M>
  [[gnu::always_inline]] static Growth fold_growth(const Fold& base, const Joined<M>& J, size_t k) {
    double g = base.d[kGrowthField][k], peak = 0, dd = 0;
    if constexpr (DD) {
      peak = base.d[kPeak][k];
      dd = base.d[kDrawdown][k];
    }
    for (int j = 0; j < M; ++j) {
      const double gl = g;
      g = gl * J.blk[j].d[kGrowthField][k];
      if constexpr (DD) {
        const double pl = peak;
        peak = fold_max(pl, gl * J.blk[j].d[kPeak][k]);
        dd = fold_max(fold_max(dd, J.blk[j].d[kDrawdown][k]), 1.0 - gl * J.trough[j][k] / pl);
      }
    }
    return {g, peak, dd};
  }
  struct Checks {
    int32_t trades, held;
  };
  template <int M>
  [[gnu::always_inline]] static Checks fold_checks(const Fold& base, const Joined<M>& J, size_t k) {
    int32_t t = base.i[kTrades][k], tail = base.i[kTail][k], held = base.i[kHeld][k];
    for (int j = 0; j < M; ++j) {
      const int32_t hd = J.head[j][k];
      t += J.blk[j].i[kTrades][k] - ((tail == hd) & (hd != 0));
      tail = J.blk[j].i[kTail][k];
      held += J.blk[j].i[kHeld][k];
    }
    return {t, held};
  }

  // Level m of `side` = the left fold of blocks c[0..m).
  void prefix(int side, const int* c, int m) {
    if (m == 0) return;
    const Fold first = block(c[0]);
    switch (m - 1) {
#define WFOD_CSCV_PREFIX(M)                             \
  case M:                                               \
    level_[side][m] = fold_t<M>(first, c + 1, side, m); \
    return;
      WFOD_CSCV_PREFIX(0)
      WFOD_CSCV_PREFIX(1)
      WFOD_CSCV_PREFIX(2)
      WFOD_CSCV_PREFIX(3)
      WFOD_CSCV_PREFIX(4)
      WFOD_CSCV_PREFIX(5)
      WFOD_CSCV_PREFIX(6)
      WFOD_CSCV_PREFIX(7)
      WFOD_CSCV_PREFIX(8)
      WFOD_CSCV_PREFIX(9)
#undef WFOD_CSCV_PREFIX
      default:
        break;
    }
  }

  // `base` joined with blocks rest[0..M), into level `level` of `side` (base itself when M is
  // 0); combine()'s operations per field, as extend() and half_t().
  template <int M>
  Fold fold_t(const Fold& base, const int* rest, int side, int level) {
    if constexpr (M == 0) {
      return base;
    } else {
      const Joined<M> J = joined<M>(rest);
      Fold to;
      for (int f = 0; f < kDoubleFields; ++f) to.d[f] = dlevel(side, level, f);
      if constexpr (Chk)
        for (int f = 0; f < kIntFields; ++f) to.i[f] = ilevel(side, level, f);
      double* __restrict q0 = dlevel(side, level, kM0);
      double* __restrict q1 = dlevel(side, level, kM1);
      double* __restrict qg = dlevel(side, level, kGrowthField);
      double* __restrict qp = dlevel(side, level, kPeak);
      double* __restrict qd = dlevel(side, level, kDrawdown);
      int32_t* __restrict qt = Chk ? ilevel(side, level, kTrades) : nullptr;
      int32_t* __restrict qh = Chk ? ilevel(side, level, kHeld) : nullptr;
      const size_t n = len_;
      WFOD_IVDEP
      for (size_t k = 0; k < n; ++k) {
        if constexpr (kMoments) {
          const Moments m = fold_moments<M>(base, J, k);
          q0[k] = m.s;
          q1[k] = m.q;
        }
        if constexpr (kGrowth) {
          const Growth gr = fold_growth<M>(base, J, k);
          qg[k] = gr.g;
          if constexpr (DD) {
            qp[k] = gr.peak;
            qd[k] = gr.dd;
          }
        }
        if constexpr (Chk) {
          const Checks c = fold_checks<M>(base, J, k);
          qt[k] = c.trades;
          qh[k] = c.held;
        }
      }
      if constexpr (Chk) to.i[kTail] = J.blk[M - 1].i[kTail];  // the fold's tail: the last block's
      return to;
    }
  }

  // Level `count` + 1 of `side` = level `count` joined with block c (or block c itself).
  void extend(int side, int count, int c) {
    Fold& to = level_[side][count + 1];
    if (count == 0) {  // combine(identity, block) is the block
      to = block(c);
      return;
    }
    const Fold& from = level_[side][count];
    const Fold blk = block(c);
    const size_t n = len_;
    if constexpr (kMoments) {
      const double* __restrict p0 = from.d[kM0];
      const double* __restrict p1 = from.d[kM1];
      const double* __restrict c0 = blk.d[kM0];
      const double* __restrict c1 = blk.d[kM1];
      double* __restrict q0 = dlevel(side, count + 1, kM0);
      double* __restrict q1 = dlevel(side, count + 1, kM1);
      WFOD_IVDEP  // levels and blocks are distinct arrays
      for (size_t k = 0; k < n; ++k) {
        q0[k] = p0[k] + c0[k];
        q1[k] = p1[k] + c1[k];
      }
      to.d[kM0] = q0;
      to.d[kM1] = q1;
    }
    if constexpr (kGrowth) {
      const double* __restrict pg = from.d[kGrowthField];
      const double* __restrict cg = blk.d[kGrowthField];
      double* __restrict qg = dlevel(side, count + 1, kGrowthField);
      if constexpr (DD) {
        // combine_hd: peak, then the drawdown against the left part's peak, same order.
        const double* __restrict pp = from.d[kPeak];
        const double* __restrict pd = from.d[kDrawdown];
        const double* __restrict cp = blk.d[kPeak];
        const double* __restrict ct = b_.trough + static_cast<size_t>(c) * b_.slots + s0_;
        const double* __restrict cd = blk.d[kDrawdown];
        double* __restrict qp = dlevel(side, count + 1, kPeak);
        double* __restrict qd = dlevel(side, count + 1, kDrawdown);
        WFOD_IVDEP
        for (size_t k = 0; k < n; ++k) {
          const double g = pg[k], peak = pp[k];
          qg[k] = g * cg[k];
          qp[k] = fold_max(peak, g * cp[k]);
          qd[k] = fold_max(fold_max(pd[k], cd[k]), 1.0 - g * ct[k] / peak);
        }
        to.d[kPeak] = qp;
        to.d[kDrawdown] = qd;
      } else {
        WFOD_IVDEP
        for (size_t k = 0; k < n; ++k) qg[k] = pg[k] * cg[k];
      }
      to.d[kGrowthField] = qg;
    }
    if constexpr (Chk) {
      // Trades of a join: both sides' trades, less one where the run at the join continues
      // (same non-zero position on both sides): what combine's run bookkeeping counts.
      const int32_t* __restrict pt = from.i[kTrades];
      const int32_t* __restrict pl = from.i[kTail];
      const int32_t* __restrict ph = from.i[kHeld];
      const int32_t* __restrict cr = blk.i[kTrades];
      const int32_t* __restrict chd = b_.head + static_cast<size_t>(c) * b_.slots + s0_;
      const int32_t* __restrict ctl = blk.i[kTail];
      const int32_t* __restrict chl = blk.i[kHeld];
      int32_t* __restrict qt = ilevel(side, count + 1, kTrades);
      int32_t* __restrict qh = ilevel(side, count + 1, kHeld);
      WFOD_IVDEP
      for (size_t k = 0; k < n; ++k) {
        const int32_t merged = (pl[k] == chd[k]) & (chd[k] != 0);
        qt[k] = pt[k] + cr[k] - merged;
        qh[k] = ph[k] + chl[k];
      }
      to.i[kTrades] = qt;
      to.i[kTail] = ctl;  // the join's tail is the block's
      to.i[kHeld] = qh;
    }
  }

  void descend(int c, int na, int nb, uint32_t a_mask) {
    // Blocks c+1..S-1: up to S - 2 of them (a leaf takes at most kMaxHalf, but all are
    // listed before we know which half fills first).
    int rest[2 * kMaxHalf], m = 0;
    for (int r = c + 1; r < b_.S; ++r) rest[m++] = r;
    uint32_t rest_mask = 0;
    for (int j = 0; j < m; ++j) rest_mask |= 1u << rest[j];
    // Block c to half A: A full, or deeper.
    if (na + 1 == h_) {
      leaf(a_mask | (1u << c), na, &c, 1, nb, rest, m);
    } else {
      extend(0, na, c);
      descend(c + 1, na + 1, nb, a_mask | (1u << c));
    }
    // Block c to half B.
    if (nb + 1 == h_) {
      leaf(a_mask | rest_mask, na, rest, m, nb, &c, 1);
    } else {
      extend(1, nb, c);
      descend(c + 1, na, nb + 1, a_mask);
    }
  }

  // A leaf: half A is level na of A joined with blocks a[0..ma), likewise half B.
  void leaf(uint32_t a_mask, int na, const int* a, int ma, int nb, const int* b, int mb) {
    const size_t l = leaf_++;
    out_.a_masks[l] = a_mask;
    const size_t at = 2 * l * out_.stride + s0_;
    half(na, a, ma, 0, out_.y + at, out_.pass + at, out_.best[2 * l]);
    half(nb, b, mb, 1, out_.y + at + out_.stride, out_.pass + at + out_.stride,
         out_.best[2 * l + 1]);
  }

  void half(int count, const int* rest, int m, int side, float* y, uint8_t* pass,
            uint32_t& best) const {
    Fold base = count > 0 ? level_[side][count] : block(rest[0]);
    if (count == 0) {
      ++rest;
      --m;
    }
    switch (m) {
#define WFOD_CSCV_HALF(M) \
  case M:                 \
    return half_t<M>(base, rest, y, pass, best);
      WFOD_CSCV_HALF(0)
      WFOD_CSCV_HALF(1)
      WFOD_CSCV_HALF(2)
      WFOD_CSCV_HALF(3)
      WFOD_CSCV_HALF(4)
      WFOD_CSCV_HALF(5)
      WFOD_CSCV_HALF(6)
      WFOD_CSCV_HALF(7)
      WFOD_CSCV_HALF(8)
      WFOD_CSCV_HALF(9)
      WFOD_CSCV_HALF(10)
#undef WFOD_CSCV_HALF
      default:
        break;
    }
  }

  // The half's fold through M more blocks, its screens and pass flags, and its best key.
  template <int M>
  void half_t(const Fold& base, const int* rest, float* __restrict y, uint8_t* __restrict pass,
              uint32_t& best) const {
    const Joined<M> J = joined<M>(rest);
    const size_t n = len_;
    const double bars = r_.bars, annual = r_.annual;
    int bad = 0;
    uint32_t top = 0;
    WFOD_IVDEP
    for (size_t k = 0; k < n; ++k) {
      float yk = 0;
      if constexpr (kMoments) {
        const auto [s, q] = fold_moments<M>(base, J, k);
        if constexpr (Guard) {
          const MomentScreen ms = moment_screen(Sc, s, q, bars, annual);
          yk = ms.y;
          bad |= ms.ok ? 0 : 1;
        } else {
          yk = moment_screen_unguarded(Sc, s, q, bars, annual);
        }
      }
      double dd = 0;
      if constexpr (kGrowth) {
        const Growth gr = fold_growth<M>(base, J, k);
        dd = gr.dd;
        if constexpr (!kMoments) yk = static_cast<float>(gr.g - 1.0);  // exact, rounded
      }
      y[k] = yk;
      uint32_t key = screen_key(yk);
      if constexpr (Chk) {
        const Checks c = fold_checks<M>(base, J, k);
        bool ok = (c.trades >= r_.min_trades) & (c.held >= r_.min_held);
        if constexpr (DD) ok = ok & (dd <= r_.max_drawdown);
        pass[k] = static_cast<uint8_t>(ok);
        key &= 0u - static_cast<uint32_t>(ok);
      }
      top = std::max(top, key);
    }
    if constexpr (kMoments) {
      if (bad || !r_.screens) {  // rare: the exact objective, rounded to float; keys anew
        top = 0;
        for (size_t k = 0; k < n; ++k) {
          const auto [s, q] = fold_moments<M>(base, J, k);
          if (!r_.screens || (Guard && !moment_screen(Sc, s, q, bars, annual).ok))
            y[k] = static_cast<float>(exact_moment_objective(Sc, s, q, bars, annual));
          const uint32_t pass_mask = Chk ? 0u - static_cast<uint32_t>(pass[k]) : ~0u;
          top = std::max(top, screen_key(y[k]) & pass_mask);
        }
      }
    }
    best = top;
  }

  const WalkBlocks& b_;
  const WalkRanking& r_;
  size_t s0_, len_;
  int h_;
  const WalkOut& out_;
  double* d_ = nullptr;
  int32_t* i_ = nullptr;
  Fold level_[2][kMaxHalf + 1];
  size_t leaf_ = 0;
};

template <Screen Sc>
void walk_screen(const WalkBlocks& blocks, const WalkRanking& rank, const WalkUnit& u,
                 const WalkChunk& c, const WalkOut& out, WalkScratch& scratch) {
  // Total returns have no guard: one variant for them.
  constexpr bool kAlwaysGuard = Sc == Screen::total_return;
  if (rank.drawdown) {
    Walker<Sc, true, true, true>(blocks, rank, c, out, scratch).run(u);
  } else if (c.checked) {
    if (c.guarded || kAlwaysGuard) {
      Walker<Sc, false, true, true>(blocks, rank, c, out, scratch).run(u);
    } else {
      Walker<Sc, false, true, false>(blocks, rank, c, out, scratch).run(u);
    }
  } else if (c.guarded || kAlwaysGuard) {
    Walker<Sc, false, false, true>(blocks, rank, c, out, scratch).run(u);
  } else {
    Walker<Sc, false, false, false>(blocks, rank, c, out, scratch).run(u);
  }
}

inline void walk_unit(const WalkBlocks& blocks, const WalkRanking& rank, const WalkUnit& u,
                      const WalkChunk& c, const WalkOut& out, WalkScratch& scratch) {
  switch (rank.screen) {
    case Screen::sharpe:
      return walk_screen<Screen::sharpe>(blocks, rank, u, c, out, scratch);
    case Screen::sortino:
      return walk_screen<Screen::sortino>(blocks, rank, u, c, out, scratch);
    case Screen::total_return:
      return walk_screen<Screen::total_return>(blocks, rank, u, c, out, scratch);
  }
}

// Scans work in blocks of this many slots: flags and counts in vector code, then the rare
// slots that need a look, one by one.
inline constexpr size_t kScanBlock = 64;

inline void candidates(const float* __restrict y, const uint8_t* __restrict pass, size_t n,
                       float floor, std::vector<uint32_t>& out) {
  for (size_t k0 = 0; k0 < n; k0 += kScanBlock) {
    const size_t e = std::min(n, k0 + kScanBlock);
    int any = 0;
    for (size_t k = k0; k < e; ++k) any |= pass[k] & (y[k] >= floor ? 1 : 0);
    if (!any) continue;
    for (size_t k = k0; k < e; ++k)
      if (pass[k] && y[k] >= floor) out.push_back(static_cast<uint32_t>(k));
  }
}

inline ScreenCount count_screens(const float* __restrict y, size_t n, CountThresholds t,
                                 std::vector<uint32_t>& undecided) {
  constexpr float kMax = std::numeric_limits<float>::max();
  ScreenCount c;
  for (size_t k0 = 0; k0 < n; k0 += kScanBlock) {
    const size_t e = std::min(n, k0 + kScanBlock);
    int under = 0, nan = 0, open = 0;
    for (size_t k = k0; k < e; ++k) {
      const float v = y[k];
      const bool finite = std::fabs(v) <= kMax, is_nan = v != v;
      const bool lo = finite & (v <= t.under), hi = finite & (v >= t.above);
      under += lo;
      nan += is_nan;
      open += !(lo | hi | is_nan);
    }
    c.under += static_cast<uint64_t>(under);
    c.nan += static_cast<uint64_t>(nan);
    if (!open) continue;
    for (size_t k = k0; k < e; ++k) {
      const float v = y[k];
      const bool finite = std::fabs(v) <= kMax;
      if (v == v && !(finite && (v <= t.under || v >= t.above)))
        undecided.push_back(static_cast<uint32_t>(k));
    }
  }
  return c;
}

inline WalkKernels kernels(CpuIsa isa) { return {isa, walk_unit, candidates, count_screens}; }
