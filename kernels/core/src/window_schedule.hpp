// The chunk bookkeeping both incremental streams share (docs/engine.md, Streams): for a
// window [end - W, end) over chunks of C bars and sub-chunks of c bars, which chunk holds
// the window's start (head), which is unfinished (tail), whether the two-stack aggregate must
// flip, whether the head chunk's sub-chunk cache must be rebuilt, and which sub-chunk a run
// replays. Keeps the two pieces of state those decisions depend on (split, cached head).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>

namespace wfod::detail {

// Bars per cached chunk for a window of W bars when the spec leaves it to us: about
// 2 sqrt(W), a power of two in [16, 4096]. A run costs ~C bars per combo (the replayed head
// chunk) plus O(1) combines; the cache costs ~W/C summaries per combo.
inline size_t default_stream_chunk(size_t window) {
  const size_t want = static_cast<size_t>(2.0 * std::sqrt(static_cast<double>(window)));
  return std::clamp<size_t>(std::bit_ceil(std::max<size_t>(want, 1)), 16, 4096);
}

struct WindowPlan {
  size_t first = 0, head = 0, tail = 0;  // window start bar; its chunk; the unfinished chunk
  bool in_one_chunk = false;             // head == tail: replay from the chunk's start
  bool has_middle = false;               // completed chunks (head, tail) exist
  bool do_flip = false;                  // chunks [head + 1, tail) become suffix combines
  bool do_cache_head = false;            // replay chunk `head` into its sub-chunk cache
  size_t sub = 0;                        // sub-chunk of `head` holding `first`
  size_t sub_start = 0, sub_end = 0;     // bars the run replays: [sub_start, sub_end)
  bool has_suffix = false;               // the cached suffix after `sub` joins the window
};

class WindowSchedule {
 public:
  WindowSchedule(size_t chunk, size_t sub, size_t subs) : chunk_(chunk), sub_(sub), subs_(subs) {}

  // The plan for the window of `window` bars ending at `end`; records the flip and the head
  // cache it asks for (the caller must carry them out before using the caches).
  WindowPlan plan(size_t end, size_t window) {
    WindowPlan p;
    p.first = end - window;
    p.head = p.first / chunk_;
    p.tail = end / chunk_;
    p.in_one_chunk = p.head == p.tail;
    p.has_middle = p.head + 1 < p.tail;
    p.do_flip = p.has_middle && p.head + 1 >= split_;
    if (p.do_flip) split_ = p.tail;
    p.do_cache_head = !p.in_one_chunk && p.head != cached_head_;
    if (p.do_cache_head) cached_head_ = p.head;
    p.sub = p.in_one_chunk ? 0 : (p.first - p.head * chunk_) / sub_;
    p.sub_start = p.head * chunk_ + p.sub * sub_;
    p.sub_end = p.in_one_chunk ? end : std::min(p.sub_start + sub_, (p.head + 1) * chunk_);
    p.has_suffix = !p.in_one_chunk && p.sub + 1 < subs_;
    return p;
  }

  // The two pieces of state, for checkpoints.
  static constexpr size_t kNoHead = static_cast<size_t>(-1);
  size_t split() const { return split_; }
  size_t cached_head() const { return cached_head_; }
  void restore(size_t split, size_t cached_head) {
    split_ = split;
    cached_head_ = cached_head;
  }

 private:
  size_t chunk_, sub_, subs_;
  size_t split_ = 0;              // chunks < split_ hold suffix combines
  size_t cached_head_ = kNoHead;  // chunk whose sub-chunk cache is built
};

}  // namespace wfod::detail
