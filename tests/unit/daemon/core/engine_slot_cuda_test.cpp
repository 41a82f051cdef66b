// EngineSlot on the cuda backend, now that its streams are bounded (issue 43 item 10): the
// daemon keeps only a tail of the history for them, so a slot opens from the bar log when
// memory holds only a tail, answers positions from the stream, and writes a checkpoint that
// restores a stream whose runs are bit-identical. Skips without a usable CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "support/temp_dir.hpp"
#include "wfod/daemon/core/engine_slot.hpp"
#include "wfod/daemon/store/bar_store.hpp"

namespace wfod::daemon {
namespace {

SweepRequest cuda_request_for(const Series& s, size_t end) {
  return test::engine_slot_request(s, end);
}
Bar cuda_bar_of(const Series& s, size_t t) { return test::bar_at(s, t); }

std::unique_ptr<Backend> cuda_or_null(std::string* why) {
  try {
    return make_backend("cuda");
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

TEST(EngineSlotCuda, ABoundedStreamOpensFromTheBarLogAndRestoresBitIdentically) {
  std::string why;
  const std::unique_ptr<Backend> cuda = cuda_or_null(&why);
  if (!cuda) GTEST_SKIP() << "cuda backend not available here: " << why;
  EXPECT_TRUE(cuda->streams_bounded()) << "the daemon keeps only a tail for cuda streams";
  const Series s = test::random_walk(5000, 27);
  test::TempDir dir("wfod_slot_cuda");
  auto opened = BarStore::open(dir.path(), "X");
  ASSERT_TRUE(opened.ok());
  BarStore& store = opened.value().store;
  SymbolHistory h;
  h.set_keep(300);
  auto grow_to = [&](size_t end) {
    while (h.size() < end) {
      const Bar b = cuda_bar_of(s, h.size());
      EXPECT_TRUE(store.append(b).ok());
      h.push_back(b);
      h.set_needed_from(h.size());
    }
    EXPECT_TRUE(store.flush().ok());
    h.compact();  // drop now what a block turnover would drop: only the kept tail stays
    return h.snapshot();
  };
  HistorySnapshot snap = grow_to(4000);
  ASSERT_GT(snap.from(), 0u);  // the anchor is no longer in memory
  EngineSlot a;
  const SweepResult got = a.run(*cuda, cuda_request_for(s, 4000), snap, store.path());
  EXPECT_TRUE(a.opened_now());
  EXPECT_TRUE(a.bounded());
  const SweepResult want = cuda->sweep(cuda_request_for(s, 4000));
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i)
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics));
  // Positions of the winner from the stream (no history from the anchor in memory).
  const Combo winner = got.top.at(0).combo;
  const std::vector<int8_t> p =
      cuda->positions(HistoryView::of(s).prefix(4000), cuda_request_for(s, 4000).strategy, winner);
  EXPECT_EQ(a.positions(winner, 3950, snap),
            std::vector<int8_t>(p.begin() + 3950, p.begin() + 4000));

  const auto blob = a.checkpoint();
  ASSERT_TRUE(blob.has_value()) << "a bounded cuda stream writes a checkpoint";
  EngineSlot b;
  b.restore(*cuda, stream_spec_of(cuda_request_for(s, 4000)), *blob, 4000);
  EXPECT_EQ(b.bars(), 4000u);
  EXPECT_TRUE(b.bounded());
  for (size_t end = 4001; end <= 5000; end += end % 3 == 0 ? 1 : 57) {
    snap = grow_to(end);
    const SweepResult ra = a.run(*cuda, cuda_request_for(s, end), snap, store.path());
    const SweepResult rb = b.run(*cuda, cuda_request_for(s, end), snap, store.path());
    EXPECT_FALSE(b.opened_now());
    ASSERT_EQ(test::ids_of(ra.top), test::ids_of(rb.top)) << end;
    for (size_t i = 0; i < ra.top.size(); ++i)
      EXPECT_EQ(std::memcmp(&ra.top[i].metrics, &rb.top[i].metrics, sizeof(Metrics)), 0) << end;
  }
}

}  // namespace
}  // namespace wfod::daemon
