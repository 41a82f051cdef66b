// The bounded cuda stream (issue 43 item 10): it keeps only a tail of the bars and indicator
// values on the host (kernels/cuda/cuda_stream_impl.cuh) and still
//  - answers positions, returns, tracker, evaluate and block_summaries as cpu_ref does over the
//    whole history from the anchor (positions and returns exactly, metrics and Summaries to
//    SPEC §9's tolerance), on real data, after advancing through many windows;
//  - restores from its checkpoint into a stream whose every later advance and query is
//    bit-identical to the uninterrupted stream's (checkpoints mid-chunk, right at a chunk
//    boundary, after advances of many bars and after an open in batches; a restored stream
//    that advances checkpoints the live stream's bytes), refuses a foreign, corrupted or
//    version-1 blob, and writes a compact one (format 2: about 2 (W/C + 4) + 322 bytes a combo
//    beside the host tails);
//  - holds a flat host footprint (after 5 W bars about what it held after 2 W) while every
//    advance still equals a fresh sweep.
// Without a usable CUDA device every test skips, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/segments.hpp"

namespace wfod {
namespace {

std::unique_ptr<Backend> cuda_or_null(std::string* why) {
  try {
    return make_backend("cuda");
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

#define WFOD_CUDA_OR_SKIP(var)                             \
  std::string why_##var;                                   \
  std::unique_ptr<Backend> var = cuda_or_null(&why_##var); \
  if (!var) GTEST_SKIP() << "cuda backend not available here: " << why_##var

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

void expect_identical(const Metrics& got, const Metrics& want) {
  for (const test::IntField& f : test::kIntFields)
    EXPECT_EQ(got.*f.member, want.*f.member) << f.name;
  for (const test::RealField& f : test::kRealFields)
    EXPECT_TRUE(same_bits(got.*f.member, want.*f.member))
        << f.name << ": " << got.*f.member << " vs " << want.*f.member;
}

void expect_identical(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    EXPECT_TRUE(same_bits(got.top[i].objective, want.top[i].objective)) << "rank " << i;
    expect_identical(got.top[i].metrics, want.top[i].metrics);
  }
}

void expect_identical(const Summary& got, const Summary& want) {
  test::expect_same_summary_counts(got, want);
  const auto g = test::summary_reals(got), w = test::summary_reals(want);
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_TRUE(same_bits(g[i], w[i])) << "field " << i << ": " << g[i] << " vs " << w[i];
}

void expect_near(const Summary& got, const Summary& want) {
  test::expect_same_summary_counts(got, want);
  const auto g = test::summary_reals(got), w = test::summary_reals(want);
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_TRUE(test::near("summary field " + std::to_string(i), g[i], w[i], 1e-9, 1e-12));
}

SweepRequest request_of(const StreamSpec& spec, const Series& s, size_t end) {
  SweepRequest req;
  req.history = HistoryView::of(s).prefix(end);
  req.strategy = spec.strategy;
  req.window = {end, spec.window, spec.warmup};
  req.rank = spec.rank;
  req.threads = spec.threads;
  return req;
}

// The bundled GOOG daily file, and the shared real data beside the checkout where present.
std::vector<std::pair<std::string, Series>> real_series() {
  std::vector<std::pair<std::string, Series>> out;
  out.emplace_back("goog_d1",
                   test::load_csv(std::string(WFOD_REPO_DATA_DIR) + "/goog_d1_2004-2013.csv"));
  for (const auto& path : test::shared_csv_files()) {
    const std::string name = path.stem().string();
    if (name.rfind("eurusd_h1", 0) == 0 || name.rfind("nvda_d1", 0) == 0)
      out.emplace_back(name, test::load_csv(path));
  }
  return out;
}

// Grids the cuda stream runs: moving averages of every kind with both entries and sides and
// the vol filter, and both channel sources.
std::vector<std::pair<std::string, StreamSpec>> specs() {
  std::vector<std::pair<std::string, StreamSpec>> out;
  out.emplace_back("ma_next_open",
                   test::bounded_spec(test::small_ma_grid(), 250, Fill::next_open, 2, 16));
  out.emplace_back("channel_close",
                   test::bounded_spec(test::small_channel_grid(), 200, Fill::close, 1, 32));
  return out;
}

// Every query over the whole history ending at `end`: positions, returns and trackers exactly
// as the cuda backend's positions (and cpu_ref's), evaluate and block_summaries as cpu_ref's
// to SPEC §9's tolerance. The advance itself is held to the cuda backend's fresh sweep, as
// tests/parity/stream_parity_test.cpp does.
void check_queries(Backend& cuda, Backend& ref, const Stream& stream, const StreamSpec& spec,
                   const Series& s, size_t end) {
  const Grid& grid = spec.strategy.grid;
  const HistoryView h = HistoryView::of(s).prefix(end);
  const SweepRequest req = request_of(spec, s, end);
  ASSERT_EQ(stream.stats().bars, end);
  ASSERT_TRUE(stream.bounded());
  const size_t horizon = stream.horizon();
  ASSERT_LE(horizon, req.window.first()) << "the window lies after the horizon";
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  // positions, returns, tracker: exactly cpu_ref's.
  for (size_t k = 0; k < ids.size(); k += std::max<size_t>(1, ids.size() / 7)) {
    const Combo combo = grid.decode(ids[k]);
    SCOPED_TRACE("combo " + std::to_string(combo.id));
    // Exactly Backend::positions over the whole history (the stream's contract), and cpu_ref's.
    const std::vector<int8_t> want = cuda.positions(h, spec.strategy, combo);
    const std::vector<int8_t> got = stream.positions(combo, horizon, end);
    ASSERT_EQ(got, std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(horizon), want.end()));
    const std::vector<int8_t> oracle = ref.positions(h, spec.strategy, combo);
    EXPECT_EQ(got,
              std::vector<int8_t>(oracle.begin() + static_cast<ptrdiff_t>(horizon), oracle.end()));
    const size_t first = std::max<size_t>(horizon, 1);
    std::vector<double> want_returns;
    for_each_segment(h, spec.strategy.fill, spec.strategy.costs.per_unit(), want, first, end,
                     position_or_flat(want, first - 2), [&](size_t, const BarSegments& b) {
                       want_returns.push_back(b.exit_value + b.body_value);
                     });
    const std::vector<double> got_returns = stream.returns(combo, first, end);
    ASSERT_EQ(got_returns.size(), want_returns.size());
    for (size_t i = 0; i < got_returns.size(); ++i)
      ASSERT_TRUE(same_bits(got_returns[i], want_returns[i])) << "bar " << first + i;
    PositionTracker t = stream.tracker(combo, 30);
    ASSERT_EQ(t.bars(), end);
    ASSERT_EQ(t.positions(end - 30, end), std::vector<int8_t>(want.end() - 30, want.end()));
    if (end + 20 <= s.size()) {
      t.append(test::bars_of(s, end, end + 20));
      const std::vector<int8_t> later =
          cuda.positions(HistoryView::of(s).prefix(end + 20), spec.strategy, combo);
      EXPECT_EQ(t.positions(end, end + 20),
                std::vector<int8_t>(later.begin() + static_cast<ptrdiff_t>(end), later.end()));
    }
  }
  EXPECT_THROW(stream.positions(grid.decode(ids[0]), horizon > 0 ? horizon - 1 : end + 1, end),
               std::invalid_argument);
  // evaluate and block_summaries: cpu_ref's to SPEC §9's tolerance, counts exactly.
  const std::vector<Metrics> got = stream.evaluate(ids), want = ref.evaluate(req, ids);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(test::metrics_mismatch(got[i], want[i], 1e-9, 1e-12), "") << "id " << ids[i];
  const size_t first = req.window.first(), w = spec.window;
  const std::vector<size_t> cuts{first + w / 4, first + w / 2, first + w / 2 + 1, first + w - 3};
  const std::vector<Summary> gb = stream.block_summaries(cuts), wb = ref.block_summaries(req, cuts);
  ASSERT_EQ(gb.size(), wb.size());
  for (size_t i = 0; i < gb.size(); ++i) {
    SCOPED_TRACE("summary " + std::to_string(i));
    expect_near(gb[i], wb[i]);
  }
}

TEST(CudaStreamBounded, QueriesEqualCpuRefOnRealDataAfterManyWindows) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto ref = make_backend("cpu_ref");
  for (const auto& [data_name, s] : real_series()) {
    for (const auto& [spec_name, spec] : specs()) {
      SCOPED_TRACE(data_name + " " + spec_name);
      const size_t need = spec.warmup + spec.window + 1;
      ASSERT_GT(s.size(), need + 6 * spec.window) << "several windows past the first";
      auto stream = cuda->open_stream(spec, HistoryView::of(s).prefix(need));
      std::mt19937_64 rng(7);
      size_t end = need, next_check = need + 2 * spec.window;
      while (end + 40 < s.size()) {
        const size_t k = std::uniform_int_distribution<size_t>(1, 37)(rng);
        const std::vector<Bar> batch = test::bars_of(s, end, end + k);
        const SweepResult r = stream->advance(batch);
        end += k;
        if (end >= next_check) {
          SCOPED_TRACE("end=" + std::to_string(end));
          test::expect_same_result(r, cuda->sweep(request_of(spec, s, end)));
          check_queries(*cuda, *ref, *stream, spec, s, end);
          if (::testing::Test::HasFatalFailure()) return;
          next_check = end + spec.window + 97;
        }
      }
    }
  }
}

TEST(CudaStreamBounded, RestoredStreamsContinueBitIdentically) {
  WFOD_CUDA_OR_SKIP(cuda);
  for (const auto& [spec_name, spec] : specs()) {
    SCOPED_TRACE(spec_name);
    const Series s = test::spike_series(4000, 51, {1800, 3100}, 2.6);
    const size_t need = spec.warmup + spec.window + 1;
    auto live = cuda->open_stream(spec, HistoryView::of(s).prefix(need));
    std::mt19937_64 rng(9);
    size_t end = need, checkpoints = 0, at_boundary = 0, mid_chunk = 0, chained = 0;
    const size_t chunk = live->stats().chunk;
    ASSERT_GE(chunk, 4u);
    std::unique_ptr<Stream> restored;
    while (end + 60 < s.size()) {
      // Now and then a checkpoint, restored into a second stream that then runs beside it; a
      // few right at a chunk boundary (the chunk just closed, the tail empty) and mid-chunk.
      const bool boundary = end % chunk == 0 && at_boundary < 4;
      const bool mid = end % chunk == chunk / 2 && mid_chunk < 4;
      if (std::uniform_int_distribution<int>(0, 9)(rng) == 0 || boundary || mid) {
        at_boundary += boundary;
        mid_chunk += mid;
        const std::vector<uint8_t> blob = live->checkpoint();
        restored = cuda->restore_stream(spec, blob);
        ++checkpoints;
        ASSERT_EQ(restored->stats().bars, end);
        ASSERT_EQ(restored->horizon(), live->horizon());
        ASSERT_EQ(restored->checkpoint(), blob) << "a restored stream checkpoints the same bytes";
      } else if (restored && std::uniform_int_distribution<int>(0, 6)(rng) == 0) {
        // A restored stream that has advanced holds what the live one holds (its roll starts
        // continue the blob's): the same bytes, and a restore of its own blob runs on.
        const std::vector<uint8_t> blob = restored->checkpoint();
        ASSERT_EQ(blob, live->checkpoint()) << "end=" << end;
        restored = cuda->restore_stream(spec, blob);
        ++chained;
      }
      const size_t k = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                           ? std::uniform_int_distribution<size_t>(2, 50)(rng)
                           : 1;
      const std::vector<Bar> batch = test::bars_of(s, end, end + k);
      const SweepResult want = live->advance(batch);
      end += k;
      if (!restored) continue;
      SCOPED_TRACE("end=" + std::to_string(end));
      expect_identical(restored->advance(batch), want);
      const Grid& grid = spec.strategy.grid;
      std::vector<uint64_t> ids;
      for (uint64_t id = 0; id < grid.size(); ++id)
        if (grid.decode(id).valid()) ids.push_back(id);
      const std::vector<Metrics> gm = restored->evaluate(ids), wm = live->evaluate(ids);
      for (size_t i = 0; i < gm.size(); ++i) expect_identical(gm[i], wm[i]);
      const size_t first = end - spec.window;
      const std::vector<size_t> cuts{first + 17, first + spec.window / 2};
      const std::vector<Summary> gb = restored->block_summaries(cuts),
                                 wb = live->block_summaries(cuts);
      ASSERT_EQ(gb.size(), wb.size());
      for (size_t i = 0; i < gb.size(); ++i) expect_identical(gb[i], wb[i]);
      const Combo combo = grid.decode(ids[end % ids.size()]);
      EXPECT_EQ(restored->positions(combo, live->horizon(), end),
                live->positions(combo, live->horizon(), end));
      const std::vector<double> gr = restored->returns(combo, first, end),
                                wr = live->returns(combo, first, end);
      ASSERT_EQ(gr.size(), wr.size());
      for (size_t i = 0; i < gr.size(); ++i) EXPECT_TRUE(same_bits(gr[i], wr[i]));
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GE(checkpoints, 5u);
    EXPECT_GE(at_boundary, 2u) << "checkpoints right at a chunk boundary";
    EXPECT_GE(mid_chunk, 2u) << "checkpoints mid-chunk";
    EXPECT_GE(chained, 2u) << "checkpoints of restored streams";
  }
}

// An advance of many bars rolls them in batches of 2,048: 4,000 bars from bar 1,000 start
// rolls at 1,000 and 3,048, mid-chunk (3,048 = 190 x 16 + 8), so the kept chunk holding bar
// 3,048 was combined from two pieces: the restore recombines it as the rolls cut it (the roll
// starts are in the blob), bit for bit.
TEST(CudaStreamBounded, RestoresChunksRolledInBatches) {
  WFOD_CUDA_OR_SKIP(cuda);
  const StreamSpec spec = test::bounded_spec(test::small_ma_grid(), 3000, Fill::next_open, 2, 16);
  const Series s = test::spike_series(5600, 54, {2100, 4300}, 2.6);
  auto live = cuda->open_stream(spec, HistoryView::of(s).prefix(1000));
  size_t end = 5000;
  (void)live->advance(test::bars_of(s, 1000, end));
  ASSERT_LT(live->horizon(), 3040u) << "the chunk cut at 3,048 is kept";
  const std::vector<uint8_t> blob = live->checkpoint();
  auto restored = cuda->restore_stream(spec, blob);
  ASSERT_EQ(restored->checkpoint(), blob);
  std::mt19937_64 rng(5);
  while (end + 40 < s.size()) {
    const size_t k = std::uniform_int_distribution<int>(0, 4)(rng) == 0
                         ? std::uniform_int_distribution<size_t>(2, 30)(rng)
                         : 1;
    const std::vector<Bar> batch = test::bars_of(s, end, end + k);
    const SweepResult want = live->advance(batch);
    end += k;
    SCOPED_TRACE("end=" + std::to_string(end));
    expect_identical(restored->advance(batch), want);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_EQ(restored->checkpoint(), live->checkpoint());
}

// Format 2 writes per combo id its state, tail and back Summaries and the start states of the
// kept chunks: two grids that differ only in their combo count (thresholds add no indicator
// rows) differ by at most 2 (W/C + 8) + 400 bytes a combo, and by at least the 322 bytes of
// state, tail and back. (Format 1 wrote (R + S + 2) Summaries of 160 bytes a combo.)
TEST(CudaStreamBounded, CheckpointsHoldAFewBytesPerCombo) {
  WFOD_CUDA_OR_SKIP(cuda);
  Grid more = test::small_ma_grid();
  more.vol_threshold = {0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.25};
  const StreamSpec small = test::bounded_spec(test::small_ma_grid(), 250, Fill::next_open, 2, 16);
  const StreamSpec large = test::bounded_spec(more, 250, Fill::next_open, 2, 16);
  const Series s = test::spike_series(2000, 55, {900}, 2.6);
  const size_t combos = large.strategy.grid.size() - small.strategy.grid.size();
  ASSERT_GT(combos, 100u);
  for (size_t end : {size_t{1504}, size_t{1512}, size_t{1519}}) {  // a boundary, mid-chunk
    SCOPED_TRACE("end=" + std::to_string(end));
    const size_t a = cuda->open_stream(small, HistoryView::of(s).prefix(end))->checkpoint().size();
    const size_t b = cuda->open_stream(large, HistoryView::of(s).prefix(end))->checkpoint().size();
    ASSERT_GT(b, a);
    const double per_combo = static_cast<double>(b - a) / static_cast<double>(combos);
    std::printf("cuda checkpoint: %.1f bytes a combo at W = 250, C = 16 (end %zu)\n", per_combo,
                end);
    EXPECT_LE(per_combo, 2.0 * (250.0 / 16.0 + 8.0) + 400.0);
    EXPECT_GE(per_combo, 322.0);
  }
}

TEST(CudaStreamBounded, RefusesForeignAndCorruptedCheckpoints) {
  WFOD_CUDA_OR_SKIP(cuda);
  auto cpu = make_backend("cpu");
  const StreamSpec spec = specs()[0].second;
  const Series s = test::random_walk(1500, 52);
  auto stream = cuda->open_stream(spec, HistoryView::of(s));
  const std::vector<uint8_t> blob = stream->checkpoint();
  auto refusal = [&](Backend& b, const StreamSpec& sp, std::vector<uint8_t> bytes) {
    try {
      b.restore_stream(sp, bytes);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(restored)");
  };
  EXPECT_EQ(cuda->restore_stream(spec, blob)->stats().bars, s.size());
  std::vector<uint8_t> truncated(blob.begin(),
                                 blob.begin() + static_cast<ptrdiff_t>(blob.size() / 2));
  EXPECT_NE(refusal(*cuda, spec, truncated).find("checksum"), std::string::npos);
  std::vector<uint8_t> flipped = blob;
  flipped[flipped.size() / 3] ^= 0x10;
  EXPECT_NE(refusal(*cuda, spec, flipped).find("checksum"), std::string::npos);
  // Format 1 (the device caches raw) is refused by its version, before anything else is read.
  std::vector<uint8_t> v1 = blob;
  const uint32_t one = 1;
  std::memcpy(v1.data() + 8, &one, sizeof one);
  const std::string v1_refusal = refusal(*cuda, spec, v1);
  EXPECT_NE(v1_refusal.find("format version 1"), std::string::npos) << v1_refusal;
  EXPECT_NE(v1_refusal.find("reads version 2"), std::string::npos) << v1_refusal;
  StreamSpec other = spec;
  other.window += 1;
  EXPECT_NE(refusal(*cuda, other, blob).find("another stream spec"), std::string::npos);
  // A cpu stream's checkpoint is not a cuda stream's, and the other way round.
  const std::vector<uint8_t> cpu_blob = cpu->open_stream(spec, HistoryView::of(s))->checkpoint();
  EXPECT_NE(refusal(*cuda, spec, cpu_blob).find("not cuda's"), std::string::npos);
  EXPECT_NE(refusal(*cpu, spec, blob), "(restored)");
}

TEST(CudaStreamBounded, HostFootprintStaysFlatAndAdvancesEqualFreshSweeps) {
  WFOD_CUDA_OR_SKIP(cuda);
  constexpr size_t kWindow = 500, kBars = 40'000;
  const StreamSpec spec = test::bounded_spec(test::small_ma_grid(), kWindow, Fill::next_open);
  const Series s = test::spike_series(kBars, 53, {12'000, 31'000}, 2.6);
  const uint64_t device = cuda->stream_memory(spec).device_bytes;
  const uint64_t planned_host = cuda->stream_memory(spec).host_bytes;
  auto stream = cuda->open_stream(spec, HistoryView::of(s).prefix(0));
  std::mt19937_64 rng(17);
  size_t end = 0, at_2w = 0, most_after_5w = 0, checked = 0;
  const size_t need = spec.warmup + kWindow + 1;
  while (end < kBars) {
    const size_t k = std::min(kBars - end, std::uniform_int_distribution<size_t>(1, 120)(rng));
    const std::vector<Bar> batch = test::bars_of(s, end, end + k);
    end += k;
    if (end < need) {
      EXPECT_THROW(stream->advance(batch), std::invalid_argument);
      continue;
    }
    const SweepResult got = stream->advance(batch);
    const size_t host = stream->stats().footprint_bytes - device;
    if (at_2w == 0 && end >= 2 * kWindow + need) at_2w = host;
    if (end >= 5 * kWindow + need) most_after_5w = std::max(most_after_5w, host);
    EXPECT_LE(host, planned_host) << "end=" << end << ": the size query's host bound holds";
    if (end % 4001 < k) {  // every ~4k bars: a fresh sweep on the whole history
      SCOPED_TRACE("end=" + std::to_string(end));
      test::expect_same_result(got, cuda->sweep(request_of(spec, s, end)));
      ++checked;
    }
  }
  EXPECT_GE(checked, 5u);
  ASSERT_GT(at_2w, 0u);
  std::printf("cuda stream host footprint: %zu bytes after 2 W, at most %zu after 5 W (%zu bars)\n",
              at_2w, most_after_5w, kBars);
  EXPECT_LE(static_cast<double>(most_after_5w), 1.10 * static_cast<double>(at_2w))
      << "host memory grows with the bars advanced through";
}

}  // namespace
}  // namespace wfod
