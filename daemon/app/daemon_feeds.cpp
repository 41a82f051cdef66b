// The loop's feed side: ZeroMQ SUB sockets drained in batches into the BarKeeper (bars
// validated, staged, committed per the fsync policy: core/bar_keeper.cpp; the streams then
// hear of them through the RunDispatcher), the storage checks, and the keeper's log lines.

#include "daemon_impl.hpp"

namespace wfod::daemon::loop {

void Daemon::arm_feed(WatchedSocket& f) {
  f.fd.async_wait(asio::posix::stream_descriptor::wait_read,
                  [this, &f](const boost::system::error_code& ec) {
                    if (ec || stopping_) return;
                    drain_feed(f);
                  });
}

void Daemon::drain_feed(WatchedSocket& f) {
  // ZMQ_FD is edge-triggered: read until ZMQ_EVENTS says nothing is left, then re-arm. A
  // flood is cut into batches so snapshot requests and signals are served in between;
  // the rest is read by a posted continuation, since the FD will not signal it again.
  size_t received = 0;
  batch_received_ = Clock::now();
  // Reused across messages: no allocation per bar once their capacity is reached.
  std::vector<zmq::message_t> parts;
  std::vector<std::string_view> frames;
  try {
    while (received < kMaxIngestBatch && f.readable()) {
      parts.clear();
      const auto n =
          zmq::recv_multipart(f.sock, std::back_inserter(parts), zmq::recv_flags::dontwait);
      if (!n) break;
      ++received;
      frames.clear();
      for (const auto& p : parts) frames.push_back(p.to_string_view());
      on_message(frames, f);
    }
  } catch (const zmq::error_t& e) {
    spdlog::error("feed {}: receive: {}", f.endpoint, e.what());
  }
  if (received > 0) f.link.message(batch_received_);
  // The batch's bars are written (and synced per policy) before the loop serves anything
  // else: no health reply or publication can see a bar the log does not hold.
  keeper_.commit();
  if (received == kMaxIngestBatch) {
    asio::post(io_, [this, &f] {
      if (!stopping_) drain_feed(f);
    });
  } else {
    arm_feed(f);
  }
}

void Daemon::on_feed_event(WatchedSocket& f, const SocketEvent& e) {
  switch (e.event) {
    case ZMQ_EVENT_CONNECTED:
      f.link.connected();
      spdlog::info("feed {}: connected", f.endpoint);
      break;
    case ZMQ_EVENT_CONNECT_DELAYED:
    case ZMQ_EVENT_CONNECT_RETRIED:
      f.link.connecting();
      break;
    case ZMQ_EVENT_DISCONNECTED: {
      f.link.disconnected(Clock::now());
      const auto d = feed_log_.on_reject();
      if (d.log)
        spdlog::warn("feed {}: disconnected ({} so far){}", f.endpoint, f.link.disconnects(),
                     not_logged_note(d.suppressed));
      break;
    }
    default:
      break;
  }
  arm_feed_check();
}

void Daemon::arm_feed_check() {
  std::optional<Clock::time_point> at;
  for (const auto& f : feeds_) {
    if (const auto c = f->link.check_at(); c && (!at || *c < *at)) at = c;
  }
  if (!at || stopping_) return;
  feed_timer_.expires_at(*at);  // a wait already pending ends as aborted
  feed_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping_) return;
    check_feeds();
  });
}

void Daemon::check_feeds() {
  const auto now = Clock::now();
  for (auto& f : feeds_) {
    if (!f->link.reconnect_due(now)) continue;
    // libzmq ended the session without a reconnect (libzmq 4.3 treats a frame over
    // maxmsgsize as a protocol error and gives the endpoint up): connect it again.
    spdlog::error(
        "feed {}: its session ended and libzmq did not reconnect (a protocol error: a frame "
        "over 16 MiB, a malformed handshake): connecting again (re-connect {}; the next, if "
        "this one ends the same way, after {} s)",
        f->endpoint, f->link.reconnects(),
        std::chrono::duration_cast<std::chrono::seconds>(f->link.backoff()).count());
    try {
      f->sock.disconnect(f->endpoint);
    } catch (const zmq::error_t&) {
      // ENOENT: libzmq already forgot the endpoint with its session
    }
    try {
      f->sock.connect(f->endpoint);
    } catch (const zmq::error_t& e) {
      spdlog::error("feed {}: connect: {}; tried again after {} s", f->endpoint, e.what(),
                    std::chrono::duration_cast<std::chrono::seconds>(f->link.backoff()).count());
    }
  }
  arm_feed_check();
}

void Daemon::log_reject(const feeds::Reject& r, std::string_view where, std::string_view feed) {
  const auto d = reject_log_.on_reject();
  if (!d.log) return;
  if (d.suppressed > 0) {
    spdlog::warn("feed reject reason={} source={} feed={} detail=\"{}\" not_logged={}",
                 to_string(r.reason), where, feed, r.detail, d.suppressed);
  } else {
    spdlog::warn("feed reject reason={} source={} feed={} detail=\"{}\"", to_string(r.reason),
                 where, feed, r.detail);
  }
}

void Daemon::log_gap(const feeds::SeqGap& g, std::string_view symbol, std::string_view feed) {
  // Rate-limited like rejects: a publisher whose every bar is a gap (a seq alternating
  // 1, 1001, 1 ...) wrote one line per bar. Health `gaps` counts the missing bars anyway.
  const auto d = gap_log_.on_reject();
  if (!d.log) return;
  if (d.suppressed > 0) {
    spdlog::warn(
        "feed gap symbol={} expected_seq={} got_seq={} missing={} backwards={} feed={} "
        "not_logged={}",
        symbol, g.expected, g.got, g.missing, g.backwards, feed, d.suppressed);
  } else {
    spdlog::warn("feed gap symbol={} expected_seq={} got_seq={} missing={} backwards={} feed={}",
                 symbol, g.expected, g.got, g.missing, g.backwards, feed);
  }
}

void Daemon::on_message(std::span<const std::string_view> frames, const WatchedSocket& feed) {
  const IngestOutcome out = keeper_.on_message(frames, feed.format);
  if (out.reject) {
    log_reject(*out.reject, out.symbol.empty() ? std::string_view("decode") : out.symbol,
               feed.endpoint);
    return;
  }
  if (out.gap) log_gap(*out.gap, out.symbol, feed.endpoint);
  if (out.refused) {
    spdlog::error("symbol {}: bar not stored (feed {}): {}", out.symbol, feed.endpoint,
                  out.refused->message);
  }
}

void Daemon::arm_storage_check() {
  storage_timer_.expires_after(std::chrono::seconds(1));
  storage_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping_) return;
    check_storage();
    arm_storage_check();
  });
}

void Daemon::check_storage() {
  // The directory: removed, replaced, or no longer taking new files (chmod). The open logs
  // still take writes then, so nothing else would say so.
  if (const std::string problem = state_dir_->check(); !problem.empty()) {
    if (const StorageAlarms::Decision d = storage_alarms_.raise("state_dir", problem); d.log)
      spdlog::error(
          "{}: publication sequence numbers, live state and checkpoints cannot be written; "
          "health degraded{}",
          problem, not_logged_note(d.suppressed));
  } else if (storage_alarms_.clear("state_dir")) {
    spdlog::info("state_dir {} takes writes again", state_dir_->path());
  }
  keeper_.check_files();
  if (live_writer_ && !live_writer_->failing() && storage_alarms_.clear("live state"))
    spdlog::info("live state is saved again");
}

}  // namespace wfod::daemon::loop
