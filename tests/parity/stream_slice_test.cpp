// The cpu stream extends long histories (an open, a large advance) in slices of whole chunks,
// cut at multiples of the slice from the anchor (kernels/cpu/cpu_stream.cpp, layout_of), so
// its state, and every result and checkpoint, do not depend on the slice: a stream of the
// layout's slice (W + 2C rounded up to whole chunks), of the 4,096 bars the slice was at least
// until issue 47, and of one chunk, advanced through the same batches (small ones and ones of
// thousands of bars), give the same results and the same checkpoint bytes to the bit. A
// checkpoint records no slice: one written by a stream of one slice restores into a stream of
// another and continues bit-identically to the stream never interrupted.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_stream_impl.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

bool slice_same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// Every field of every ranked combo, to the bit.
void expect_slice_identical(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    EXPECT_TRUE(slice_same_bits(got.top[i].objective, want.top[i].objective)) << "rank " << i;
    for (const test::IntField& f : test::kIntFields)
      EXPECT_EQ(got.top[i].metrics.*f.member, want.top[i].metrics.*f.member) << f.name;
    for (const test::RealField& f : test::kRealFields)
      EXPECT_TRUE(slice_same_bits(got.top[i].metrics.*f.member, want.top[i].metrics.*f.member))
          << f.name << " rank " << i;
  }
}

struct SliceCase {
  const char* name;
  StreamSpec spec;
  Series series;
  size_t chunk;  // the spec's, or the default's
};

constexpr size_t kSliceBars = 10'000, kSliceOpened = 4'500;
constexpr size_t kOldMinSlice = 4096;  // the slice's floor before issue 47

std::vector<SliceCase> slice_cases() {
  std::vector<SliceCase> out;
  out.push_back({"ma_all_kinds_next_open",
                 test::bounded_spec(test::small_ma_grid(), 200, Fill::next_open, 3, 16),
                 test::spike_series(kSliceBars, 51, {4'700, 8'100}, 2.6), 16});
  Grid stops = test::small_channel_grid();
  stops.stop_loss = {0, 0.01};
  stops.trailing_stop = {0.02};
  out.push_back({"channel_stops_close", test::bounded_spec(stops, 190, Fill::close, 1, 32),
                 test::spike_series(kSliceBars, 52, {6'100}, 2.6), 32});
  out.push_back({"rsi_next_open",
                 test::bounded_spec(test::small_rsi_grid(), 210, Fill::next_open, 1, 16),
                 test::random_walk(kSliceBars, 53), 16});
  // W = 300 takes the default chunk, 64 (default_stream_chunk): slice 448.
  out.push_back({"ma_default_chunk_close",
                 test::bounded_spec(test::small_ma_grid(), 300, Fill::close, 2, 0),
                 test::random_walk(kSliceBars, 54), 64});
  return out;
}

// Batch sizes: mostly 1..60 bars, now and then 700..3,000 (several slices of every stream
// here, and not whole chunks).
std::vector<size_t> slice_batches(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<size_t> out;
  for (size_t end = kSliceOpened; end < kSliceBars;) {
    size_t k = rng() % 8 == 0 ? std::uniform_int_distribution<size_t>(700, 3'000)(rng)
                              : std::uniform_int_distribution<size_t>(1, 60)(rng);
    k = std::min(k, kSliceBars - end);
    out.push_back(k);
    end += k;
  }
  return out;
}

TEST(StreamSlice, ResultsAndCheckpointsDoNotDependOnTheSlice) {
  for (const SliceCase& c : slice_cases()) {
    SCOPED_TRACE(c.name);
    const HistoryView opened = HistoryView::of(c.series).prefix(kSliceOpened);
    // The layout's slice first: the one the others are compared with.
    const size_t slices[] = {0, kOldMinSlice, c.chunk, 3 * c.chunk};
    std::vector<std::unique_ptr<cpu::CpuStream>> streams;
    for (size_t slice : slices)
      streams.push_back(std::make_unique<cpu::CpuStream>(c.spec, opened, slice));
    size_t end = kSliceOpened, large = 0;
    for (size_t k : slice_batches(61)) {
      const std::vector<Bar> bars = test::bars_of(c.series, end, end + k);
      end += k;
      large += k >= 700;
      SCOPED_TRACE("end=" + std::to_string(end));
      const SweepResult want = streams[0]->advance(bars);
      const std::vector<uint8_t> blob = streams[0]->checkpoint();
      for (size_t i = 1; i < streams.size(); ++i) {
        SCOPED_TRACE("slice " + std::to_string(slices[i]));
        expect_slice_identical(streams[i]->advance(bars), want);
        ASSERT_EQ(streams[i]->horizon(), streams[0]->horizon());
        ASSERT_EQ(streams[i]->checkpoint(), blob) << "the same state, the same bytes";
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GE(large, 2u);
  }
}

// Checkpoints restore across slices: `plain` (the old floor's slice) is never interrupted;
// `chain` goes through a checkpoint and a restore every second batch, each time into a stream
// of the next slice in turn (the layout's, the old floor's, one chunk; through the backend's
// restore_stream for the layout's), from its own checkpoint, so restores chain across slices.
TEST(StreamSlice, CheckpointsRestoreAcrossSlices) {
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  for (const SliceCase& c : slice_cases()) {
    SCOPED_TRACE(c.name);
    const HistoryView opened = HistoryView::of(c.series).prefix(kSliceOpened);
    auto plain = std::make_unique<cpu::CpuStream>(c.spec, opened, kOldMinSlice);
    std::unique_ptr<Stream> chain = std::make_unique<cpu::CpuStream>(c.spec, opened, 0);
    const size_t slices[] = {0, kOldMinSlice, c.chunk};
    size_t end = kSliceOpened, restores = 0, batch = 0;
    for (size_t k : slice_batches(62)) {
      const std::vector<Bar> bars = test::bars_of(c.series, end, end + k);
      end += k;
      SCOPED_TRACE("end=" + std::to_string(end));
      expect_slice_identical(chain->advance(bars), plain->advance(bars));
      if (++batch % 2 == 0) {
        const std::vector<uint8_t> blob = chain->checkpoint();
        ASSERT_EQ(blob, plain->checkpoint());
        const size_t slice = slices[restores++ % 3];
        if (slice == 0)
          chain = cpu->restore_stream(c.spec, blob);
        else
          chain = cpu::CpuStream::restore(c.spec, blob, slice);
        ASSERT_EQ(chain->horizon(), plain->horizon());
        const Combo combo = c.spec.strategy.grid.decode(0);
        if (combo.valid()) {
          EXPECT_EQ(chain->positions(combo, plain->horizon(), end),
                    plain->positions(combo, plain->horizon(), end));
        }
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GE(restores, 6u);
  }
}

// A slice must be whole chunks (cuts at chunk boundaries are what makes the state independent
// of it).
TEST(StreamSlice, ASliceOfPartChunksIsRefused) {
  const StreamSpec spec = test::bounded_spec(test::small_ma_grid(), 200, Fill::close, 1, 16);
  EXPECT_THROW(cpu::CpuStream(spec, HistoryView{}, 24), std::invalid_argument);
  EXPECT_NO_THROW(cpu::CpuStream(spec, HistoryView{}, 32));
}

}  // namespace
}  // namespace wfod
