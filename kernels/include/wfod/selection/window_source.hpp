// The window robust selection scores, and what select() asks of it: a backend with a request
// over the history from the anchor (BackendWindow), or a stream's current window answered
// from the stream's own bounded state (StreamWindow). Both give the same numbers to the bit.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "wfod/backend.hpp"
#include "wfod/selection/robust_scores.hpp"

namespace wfod::selection {

class WindowSource {
 public:
  virtual ~WindowSource() = default;
  virtual const StrategySpec& strategy() const = 0;
  virtual const RankSpec& rank() const = 0;
  virtual WindowSpec window() const = 0;
  virtual int threads() const = 0;
  // Backend::evaluate, block_summaries and selection::robust_scores of the window, and the
  // strategy returns s_t of one combo over it.
  virtual std::vector<Metrics> evaluate(std::span<const uint64_t> ids) = 0;
  virtual std::vector<Summary> block_summaries(std::span<const size_t> cuts) = 0;
  virtual std::vector<double> window_returns(const Combo& combo) = 0;
  virtual RobustScores robust_scores(const RobustOptions& options) = 0;
  // Whether window_returns() may run on another thread while robust_scores() runs on this one
  // (select() then computes the raw winner's DSR returns meanwhile). Default: no.
  virtual bool returns_overlap_scores() const { return false; }
  // window_returns(combo) where the source already holds them (on the calling thread, before
  // robust_scores); nullopt otherwise. Default: never.
  virtual std::optional<std::vector<double>> kept_returns(const Combo&) { return std::nullopt; }
};

// The host pipeline of robust_scores (score_grid + cscv_pbo, or score_grid_by_evaluate,
// then plateau_select) over any window source: what a backend without the selection
// extension runs (selection_extension.hpp).
RobustScores host_robust_scores(WindowSource& source, const RobustOptions& options);

class BackendWindow final : public WindowSource {
 public:
  // `request` must outlive this; its progress callback is not called.
  BackendWindow(Backend& backend, const SweepRequest& request)
      : backend_(backend), request_(request) {}
  const StrategySpec& strategy() const override { return request_.strategy; }
  const RankSpec& rank() const override { return request_.rank; }
  WindowSpec window() const override { return request_.window; }
  int threads() const override { return request_.threads; }
  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) override;
  std::vector<Summary> block_summaries(std::span<const size_t> cuts) override;
  std::vector<double> window_returns(const Combo& combo) override;
  // selection::robust_scores: the backend's selection extension, or the host pipeline where
  // it has none or its plan does not fit.
  RobustScores robust_scores(const RobustOptions& options) override;
  // The backend's positions share no state with its sweep-side work (positions_overlap_sweep),
  // unless the request asked for one thread.
  bool returns_overlap_scores() const override {
    return request_.threads != 1 && backend_.positions_overlap_sweep();
  }
  // The backend's selection extension's kept_returns.
  std::optional<std::vector<double>> kept_returns(const Combo& combo) override;

 private:
  Backend& backend_;
  const SweepRequest& request_;
};

// The window ending at the stream's newest bar; `spec` is the one the stream was opened with.
// Throws wfod::Unsupported where the stream cannot answer (Stream's defaults).
class StreamWindow final : public WindowSource {
 public:
  StreamWindow(const Stream& stream, const StreamSpec& spec) : stream_(stream), spec_(spec) {}
  const StrategySpec& strategy() const override { return spec_.strategy; }
  const RankSpec& rank() const override { return spec_.rank; }
  WindowSpec window() const override;
  int threads() const override { return spec_.threads; }
  std::vector<Metrics> evaluate(std::span<const uint64_t> ids) override;
  std::vector<Summary> block_summaries(std::span<const size_t> cuts) override;
  std::vector<double> window_returns(const Combo& combo) override;
  RobustScores robust_scores(const RobustOptions& options) override;  // the host pipeline

 private:
  const Stream& stream_;
  StreamSpec spec_;
};

}  // namespace wfod::selection
