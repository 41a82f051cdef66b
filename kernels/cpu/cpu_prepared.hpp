// The cpu backend's preparation (Backend::prepare): where a sweep whose robust selection with
// PBO follows (PrepareSpec::pbo_blocks) keeps the block Summaries it computed in its own
// pass, for the block_summaries call of the same request right after it.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod::cpu {

// What kept block Summaries were computed for: the backend's call they followed (any grid
// pass since spends them), the window and its cuts, and the request's bars and strategy as
// far as a preparation's calls may differ in them.
struct BlocksKey {
  uint64_t epoch = 0;
  size_t end = 0, bars = 0, warmup = 0;
  std::vector<size_t> cuts;
  const double* close = nullptr;
  size_t history_bars = 0;
  uint64_t grid_size = 0;
  Family family = Family::ma_cross;
  Fill fill = Fill::close;
  double cost = 0;
  bool operator==(const BlocksKey&) const = default;
};

struct KeptBlocks {
  BlocksKey key;
  std::vector<Summary> summaries;  // as Backend::block_summaries
};

class CpuPreparedHistory final : public PreparedHistory {
 public:
  CpuPreparedHistory(const PrepareSpec& spec, const void* made_by)
      : PreparedHistory(spec), owner(made_by) {}
  // The backend that made it: only that one's epochs count its kept blocks.
  const void* const owner;

  void keep(KeptBlocks kept) {
    const std::lock_guard lock(mutex_);
    kept_ = std::move(kept);
  }
  bool holds_blocks() const {
    const std::lock_guard lock(mutex_);
    return kept_.has_value();
  }
  // The kept blocks, once (taking them spends them).
  std::optional<KeptBlocks> take() {
    const std::lock_guard lock(mutex_);
    std::optional<KeptBlocks> out = std::move(kept_);
    kept_.reset();
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::optional<KeptBlocks> kept_;
};

}  // namespace wfod::cpu
