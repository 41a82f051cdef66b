// The size query of sweeps (Backend::sweep_memory) against what the host backends actually
// hold: this binary counts every byte operator new hands out (its own replacement below), and
// each sweep's peak of live bytes above the bytes live before it is what the sweep held. The
// query must cover it (it is what wfo's run plan refuses by) and not overstate it by more
// than a stated factor: cpu's answer is the rule its tiles are cut by, cpu_ref's the series it
// caches within the budget. Its own executable: the replaced operator new applies to the
// whole program.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace {

std::atomic<int64_t> g_live{0}, g_peak{0};

void note(int64_t delta) {
  const int64_t now = g_live.fetch_add(delta) + delta;
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

// Each block carries its size in front of it, `header` bytes (a multiple of its alignment).
void* counted(size_t n, size_t align) {
  const size_t header = std::max<size_t>(align, 16);
  void* base = align > 16 ? std::aligned_alloc(align, (header + n + align - 1) / align * align)
                          : std::malloc(header + n);
  if (base == nullptr) throw std::bad_alloc();
  *static_cast<size_t*>(base) = n;
  note(static_cast<int64_t>(n));
  return static_cast<char*>(base) + header;
}

void released(void* p, size_t align) {
  if (p == nullptr) return;
  char* base = static_cast<char*>(p) - std::max<size_t>(align, 16);
  note(-static_cast<int64_t>(*reinterpret_cast<size_t*>(base)));
  std::free(base);
}

}  // namespace

void* operator new(size_t n) { return counted(n, 16); }
void* operator new[](size_t n) { return counted(n, 16); }
void* operator new(size_t n, std::align_val_t a) { return counted(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return counted(n, static_cast<size_t>(a)); }
void operator delete(void* p) noexcept { released(p, 16); }
void operator delete[](void* p) noexcept { released(p, 16); }
void operator delete(void* p, size_t) noexcept { released(p, 16); }
void operator delete[](void* p, size_t) noexcept { released(p, 16); }
void operator delete(void* p, std::align_val_t a) noexcept { released(p, static_cast<size_t>(a)); }
void operator delete[](void* p, std::align_val_t a) noexcept {
  released(p, static_cast<size_t>(a));
}
void operator delete(void* p, size_t, std::align_val_t a) noexcept {
  released(p, static_cast<size_t>(a));
}
void operator delete[](void* p, size_t, std::align_val_t a) noexcept {
  released(p, static_cast<size_t>(a));
}

namespace wfod {
namespace {

struct Case {
  const char* name;
  Grid grid;
  size_t bars;
};

std::vector<Case> cases() {
  Grid ma;
  ma.family = Family::ma_cross;
  ma.fast = parse_int_axis("2:60:2");
  ma.slow = parse_int_axis("20:300:10");
  ma.ma = {MaType::sma, MaType::ema, MaType::hma};
  ma.entry = {Entry::state, Entry::cross};
  Grid vol = ma;
  vol.ma = {MaType::wma};
  vol.vol_short = {3, 8, 30};
  vol.vol_long = {10, 25, 60};
  vol.vol_threshold = {0.8, 1.2};
  Grid channel;
  channel.family = Family::channel_breakout;
  channel.n = parse_int_axis("3:300:3");
  channel.source = {Source::close, Source::high_low};
  Grid bollinger;
  bollinger.family = Family::bollinger;
  bollinger.n = parse_int_axis("5:300:5");
  bollinger.k = {1.0, 1.5, 2.0, 2.5};
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = parse_int_axis("2:200:2");
  rsi.lo = {20, 30};
  rsi.hi = {70, 80};
  return {{"ma_cross", ma, 12000},
          {"ma_cross_vol", vol, 12000},
          {"channel", channel, 12000},
          {"bollinger", bollinger, 12000},
          {"rsi", rsi, 12000}};
}

// The peak of live bytes during fn() above those live before it.
template <typename Fn>
int64_t held_during(Fn&& fn) {
  const int64_t before = g_live.load();
  g_peak.store(before);
  fn();
  return g_peak.load() - before;
}

// The stated bound: the query covers what the sweep held, and is at most this many times it
// (plus a little for the small per-call parts: threads' ranking, progress, result).
constexpr double kMaxOverstatement = 1.25;
constexpr int64_t kSlack = int64_t{256} << 10;

TEST(SweepMemory, QueryCoversWhatTheHostBackendsHold) {
  for (const char* name : {"cpu", "cpu_ref"}) {
    auto backend = make_backend(name);
    bool warm = false;
    for (const Case& c : cases()) {
      const Series s = test::random_walk(c.bars, 77, 100, 0.01, 0.003);
      const size_t warmup = 3 * static_cast<size_t>(c.grid.max_period());
      for (size_t budget : {size_t{0}, size_t{8} << 20}) {
        SCOPED_TRACE(std::string(name) + " " + c.name + " budget " + std::to_string(budget));
        SweepRequest req;
        req.history = HistoryView::of(s);
        req.strategy.grid = c.grid;
        req.window = {s.size(), 3000, warmup};
        req.rank.top = 10;
        req.threads = 2;
        req.memory_budget = budget;
        if (!warm) backend->sweep(req);  // the parked threads and their first allocations
        warm = true;
        const SweepMemory query = backend->sweep_memory(req);
        const int64_t held = held_during([&] { backend->sweep(req); });
        const auto q = static_cast<int64_t>(query.host_bytes);
        std::printf("[ memory   ] %s %s budget %zu: held %.2f MiB, query %.2f MiB\n", name, c.name,
                    budget, static_cast<double>(held) / (1 << 20),
                    static_cast<double>(q) / (1 << 20));
        EXPECT_EQ(query.device_bytes, 0u);
        EXPECT_GE(q + kSlack, held) << "the query must cover what the sweep holds";
        EXPECT_LE(static_cast<double>(q), kMaxOverstatement * static_cast<double>(held) + kSlack)
            << "the query overstates the sweep";
      }
    }
  }
}

}  // namespace
}  // namespace wfod
