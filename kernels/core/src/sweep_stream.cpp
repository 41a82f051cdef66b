// open_sweep_stream, Backend::open_stream's default: a stream that keeps the bars and
// re-sweeps the whole window on every advance. Exact by construction; the baseline the
// incremental streams (cpu, cuda) are tested and benchmarked against.

#include "src/bars_from_anchor.hpp"
#include "wfod/backend.hpp"

namespace wfod {
namespace {

class SweepStream final : public Stream {
 public:
  SweepStream(Backend& backend, const StreamSpec& spec, const HistoryView& history)
      : backend_(backend), spec_(spec), history_(history) {}

  SweepResult advance(std::span<const Bar> bars) override {
    history_.append(bars);
    SweepRequest req;
    req.history = history_.view();
    req.strategy = spec_.strategy;
    req.window = WindowSpec{history_.size(), spec_.window, spec_.warmup};
    req.rank = spec_.rank;
    req.precision = spec_.precision;
    req.threads = spec_.threads;
    return backend_.sweep(req);
  }

  StreamStats stats() const override {
    StreamStats s;
    s.bars = history_.size();
    s.footprint_bytes = history_.footprint_bytes();
    s.incremental = false;
    return s;
  }

 private:
  Backend& backend_;  // outlives its streams (open_sweep_stream)
  StreamSpec spec_;
  detail::BarsFromAnchor history_;
};

}  // namespace

std::unique_ptr<Stream> open_sweep_stream(Backend& backend, const StreamSpec& spec,
                                          const HistoryView& history) {
  return std::make_unique<SweepStream>(backend, spec, history);
}

std::unique_ptr<Stream> Backend::open_stream(const StreamSpec& spec, const HistoryView& history) {
  return open_sweep_stream(*this, spec, history);
}

}  // namespace wfod
