// Stream checkpoint benchmark (issue 43 item 6, docs/operations.md "Stop budget"): what a
// stream's checkpoint costs at a daemon's stop (cpu by default; `cuda` on a GPU machine). Opens an
// ma_cross stream of about `combos` (6,400 per vol threshold) at window W, feeds `live` bars one at
// a time (as a live daemon does, so chunks complete across advances), then times each step of a
// stop: Stream::checkpoint() (serialise), CheckpointStore::save (frame + CRC, write, fsync,
// rename), and the restore (CheckpointStore::load + Backend::restore_stream), and checks
// that the restored stream's next advance equals the uninterrupted stream's to the bit.
//   checkpoint_bench [combos=20000] [window=20000] [live=600] [dir=/tmp/wfod_ckpt_bench]
//                    [backend=cpu]
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_series.hpp"
#include "wfod/backend.hpp"
#include "wfod/daemon/store/checkpoint_store.hpp"

using namespace wfod;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Bar bar_at(const Series& s, size_t t) {
  return Bar{s.ts_ns[t], s.open[t], s.high[t], s.low[t], s.close[t], 1000, 0};
}

bool same(const SweepResult& a, const SweepResult& b) {
  if (a.top.size() != b.top.size()) return false;
  for (size_t i = 0; i < a.top.size(); ++i)
    if (a.top[i].combo.id != b.top[i].combo.id ||
        std::bit_cast<uint64_t>(a.top[i].objective) != std::bit_cast<uint64_t>(b.top[i].objective))
      return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t combos = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20'000;
  const size_t window = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20'000;
  const size_t live = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 600;
  const std::string dir = argc > 4 ? argv[4] : "/tmp/wfod_ckpt_bench";
  const std::string backend_name = argc > 5 ? argv[5] : "cpu";

  StreamSpec spec;
  Grid& g = spec.strategy.grid;
  // Combos from the axes that add no indicator rows (the vol threshold), as in a large
  // production grid: the checkpoint is then the combos' state, not the indicator values.
  // 10 fast x 10 slow x 4 MAs x 2 sides x 2 entries x 2 x 2 vol lengths = 6,400 per threshold.
  g.fast = bench::range(2, 11);
  g.slow = bench::range(20, 29);
  g.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  g.side = {Side::long_short, Side::long_only};
  g.entry = {Entry::state, Entry::cross};
  g.vol_short = {5, 10};
  g.vol_long = {50, 100};
  for (size_t k = 0; k < std::max<size_t>(1, combos / 6400); ++k)
    g.vol_threshold.push_back(0.5 + 0.05 * static_cast<double>(k));
  spec.window = window;
  spec.warmup = default_warmup(g);
  const size_t opened = spec.warmup + spec.window + 1 + 64;
  const Series all = bench::random_walk(opened + live + 1, 7, bench::kMinuteWalk);

  auto backend = make_backend(backend_name);
  auto t0 = std::chrono::steady_clock::now();
  auto stream = backend->open_stream(spec, HistoryView::of(all).prefix(opened));
  stream->advance({});
  const double open_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  for (size_t t = opened; t < opened + live; ++t) {
    const Bar b = bar_at(all, t);
    stream->advance(std::span<const Bar>(&b, 1));
  }
  const double live_s = seconds_since(t0);
  const StreamStats st = stream->stats();

  t0 = std::chrono::steady_clock::now();
  std::vector<uint8_t> blob = stream->checkpoint();
  const double serialise_s = seconds_since(t0);
  const size_t blob_bytes = blob.size();

  std::filesystem::remove_all(dir);
  auto store = daemon::CheckpointStore::open(dir);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 2;
  }
  const daemon::Checkpoint c{1, st.bars, all.ts_ns[st.bars - 1], std::move(blob)};
  t0 = std::chrono::steady_clock::now();
  const std::vector<uint8_t> framed = daemon::CheckpointStore::encode(c);
  const double encode_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  if (auto s = store.value().save("SYM", "strat", c); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return 2;
  }
  const double save_s = seconds_since(t0);

  ::sync();
  t0 = std::chrono::steady_clock::now();
  auto loaded = store.value().load("SYM", "strat");
  const double load_s = seconds_since(t0);
  if (!loaded.ok() || !loaded.value()) return 2;
  t0 = std::chrono::steady_clock::now();
  auto restored = backend->restore_stream(spec, loaded.value()->blob);
  const double restore_s = seconds_since(t0);

  const Bar next = bar_at(all, opened + live);
  const bool equal = same(restored->advance(std::span<const Bar>(&next, 1)),
                          stream->advance(std::span<const Bar>(&next, 1)));

  std::printf("# checkpoint_bench %s ma_cross, %zu combos, W=%zu, chunk %zu, %zu live bars\n",
              backend_name.c_str(), static_cast<size_t>(g.size()), window, st.chunk, live);
  std::printf(
      "| combos | footprint MB | open s | live advance ms | checkpoint MB | bytes/combo | "
      "serialise s | frame+CRC s | save s (write, fsync) | stop s | load s | restore s | "
      "restored == uninterrupted |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::printf(
      "| %zu | %.1f | %.2f | %.2f | %.1f | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n",
      static_cast<size_t>(g.size()), static_cast<double>(st.footprint_bytes) / 1e6, open_s,
      live_s * 1e3 / static_cast<double>(live ? live : 1), static_cast<double>(blob_bytes) / 1e6,
      static_cast<double>(blob_bytes) / static_cast<double>(g.size()), serialise_s, encode_s,
      save_s, serialise_s + save_s, load_s, restore_s, equal ? "yes" : "NO");
  (void)framed;
  std::filesystem::remove_all(dir);
  return equal ? 0 : 1;
}
