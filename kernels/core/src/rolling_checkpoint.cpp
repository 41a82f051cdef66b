// RollingIndicators checkpoints: per row, in index order, its state (StateCodec) and its
// stored values; the grid decides which state each row holds, the bytes only its values.
#include <algorithm>
#include <cstring>
#include <string>

#include "src/blob_io.hpp"
#include "src/rolling_indicators.hpp"
#include "src/state_codec.hpp"

namespace wfod::detail {

void RollingIndicators::save(detail::BlobWriter& w, size_t values_from) const {
  w.put(static_cast<uint64_t>(rows_.size()));
  w.put(static_cast<uint64_t>(end_));
  w.put(static_cast<uint64_t>(values_from));
  for (const RollingRow* row : rows_) {
    w.put(static_cast<uint8_t>(row->state.index()));
    std::visit([&](const auto& s) { detail::StateCodec::save(w, s); }, row->state);
    w.put_array(std::span<const double>(
        matrix_.data() + row->index * stride_ + (values_from - base_), end_ - values_from));
  }
}

void RollingIndicators::load(detail::BlobReader& r, size_t bars, size_t values_from) {
  const uint64_t rows = r.get<uint64_t>("indicator row count");
  const uint64_t end = r.get<uint64_t>("indicator bar count");
  const uint64_t from = r.get<uint64_t>("indicator values start");
  if (rows != rows_.size() || end != bars || from != values_from)
    r.fail("indicator rows: " + std::to_string(rows) + " rows over bars [" + std::to_string(from) +
           ", " + std::to_string(end) + "), expected " + std::to_string(rows_.size()) + " over [" +
           std::to_string(values_from) + ", " + std::to_string(bars) + ")");
  const size_t kept = bars - values_from;
  stride_ = std::max<size_t>({64, 2 * kept, min_stride_});
  matrix_.assign(rows_.size() * stride_, 0.0);
  for (RollingRow* row : rows_) {
    const uint8_t kind = r.get<uint8_t>("indicator row kind");
    if (kind != row->state.index())
      r.fail("indicator row " + std::to_string(row->index) + " holds state kind " +
             std::to_string(kind) + ", the grid's is " + std::to_string(row->state.index()));
    std::visit([&](auto& s) { detail::StateCodec::load(r, s, bars); }, row->state);
    const std::span<const uint8_t> values = r.get_bytes(kept * sizeof(double), "indicator values");
    if (kept) std::memcpy(matrix_.data() + row->index * stride_, values.data(), values.size());
  }
  end_ = bars;
  base_ = keep_from_ = values_from;
  ++layout_version_;
}

}  // namespace wfod::detail
