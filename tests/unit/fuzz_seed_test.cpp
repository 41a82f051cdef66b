// The stream-checkpoint fuzzer's seeds (fuzz/corpus/stream_checkpoint/) are checkpoints in
// the current format: a format change that leaves them behind stops the fuzzer at the version
// check (it then explores nothing behind it). With WFOD_WRITE_FUZZ_SEEDS=1 the test rewrites
// them first, from the fuzzer's own spec (fuzz/stream_checkpoint_fuzz.cpp's make_spec).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

namespace fs = std::filesystem;

const fs::path kSeeds = fs::path(WFOD_SOURCE_DIR) / "fuzz" / "corpus" / "stream_checkpoint";

// As the fuzzer's make_spec(): keep the two in step.
StreamSpec fuzz_spec() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3};
  g.slow = {8};
  g.ma = {MaType::ema, MaType::hma};
  g.entry = {Entry::cross};
  g.vol_short = {4};
  g.vol_long = {9};
  g.vol_threshold = {1.0};
  StreamSpec spec;
  spec.strategy.grid = g;
  spec.strategy.fill = Fill::next_open;
  spec.strategy.costs.commission_bps = 1;
  spec.window = 24;
  spec.warmup = default_warmup(g);
  spec.chunk = 16;
  spec.threads = 1;
  return spec;
}

// Checkpoints before any window, mid-chunk, and after flips.
void write_seeds() {
  const std::unique_ptr<Backend> cpu = make_backend("cpu");
  const Series bars = test::random_walk(300, 44);
  for (size_t n : {size_t{0}, size_t{20}, size_t{100}, size_t{300}}) {
    const std::unique_ptr<Stream> s =
        cpu->open_stream(fuzz_spec(), HistoryView::of(bars).prefix(n));
    const std::vector<uint8_t> blob = s->checkpoint();
    std::ofstream out(kSeeds / ("bars_" + std::to_string(n) + ".ckpt"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(blob.data()),
              static_cast<std::streamsize>(blob.size()));
  }
}

TEST(FuzzSeeds, StreamCheckpointSeedsRestoreInTheCurrentFormat) {
  if (const char* w = std::getenv("WFOD_WRITE_FUZZ_SEEDS"); w && std::string(w) == "1")
    write_seeds();
  const std::unique_ptr<Backend> cpu = make_backend("cpu");
  size_t seeds = 0;
  for (const auto& entry : fs::directory_iterator(kSeeds)) {
    if (entry.path().extension() != ".ckpt") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> blob((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    EXPECT_NO_THROW((void)cpu->restore_stream(fuzz_spec(), blob))
        << entry.path() << ": rewrite the seeds with WFOD_WRITE_FUZZ_SEEDS=1";
    ++seeds;
  }
  EXPECT_GE(seeds, 4u);
}

}  // namespace
}  // namespace wfod
