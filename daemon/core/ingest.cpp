// The batched feed path: per message only decoding, validation and an in-memory queue; per
// event-loop batch one write() per touched bar log and at most one sync pass, which is what
// lets 1,000 symbols ingest as fast as one (bench/RESULTS.md "Feed ingest").
#include "wfod/daemon/core/ingest.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <utility>

namespace wfod::daemon {
namespace {

// From this many logs on, one syncfs() of the state directory's file system is cheaper than
// a fdatasync per log (each of those commits the journal on its own).
constexpr size_t kSyncfsMinLogs = 4;

std::vector<std::string> names_of(const std::vector<IngestTarget>& targets) {
  std::vector<std::string> names;
  names.reserve(targets.size());
  for (const IngestTarget& t : targets) names.push_back(t.name);
  return names;
}

}  // namespace

Ingest::Ingest(std::vector<IngestTarget> targets, config::FsyncPolicy fsync)
    : targets_(std::move(targets)),
      fsync_(fsync),
      validator_(std::span<const std::string>(names_of(targets_))),
      batch_bars_(targets_.size(), 0) {}

IngestOutcome Ingest::on_message(std::span<const std::string_view> frames,
                                 feeds::PayloadFormat format) {
  IngestOutcome out;
  if (frames.size() != 2) {
    out.reject =
        feeds::Reject{feeds::RejectReason::frames, "message of " + std::to_string(frames.size()) +
                                                       " frames, expected 2 [topic, payload]"};
    validator_.count(out.reject->reason);
    return out;
  }
  auto topic = feeds::decode_topic(frames[0]);
  if (auto* r = std::get_if<feeds::Reject>(&topic)) {
    validator_.count(r->reason);
    out.reject = std::move(*r);
    return out;
  }
  auto decoded = feeds::decode_payload(frames[1], format);
  if (auto* r = std::get_if<feeds::Reject>(&decoded)) {
    validator_.count(r->reason);
    out.reject = std::move(*r);
    return out;
  }
  out.symbol = std::get<std::string_view>(topic);  // set once the message decoded
  const Bar& bar = std::get<Bar>(decoded);
  const std::optional<size_t> index = validator_.index_of(out.symbol);
  feeds::Verdict v = index ? validator_.validate(*index, bar) : validator_.unknown(out.symbol);
  if (v.reject) {
    out.reject = std::move(v.reject);
    return out;
  }
  out.gap = v.gap;
  IngestTarget& t = targets_[*index];
  const AppendResult r = t.store->stage(bar);
  if (r.state == AppendState::refused) {
    out.refused = r.error;
    return out;
  }
  t.history->push_back(bar);
  if (batch_bars_[*index]++ == 0) touched_.push_back(*index);
  return out;
}

IngestCommit Ingest::commit() {
  IngestCommit out;
  // Logs that failed before are retried even when no new bar came for them: the backlog
  // goes out, in order, as soon as the disk takes it again.
  for (const size_t i : failing_) {
    if (batch_bars_[i] == 0) (void)targets_[i].store->write_staged();
  }
  for (const size_t i : touched_) (void)targets_[i].store->write_staged();
  if (fsync_ != config::FsyncPolicy::none) (void)sync_pass(fsync_ == config::FsyncPolicy::batch);

  out.touched.reserve(touched_.size());
  for (const size_t i : touched_) {
    out.touched.push_back({i, batch_bars_[i]});
    batch_bars_[i] = 0;
  }
  touched_.clear();
  // A failed write leaves the bars queued in their store; a failed sync puts the unsynced
  // ones back in the queue. Either way the store is unhealthy until a later commit writes
  // (and syncs) them. Transitions only, so the daemon logs each outage once.
  std::vector<size_t> now_failing;
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (targets_[i].store->healthy()) continue;
    now_failing.push_back(i);
    if (std::find(failing_.begin(), failing_.end(), i) == failing_.end()) {
      const auto& err = targets_[i].store->last_error();
      out.failed.emplace_back(i, err ? *err : IoError{0, "unwritten bars"});
    }
  }
  for (const size_t i : failing_) {
    if (targets_[i].store->healthy()) out.recovered.push_back(i);
  }
  failing_ = std::move(now_failing);
  return out;
}

Status Ingest::sync_pass(bool only_if_due) {
  std::vector<BarStore*> dirty;
  bool due = !only_if_due;
  for (const IngestTarget& t : targets_) {
    if (!t.store->has_unsynced()) continue;
    dirty.push_back(t.store);
    if (!due && t.store->sync_due()) due = true;
  }
  if (!due || dirty.empty()) return {};
  if (dirty.size() >= kSyncfsMinLogs) {
    ++syncfs_calls_;
    int rc;
    do {
      rc = ::syncfs(dirty.front()->fd());
    } while (rc != 0 && errno == EINTR);
    if (rc == 0) {
      for (BarStore* s : dirty) s->mark_synced();
      return {};
    }
    // Fall through: fdatasync per log finds which one failed, and each store puts its
    // unsynced records back in its queue to be written again.
  }
  Status first;
  for (BarStore* s : dirty) {
    if (Status st = s->sync(); !st.ok() && first.ok()) first = st;
  }
  return first;
}

Status Ingest::sync_all() { return sync_pass(false); }

uint64_t StopFlush::lost_bars() const {
  uint64_t n = 0;
  for (const auto& [index, bars] : lost) n += bars;
  return n;
}

StopFlush Ingest::stop_flush(std::chrono::steady_clock::duration budget,
                             std::chrono::steady_clock::duration retry_every,
                             const StopClock& clock) {
  using SteadyClock = std::chrono::steady_clock;
  const auto now = [&clock] { return clock.now ? clock.now() : SteadyClock::now(); };
  const auto deadline = now() + budget;
  StopFlush out;
  for (;;) {
    ++out.attempts;
    // write_staged() writes a store's whole queue, staged and pending alike, in order; a
    // failed sync puts the unsynced records back in that queue, so the next pass rewrites
    // them too.
    for (IngestTarget& t : targets_) (void)t.store->write_staged();
    if (fsync_ != config::FsyncPolicy::none) (void)sync_pass(false);
    // pending(), not healthy(): a log deleted while open (BarStore::lost) takes the writes,
    // and no retry would bring its file back; the caller reports it.
    const bool all_written =
        std::all_of(targets_.begin(), targets_.end(),
                    [](const IngestTarget& t) { return t.store->pending() == 0; });
    if (all_written) break;
    const auto t = now();
    if (t >= deadline) break;
    const auto pause = std::min<SteadyClock::duration>(retry_every, deadline - t);
    if (clock.sleep) {
      clock.sleep(pause);
    } else {
      std::this_thread::sleep_for(pause);
    }
  }
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (targets_[i].store->pending() > 0) out.lost.emplace_back(i, targets_[i].store->pending());
  }
  return out;
}

bool Ingest::has_unsynced() const {
  for (const IngestTarget& t : targets_) {
    if (t.store->has_unsynced()) return true;
  }
  return false;
}

}  // namespace wfod::daemon
