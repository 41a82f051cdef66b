// Fuzzes the stream checkpoint reader (Backend::restore_stream of the cpu backend): the bytes
// the daemon restores its streams from at start-up, read from disk. The harness re-seals each
// input's trailing checksum before restoring, so the fuzzer reaches the parser behind it (a
// bad checksum alone is refused first, which the unit tests cover byte by byte). Beyond "no
// crash, no leak, no UB" it asserts:
// - only std::invalid_argument escapes restore_stream;
// - a restored stream writes back exactly the bytes it was restored from (checkpoint()),
//   answers positions() from its horizon on and evaluate() or a clean refusal, and advances
//   over three more bars or refuses them with std::invalid_argument.
// Seed: fuzz/corpus/stream_checkpoint/ holds checkpoints of stream_checkpoint_spec()'s stream at
// a few bar counts (before any window, mid-chunk, after flips), written by
// tests/unit/kernels/core/fuzz_seed_test.cpp (WFOD_WRITE_FUZZ_SEEDS=1).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "fuzz_check.hpp"
#include "src/blob_io.hpp"
#include "stream_checkpoint_spec.hpp"
#include "wfod/backend.hpp"

using namespace wfod;  // the entry point below is extern "C", outside the namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const StreamSpec spec = wfod::fuzz::stream_checkpoint_spec();
  static const std::unique_ptr<Backend> cpu = make_backend("cpu");
  std::vector<uint8_t> blob(data, data + size);
  if (blob.size() >= 8) {
    const uint64_t sum =
        detail::blob_checksum(std::span<const uint8_t>(blob).first(blob.size() - 8));
    std::memcpy(blob.data() + blob.size() - 8, &sum, sizeof sum);
  }
  std::unique_ptr<Stream> stream;
  try {
    stream = cpu->restore_stream(spec, blob);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  WFOD_FUZZ_CHECK(stream->checkpoint() == blob, "a restored stream writes back its bytes");
  const size_t bars = stream->stats().bars, horizon = stream->horizon();
  WFOD_FUZZ_CHECK(horizon <= bars, "the horizon is a bar the stream has");
  const Combo combo = spec.strategy.grid.decode(0);
  WFOD_FUZZ_CHECK(stream->positions(combo, horizon, bars).size() == bars - horizon,
                  "positions from the horizon");
  try {
    const uint64_t ids[] = {0, 1};
    WFOD_FUZZ_CHECK(stream->evaluate(ids).size() == 2, "one Metrics per id");
  } catch (const std::invalid_argument&) {  // the window is not there yet
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<Bar> next{{kMax - 2, 100, 101, 99, 100.5, 1, 0},
                              {kMax - 1, 100.5, 102, 100, 101, 1, 0},
                              {kMax, 101, 101.5, 99.5, 100, 1, 0}};
  try {
    stream->advance(next);
  } catch (const std::invalid_argument&) {  // too few bars for a window, or ts not after
  }
  return 0;
}
