// The rules a publication (PROTOCOL §2) goes out by, without sockets or a loop: nothing when
// robust selection withholds the run; nothing that ends before the last published window;
// nothing until the covered bars are persisted; a sequence number on disk before the send
// (none to be had: withheld, under the storage alarms' rate limit); the signals of the bars
// before the window's last one sent first; a send that never blocks (a refusal counted);
// the next block of sequence numbers reserved after it; the last publication per stream
// kept for snapshots. PublicationStep (publication_step.hpp) builds the payload and the daemon
// writes the log lines (daemon/app/daemon_logs.cpp); the store, the sequence numbers, the
// socket and the clock are seams, so tests/unit/daemon/core/publisher_test.cpp drives every rule
// with fakes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "wfod/config/config.hpp"
#include "wfod/daemon/core/storage_alarms.hpp"
#include "wfod/daemon/publish/snapshot.hpp"
#include "wfod/daemon/store/bar_store.hpp"
#include "wfod/daemon/store/io_result.hpp"

namespace wfod::daemon {

// The bar log of the publication's symbol, as far as the publication's rules read it.
class PublishStore {
 public:
  virtual ~PublishStore() = default;
  // Every accepted bar written (nothing queued while the disk refuses, the file not lost).
  virtual bool healthy() const = 0;
  // Writes what is queued (and syncs per the fsync policy).
  virtual Status flush() = 0;
  // Written records not yet known durable (fsync = batch between its syncs).
  virtual bool has_unsynced() const = 0;
  virtual std::optional<IoError> last_error() const = 0;
};

// The daemon's view of a BarStore.
class BarStorePublishView final : public PublishStore {
 public:
  explicit BarStorePublishView(BarStore& store) : store_(store) {}
  bool healthy() const override { return store_.healthy(); }
  Status flush() override { return store_.flush(); }
  bool has_unsynced() const override { return store_.has_unsynced(); }
  std::optional<IoError> last_error() const override { return store_.last_error(); }

 private:
  BarStore& store_;
};

// Publication sequence numbers (SequenceStore in the daemon).
class PublicationNumbers {
 public:
  virtual ~PublicationNumbers() = default;
  // The stream's next number, on disk before it returns.
  virtual Result<uint64_t> next(std::string_view symbol, std::string_view strategy) = 0;
  // Reserves the stream's next block of numbers ahead.
  virtual Status top_up(std::string_view symbol, std::string_view strategy) = 0;
};

// One message on the publication socket.
struct SendResult {
  bool sent = false;  // false: refused whole (never blocks), or the error below
  std::string error;  // the socket's error, when it raised one (not for a plain refusal)
};

// The PUB socket: sends [topic, payload] without blocking.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual SendResult send(std::string_view topic, std::string_view payload) = 0;
};

// What the publisher reports; the daemon writes each as its log line. Those under a rate
// limit are called only when the limit lets the line out, with the lines left out since.
class PublisherEvents {
 public:
  virtual ~PublisherEvents() = default;
  virtual void selection_withheld(const PublicationKey& key, std::string_view reason) = 0;
  // Once when runs start being withheld for ending before the last published window, and
  // once when one reaches it again.
  virtual void behind_published(const PublicationKey& key, int64_t window_last_ts,
                                int64_t published_last_ts) = 0;
  virtual void caught_up(const PublicationKey& key) = 0;
  // The bars are not persisted: withheld (rate-limited).
  virtual void not_persisted(const PublicationKey& key, std::string_view error,
                             uint64_t suppressed) = 0;
  // No sequence number: withheld (the "publications.seq" storage alarm; rate-limited).
  virtual void no_sequence_number(const PublicationKey& key, std::string_view error,
                                  uint64_t suppressed) = 0;
  // Sequence numbers are written again (the alarm cleared).
  virtual void sequence_numbers_back() = 0;
  virtual void send_failed(const PublicationKey& key, std::string_view error) = 0;
  // The next block of numbers was not reserved (rate-limited); the publication went out.
  virtual void top_up_failed(const PublicationKey& key, std::string_view error,
                             uint64_t suppressed) = 0;
};

class Publisher {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;

  // Every reference must outlive the publisher. `now`: the steady clock when empty.
  Publisher(PublicationNumbers& numbers, MessageSink& sink, StorageAlarms& alarms,
            PublisherEvents& events, Now clock = {});

  // The sync gate of a run's result: under fsync = batch | every its covered bars must be
  // synced before it is published, so a result that finds unsynced records waits for the
  // next sync pass (PROTOCOL §2).
  static bool awaits_sync(config::FsyncPolicy fsync, const PublishStore& store) {
    return fsync != config::FsyncPolicy::none && store.has_unsynced();
  }

  // A run's result, as far as the rules before its payload read it.
  struct Run {
    // Robust selection decided to publish nothing: why (the selection reason).
    std::optional<std::string> selection_withheld;
    int64_t window_last_ts = 0;  // the ts of the window's last bar
  };
  // The payload of the publication numbered `seq` (the exact bytes sent), and its
  // published_ns.
  struct Payload {
    std::string text;
    int64_t published_ns = 0;
  };
  using Build = std::function<Payload(uint64_t seq)>;
  // A publication that went out (or that the socket refused: it counts as sent, PROTOCOL §2
  // lets subscribers lose messages; the sequence number is used).
  struct Sent {
    uint64_t seq = 0;
    std::string topic;
    std::string payload;
    Clock::time_point at;  // right after the send, before the numbers are topped up
  };

  // Publishes `key`'s run under the rules above: `build` is called once the publication may
  // go, with its sequence number; `signals_before` just before the send (the signals of the
  // bars before the window's last one). nullopt: withheld (reported through the events).
  std::optional<Sent> publish(const PublicationKey& key, const Run& run, PublishStore& store,
                              const Build& build, const std::function<void()>& signals_before);

  // One message on the publication socket, never blocking: a message refused whole counts
  // in dropped(). Returns the socket's error when it raised one (the caller logs it); the
  // signals go through here too.
  std::optional<std::string> send(std::string_view topic, std::string_view payload);

  // At start or reload, from the saved live state: the publication clients already hold,
  // and its window's last ts (nullopt: unknown, the floor stays as it is).
  void restore(const PublicationKey& key, LastPublication last,
               std::optional<int64_t> window_last_ts);
  // A stream (re)started by add_stream: its "behind the last published window" episode, if
  // any, is reported afresh.
  void stream_started(const PublicationKey& key);
  // A stream a reload removed: snapshots no longer answer with its last publication (its
  // window floor stays, should it come back).
  void forget(const PublicationKey& key) { last_.erase(key); }

  const PublicationMap& last() const { return last_; }
  // Messages the socket refused whole: publications and signals (health, /metrics).
  uint64_t dropped() const { return dropped_; }

 private:
  Clock::time_point now() const { return now_ ? now_() : Clock::now(); }

  PublicationNumbers& numbers_;
  MessageSink& sink_;
  StorageAlarms& alarms_;
  PublisherEvents& events_;
  Now now_;
  PublicationMap last_;
  // Per stream, window.last_ts of its newest publication (also from before a restart): no
  // later publication may end before it, so a trading system never gets parameters fitted
  // on older data than it already has.
  std::map<PublicationKey, int64_t, std::less<>> published_last_ts_;
  // Streams whose runs are withheld for ending before that (after a quarantine): reported
  // when it starts and when it ends, not per run.
  std::set<PublicationKey, std::less<>> behind_;
  uint64_t dropped_ = 0;
};

}  // namespace wfod::daemon
