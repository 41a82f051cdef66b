// The SignalGate's events (core/signal_gate.cpp: per-bar signals, PROTOCOL §2a) as the log
// lines the integration tests and operators read.

#include "daemon_impl.hpp"

namespace wfod::daemon::loop {

void SignalLog::send_failed(const PublicationKey& key, std::string_view error) {
  spdlog::error("stream {}.{}: signal send: {}", key.first, key.second, error);
}

void SignalLog::stopped(const PublicationKey& key, size_t bar, std::string_view error) {
  spdlog::error(
      "stream {}.{}: signals stopped at bar {}: {}; they resume with the next "
      "publication",
      key.first, key.second, bar, error);
}

void SignalLog::unknown_positions(const PublicationKey& key, uint64_t seq, std::string_view why) {
  spdlog::error(
      "stream {}.{}: no signals until the next publication: the positions of "
      "publication seq={} are not known ({})",
      key.first, key.second, seq, why);
}

void SignalLog::not_followed(const PublicationKey& key, std::string_view error) {
  spdlog::error("stream {}.{}: no signals until the next publication: {}", key.first, key.second,
                error);
}

void SignalLog::following(const PublicationKey& key, uint64_t combo, uint64_t seq, size_t bar) {
  spdlog::info("stream {}.{}: signals follow combo {} of publication seq={} from bar {}", key.first,
               key.second, combo, seq, bar);
}

void SignalLog::resume_later(const PublicationKey& key, std::string_view error) {
  spdlog::warn("stream {}.{}: signals resume with the next publication ({})", key.first, key.second,
               error);
}

}  // namespace wfod::daemon::loop
