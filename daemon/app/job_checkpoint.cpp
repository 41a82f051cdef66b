// The worker's periodic checkpoint after a run (job_checkpoint.hpp), with its log lines.
#include "job_checkpoint.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>

namespace wfod::daemon {

void checkpoint_if_due(const std::pair<std::string, std::string>& key, JobInput& in,
                       const CheckpointPlan& plan) {
  EngineSlot* slot = in.slot.get();
  if (!slot || !plan.store || plan.every.count() <= 0 || !slot->bounded() ||
      slot->bars() != in.snap.end || in.snap.end == 0)
    return;
  const auto now = std::chrono::steady_clock::now();
  if (now - slot->last_checkpoint < plan.every) return;
  slot->last_checkpoint = now;  // a failure is retried after another period, not every run
  try {
    auto blob = slot->checkpoint();
    if (!blob) return;
    const Checkpoint c{plan.fingerprint, in.snap.end, in.snap.block->bar(in.snap.end - 1).ts_ns,
                       std::move(*blob)};
    if (Status s = plan.store->save(key.first, key.second, c); !s.ok()) {
      const StorageAlarms::Decision d =
          plan.alarms
              ? plan.alarms->raise("checkpoints", "checkpoint not written: " + s.error().message)
              : StorageAlarms::Decision{true, 0};
      if (d.log)
        spdlog::error("stream {}.{}: checkpoint not written: {}{}", key.first, key.second,
                      s.error().message, not_logged_note(d.suppressed));
      return;
    }
    if (plan.alarms && plan.alarms->clear("checkpoints"))
      spdlog::info("stream {}.{}: checkpoints are written again", key.first, key.second);
    spdlog::debug(
        "stream {}.{}: checkpoint at bar {} ({} bytes) in {:.1f} ms", key.first, key.second, c.bars,
        c.blob.size(),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - now).count());
  } catch (const std::exception& e) {
    spdlog::error("stream {}.{}: checkpoint failed: {}", key.first, key.second, e.what());
  }
}

}  // namespace wfod::daemon
