// Every part's log lines (daemon_logs.cpp): the daemon/core parts report events, the daemon
// writes them as the lines the integration tests and operators read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "wfod/daemon/core/bar_keeper.hpp"
#include "wfod/daemon/core/publication_step.hpp"
#include "wfod/daemon/core/publisher.hpp"
#include "wfod/daemon/core/run_dispatcher.hpp"
#include "wfod/daemon/core/signal_gate.hpp"
#include "wfod/feeds/bar_validator.hpp"

namespace wfod::daemon::loop {

class PublicationLog final : public PublisherEvents {
 public:
  void selection_withheld(const PublicationKey& key, std::string_view reason) override;
  void behind_published(const PublicationKey& key, int64_t window_last_ts,
                        int64_t published_last_ts) override;
  void caught_up(const PublicationKey& key) override;
  void not_persisted(const PublicationKey& key, std::string_view error,
                     uint64_t suppressed) override;
  void no_sequence_number(const PublicationKey& key, std::string_view error,
                          uint64_t suppressed) override;
  void sequence_numbers_back() override;
  void send_failed(const PublicationKey& key, std::string_view error) override;
  void top_up_failed(const PublicationKey& key, std::string_view error,
                     uint64_t suppressed) override;
};

// With the two follow-ups the Daemon gives the keeper (its streams' runs, the signals).
class BarKeeperLog final : public BarKeeperEvents {
 public:
  void log_failing(const SymbolState& sym, const IoError& error) override;
  void log_recovered(const SymbolState& sym) override;
  void sync_failed(const IoError& error) override;
  void file_lost(const SymbolState& sym, const IoError& error) override;
  void file_back(const SymbolState& sym) override;
  void committed(SymbolState& sym, size_t bars) override;
  void synced() override { on_synced(); }

  std::function<void(SymbolState&, size_t)> on_committed;
  std::function<void()> on_synced;
};

class SignalLog final : public SignalEvents {
 public:
  void send_failed(const PublicationKey& key, std::string_view error) override;
  void stopped(const PublicationKey& key, size_t bar, std::string_view error) override;
  void unknown_positions(const PublicationKey& key, uint64_t seq, std::string_view why) override;
  void not_followed(const PublicationKey& key, std::string_view error) override;
  void following(const PublicationKey& key, uint64_t combo, uint64_t seq, size_t bar) override;
  void resume_later(const PublicationKey& key, std::string_view error) override;
};

class RunLog final : public RunEvents {
 public:
  void started(const PublicationKey& key, size_t bars, size_t window) override;
  void coalesced(const PublicationKey& key, uint64_t so_far) override;
  void dropped(const PublicationKey& key) override;
  void live_missing(const PublicationKey& key, std::string_view why) override;
  void stream_opened(const PublicationKey& key, const JobResult& result) override;
  void fell_back(std::string_view from, std::string_view to, std::string_view error) override;
  void fallback_failed(std::string_view from, std::string_view error) override;
  void failed(const PublicationKey& key, std::string_view error) override;
  void empty(const PublicationKey& key, size_t window, uint64_t evaluated,
             double elapsed_ms) override;
  void waiting_for_bars(const PublicationKey& key, const SymbolStrategy& stream,
                        size_t history) override;
  void next_run_after(const PublicationKey& key, const SymbolStrategy& stream) override;
};

class PublishedLog final : public PublicationStepEvents {
 public:
  void published(const PublicationKey& key, const Published& p) override;
};

// A connection refused or closed at a cap (snapshot or HTTP): `socket` names it, `limit` is
// its own rate limit.
void log_connection_cap(feeds::RejectLogLimiter& limit, std::string_view socket, size_t open,
                        int max, std::string_view what);

// One of each, held by the Daemon.
struct DaemonLogs {
  PublicationLog publication;
  BarKeeperLog keeper;
  SignalLog signals;
  RunLog runs;
  PublishedLog published;
};

}  // namespace wfod::daemon::loop
