// The publication rules (publisher.hpp): gate, sequence number, signals, send, top-up, in
// that order.

#include "wfod/daemon/core/publisher.hpp"

#include <utility>

namespace wfod::daemon {

namespace {
constexpr std::string_view kSeqAlarm = "publications.seq";
}

Publisher::Publisher(PublicationNumbers& numbers, MessageSink& sink, StorageAlarms& alarms,
                     PublisherEvents& events, Now clock)
    : numbers_(numbers), sink_(sink), alarms_(alarms), events_(events), now_(std::move(clock)) {}

std::optional<Publisher::Sent> Publisher::publish(const PublicationKey& key, const Run& run,
                                                  PublishStore& store, const Build& build,
                                                  const std::function<void()>& signals_before) {
  // Robust selection may hold the current combo or publish nothing (docs/spec-10-selection.md).
  if (run.selection_withheld) {
    events_.selection_withheld(key, *run.selection_withheld);
    return std::nullopt;
  }
  // Never behind what clients already have: after a quarantine (or a bar log replaced by
  // hand) the history may end before the last published window. Such runs are withheld
  // until the window's last bar reaches that one's again (docs/operations.md).
  if (const auto it = published_last_ts_.find(key);
      it != published_last_ts_.end() && run.window_last_ts < it->second) {
    if (behind_.insert(key).second) events_.behind_published(key, run.window_last_ts, it->second);
    return std::nullopt;
  }
  if (behind_.erase(key) > 0) events_.caught_up(key);
  // PROTOCOL §2: only after the covered bars are persisted.
  if (!store.healthy()) {
    if (Status s = store.flush(); !s.ok() || !store.healthy()) {
      // Once per run while it lasts: under the storage lines' shared rate limit.
      if (const StorageAlarms::Decision d = alarms_.may_log(now()); d.log) {
        const std::optional<IoError> error = store.last_error();
        events_.not_persisted(key, error ? error->message : "disk error", d.suppressed);
      }
      return std::nullopt;
    }
  }
  // The number is on disk before it is used: a crash after the send never reuses it.
  auto seq = numbers_.next(key.first, key.second);
  if (!seq.ok()) {
    const StorageAlarms::Decision d =
        alarms_.raise(kSeqAlarm, "no publication sequence number: " + seq.error().message, now());
    if (d.log) events_.no_sequence_number(key, seq.error().message, d.suppressed);
    return std::nullopt;
  }
  if (alarms_.clear(kSeqAlarm)) events_.sequence_numbers_back();

  Payload payload = build(seq.value());
  Sent out{seq.value(), "params." + key.first + "." + key.second, std::move(payload.text), {}};
  // PROTOCOL §2a: the bars before this window's last one keep the combo they had; their
  // signals (persisted, since the window's bars are) go before the publication.
  if (signals_before) signals_before();
  if (const auto error = send(out.topic, out.payload)) events_.send_failed(key, *error);
  out.at = now();
  // The next block of sequence numbers, now that this publication is out (not in the next's).
  if (Status s = numbers_.top_up(key.first, key.second); !s.ok()) {
    if (const StorageAlarms::Decision d = alarms_.may_log(now()); d.log)
      events_.top_up_failed(key, s.error().message, d.suppressed);
  }
  last_[key] = LastPublication{out.seq, out.payload, payload.published_ns};
  published_last_ts_[key] = run.window_last_ts;
  return out;
}

std::optional<std::string> Publisher::send(std::string_view topic, std::string_view payload) {
  // Never blocks: a PUB drops per subscriber at its high-water mark; a refusal of the whole
  // message (EAGAIN) is counted.
  SendResult r = sink_.send(topic, payload);
  if (r.sent) return std::nullopt;
  ++dropped_;
  if (r.error.empty()) return std::nullopt;
  return std::move(r.error);
}

void Publisher::restore(const PublicationKey& key, LastPublication last,
                        std::optional<int64_t> window_last_ts) {
  last_[key] = std::move(last);
  if (window_last_ts) published_last_ts_[key] = *window_last_ts;
}

void Publisher::stream_started(const PublicationKey& key) { behind_.erase(key); }

}  // namespace wfod::daemon
