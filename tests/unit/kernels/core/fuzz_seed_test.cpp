// The stream-checkpoint fuzzer's seeds (fuzz/corpus/stream_checkpoint/) are checkpoints in
// the current format: a format change that leaves them behind stops the fuzzer at the version
// check (it then explores nothing behind it). With WFOD_WRITE_FUZZ_SEEDS=1 the test rewrites
// them first, from the fuzzer's own spec (fuzz/stream_checkpoint_spec.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/stream_checkpoint_spec.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

namespace fs = std::filesystem;

const fs::path kSeeds = fs::path(WFOD_SOURCE_DIR) / "fuzz" / "corpus" / "stream_checkpoint";

StreamSpec fuzz_spec() { return fuzz::stream_checkpoint_spec(); }

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
