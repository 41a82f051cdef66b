// wfod::client::Client: follows streams of one or several wfod daemons (docs/protocol.md
// "Consuming wfod"); the C++ twin of clients/python/wfod_client/client.py, same semantics.
//
// The zguide's clone pattern per stream: subscribe first, then ask the owning daemon `get`,
// apply only updates whose `seq` is greater than the snapshot's; a jump in `seq` (or a signal
// naming a publication not seen) is a gap: the update is applied (it is the whole state) and
// `get` asked again. Topics are compared whole (ZeroMQ filters are prefixes and symbols may
// contain `.`). A daemon is stale when nothing came from it (PUB traffic or a snapshot reply;
// a `health` probe is sent when it is quiet) for `stale_after`; its streams are reported
// stale, and re-synced with `get` when it is heard again (a restart: `seq` goes on
// increasing). Requests have deadlines and a REQ socket whose peer died is replaced, so
// nothing waits on a dead daemon.
//
// Single-threaded: call poll() from your loop; callbacks run inside it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "wfod/client/messages.hpp"
#include "wfod/client/requester.hpp"

namespace wfod::client {

// Where one daemon (a shard) is reached: its `[publish] endpoint` (PUB, or a proxy's XPUB
// shared by several shards) and its `[publish] snapshot` (ROUTER, asked with REQ).
struct DaemonEndpoints {
  std::string pub;
  std::string snapshot;
};

struct Options {
  // Also receive per-bar signals (PROTOCOL §2a).
  bool signals = true;
  // A daemon silent this long makes its streams stale.
  std::chrono::duration<double> stale_after{10.0};
  // A snapshot request without a reply this long is abandoned and its REQ socket replaced.
  std::chrono::duration<double> request_timeout{2.0};
  // Each new publication (snapshots included, `from_snapshot` true), in order per stream.
  std::function<void(const Publication&)> on_publication;
  // Each new signal, in bar order per stream.
  std::function<void(const Signal&)> on_signal;
  // (stream, true) when a stream becomes stale, (stream, false) when it is fresh again.
  std::function<void(const StreamKey&, bool)> on_stale;
};

class Client {
 public:
  // `daemons`: one endpoint pair per daemon; several may share one pub endpoint (a proxy):
  // snapshots are asked of the daemon whose `get` knows the stream (each is asked in turn).
  // `streams`: the (symbol, strategy) pairs to follow; nullopt follows every stream that
  // publishes (found through `list` and the PUB traffic). `context`: a ZeroMQ context that
  // outlives the client; without one the client owns its own.
  Client(std::vector<DaemonEndpoints> daemons, std::optional<std::vector<StreamKey>> streams,
         Options options = {}, zmq::context_t* context = nullptr)
      : options_(std::move(options)) {
    if (daemons.empty()) throw std::invalid_argument("wfod::client::Client: no daemon given");
    if (options_.stale_after.count() <= 0 || options_.request_timeout.count() <= 0) {
      throw std::invalid_argument(
          "wfod::client::Client: stale_after and request_timeout must be > 0");
    }
    if (context == nullptr) {
      own_context_ = std::make_unique<zmq::context_t>(1);
      context = own_context_.get();
    }
    context_ = context;
    const Clock::time_point now = Clock::now();
    for (auto& ep : daemons) {
      daemons_.push_back(std::make_unique<Daemon>(
          Daemon{ep, Requester(*context_, ep.snapshot, duration(options_.request_timeout)), now}));
    }
    follow_all_ = !streams.has_value();
    if (streams) {
      for (auto& key : *streams) streams_.try_emplace(key, Stream{key, now});
    }
    // One SUB per distinct pub endpoint; subscribed before any snapshot is asked.
    for (size_t i = 0; i < daemons_.size(); ++i) {
      const std::string& ep = daemons_[i]->endpoints.pub;
      auto it =
          std::find_if(subs_.begin(), subs_.end(), [&](const Sub& s) { return s.endpoint == ep; });
      if (it == subs_.end()) {
        Sub sub{ep, std::make_unique<zmq::socket_t>(*context_, zmq::socket_type::sub), {}};
        sub.socket->set(zmq::sockopt::linger, 0);
        sub.socket->set(zmq::sockopt::rcvhwm, 0);
        for (const std::string& prefix : prefixes())
          sub.socket->set(zmq::sockopt::subscribe, prefix);
        sub.socket->connect(ep);
        subs_.push_back(std::move(sub));
        it = subs_.end() - 1;
      }
      it->daemons.push_back(i);
    }
  }

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { close(); }

  // ----- queries -----

  // The streams followed (following every stream: those seen publishing so far), sorted.
  std::vector<StreamKey> streams() const {
    std::vector<StreamKey> out;
    for (const auto& [key, s] : streams_) out.push_back(key);
    return out;
  }

  // The newest publication of a stream, or nullptr before its first.
  const Publication* publication(const std::string& symbol, const std::string& strategy) const {
    const Stream* s = find(symbol, strategy);
    return s && s->publication ? &*s->publication : nullptr;
  }

  // The newest signal of a stream, or nullptr before its first.
  const Signal* last_signal(const std::string& symbol, const std::string& strategy) const {
    const Stream* s = find(symbol, strategy);
    return s && s->signal ? &*s->signal : nullptr;
  }

  // What the stream holds now: its newest signal's position, else its newest publication's;
  // nullopt when neither is known.
  std::optional<int> position(const std::string& symbol, const std::string& strategy) const {
    const Stream* s = find(symbol, strategy);
    if (s == nullptr) return std::nullopt;
    const auto& sig = s->signal;
    const auto& pub = s->publication;
    if (sig && (!pub || !pub->position_ts || sig->ts >= *pub->position_ts)) return sig->position;
    return pub ? pub->position : std::nullopt;
  }

  // True while the stream's daemon has been silent for stale_after (or, for a stream no
  // daemon has claimed yet, since the client started).
  bool is_stale(const std::string& symbol, const std::string& strategy) const {
    const Stream* s = find(symbol, strategy);
    return s == nullptr || s->stale;
  }

  // The streams that are stale now, sorted.
  std::vector<StreamKey> stale_streams() const {
    std::vector<StreamKey> out;
    for (const auto& [key, s] : streams_) {
      if (s.stale) out.push_back(key);
    }
    return out;
  }

  // Seq jumps seen (each followed by a fresh get).
  uint64_t gaps() const { return gaps_; }
  // Get replies applied after the first of a stream.
  uint64_t resyncs() const { return resyncs_; }
  // Snapshot requests that got no reply in time, over every daemon.
  uint64_t request_timeouts() const {
    uint64_t n = 0;
    for (const auto& d : daemons_) n += d->requester.timeouts();
    return n;
  }

  // ----- the loop -----

  // Receives and applies what arrives within `timeout` (at least one pass); returns how many
  // publications and signals were delivered.
  int poll(std::chrono::milliseconds timeout = std::chrono::milliseconds(100)) {
    if (closed_) throw std::logic_error("wfod::client::Client: closed");
    const Clock::time_point deadline =
        Clock::now() + std::max(timeout, std::chrono::milliseconds(0));
    int delivered = 0;
    while (true) {
      Clock::time_point now = Clock::now();
      housekeeping(now);
      std::vector<zmq::pollitem_t> items;
      for (auto& sub : subs_) items.push_back({sub.socket->handle(), 0, ZMQ_POLLIN, 0});
      std::vector<size_t> requesters;  // daemon index of each item past the subs
      for (size_t i = 0; i < daemons_.size(); ++i) {
        if (zmq::socket_t* sock = daemons_[i]->requester.socket()) {
          items.push_back({sock->handle(), 0, ZMQ_POLLIN, 0});
          requesters.push_back(i);
        }
      }
      // Wake at least every 50 ms for deadlines and staleness.
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      const auto wait =
          std::clamp(left, std::chrono::milliseconds(0), std::chrono::milliseconds(50));
      zmq::poll(items, wait);
      for (size_t k = 0; k < items.size(); ++k) {
        if (!(items[k].revents & ZMQ_POLLIN)) continue;
        if (k < subs_.size()) {
          delivered += drain(subs_[k]);
        } else {
          daemons_[requesters[k - subs_.size()]]->requester.on_readable();
        }
      }
      if (Clock::now() >= deadline) {
        housekeeping(Clock::now());
        return delivered;
      }
    }
  }

  // Closes every socket. The client cannot be used afterwards.
  void close() {
    if (closed_) return;
    closed_ = true;
    for (auto& d : daemons_) d->requester.close();
    subs_.clear();
  }

 private:
  struct Daemon {
    DaemonEndpoints endpoints;
    Requester requester;
    Clock::time_point last_heard;
    bool stale = false;
    Clock::time_point next_list_at{};
  };

  struct Stream {
    StreamKey key;
    Clock::time_point created;
    std::optional<size_t> owner{};      // daemon index: the one whose get knows the stream
    size_t ask_next = 0;                // while the owner is unknown: the daemon to ask next
    std::optional<int64_t> last_seq{};  // nullopt until a snapshot (0: it has none yet)
    std::optional<Publication> publication{};
    std::optional<Signal> signal{};
    std::vector<nlohmann::json> buffered{};
    bool get_in_flight = false;
    bool get_wanted = true;
    Clock::time_point next_get_at{};
    bool stale = false;
  };

  struct Sub {
    std::string endpoint;
    std::unique_ptr<zmq::socket_t> socket;
    std::vector<size_t> daemons;  // the daemons publishing there
  };

  static Clock::duration duration(std::chrono::duration<double> d) {
    return std::chrono::duration_cast<Clock::duration>(d);
  }

  const Stream* find(const std::string& symbol, const std::string& strategy) const {
    auto it = streams_.find(StreamKey{symbol, strategy});
    return it == streams_.end() ? nullptr : &it->second;
  }

  std::vector<std::string> prefixes() const {
    if (follow_all_) {
      std::vector<std::string> kinds{std::string(kParamsPrefix)};
      if (options_.signals) kinds.emplace_back(kSignalPrefix);
      return kinds;
    }
    // Narrows the traffic; the whole-topic comparison in on_message decides.
    std::vector<std::string> out;
    for (const auto& [key, s] : streams_) {
      out.push_back(key.params_topic());
      if (options_.signals) out.push_back(key.signal_topic());
    }
    return out;
  }

  void heard(size_t d_index, Clock::time_point now) {
    Daemon& d = *daemons_[d_index];
    d.last_heard = now;
    if (d.stale) {
      // Back (a restart, a network cut healed): what was missed comes from get.
      d.stale = false;
      d.next_list_at = {};
      for (auto& [key, s] : streams_) {
        if (s.owner == d_index) s.get_wanted = true;
      }
    }
  }

  void housekeeping(Clock::time_point now) {
    const Clock::duration stale_after = duration(options_.stale_after);
    const Clock::duration probe_after = stale_after / 3;
    for (size_t i = 0; i < daemons_.size(); ++i) {
      Daemon& d = *daemons_[i];
      d.requester.check_deadline(now);
      if (!d.stale && now - d.last_heard > stale_after) d.stale = true;
      // A quiet daemon is asked for its health: a reply is a sign of life.
      if (now - d.last_heard > probe_after && !d.requester.busy()) {
        d.requester.submit({"health"}, [this, i](std::optional<nlohmann::json> r) {
          if (r) heard(i, Clock::now());
        });
      }
      // Following every stream: "list" names those that have published, again and again (a
      // new stream shows up in it after its first publication).
      if (follow_all_ && now >= d.next_list_at && !d.requester.busy()) ask_list(i);
    }
    for (auto& [key, s] : streams_) {
      if (s.get_wanted && !s.get_in_flight && now >= s.next_get_at) {
        if (s.owner) {
          ask_get(s, *s.owner);
        } else {
          // Which daemon has it: each in turn until one's get knows the stream (a payload,
          // or "no publication yet"; others say "unknown stream").
          const size_t d = s.ask_next % daemons_.size();
          ++s.ask_next;
          ask_get(s, d);
        }
      }
      const bool stale = s.owner ? daemons_[*s.owner]->stale : now - s.created > stale_after;
      if (stale != s.stale) {
        s.stale = stale;
        if (options_.on_stale) options_.on_stale(s.key, stale);
      }
    }
  }

  void ask_list(size_t d_index) {
    Daemon& d = *daemons_[d_index];
    d.next_list_at = Clock::now() + std::max(duration(std::chrono::duration<double>(1.0)),
                                             duration(options_.stale_after) / 3);
    d.requester.submit({"list"}, [this, d_index](std::optional<nlohmann::json> r) {
      on_list(d_index, std::move(r));
    });
  }

  void on_list(size_t d_index, std::optional<nlohmann::json> reply) {
    if (!reply) return;
    const auto list = reply->find("streams");
    if (list == reply->end() || !list->is_array()) return;
    const Clock::time_point now = Clock::now();
    heard(d_index, now);
    for (const auto& item : *list) {
      if (!item.is_object()) continue;
      const auto sym = item.find("symbol");
      const auto strat = item.find("strategy");
      if (sym == item.end() || strat == item.end() || !sym->is_string() || !strat->is_string()) {
        continue;
      }
      StreamKey key{sym->get<std::string>(), strat->get<std::string>()};
      auto it = streams_.find(key);
      if (it == streams_.end()) {
        if (!follow_all_) continue;
        it = streams_.try_emplace(key, Stream{key, now}).first;
      }
      Stream& s = it->second;
      if (s.owner != d_index) {
        s.owner = d_index;
        s.get_wanted = true;
      }
      if (!s.last_seq) s.get_wanted = true;
    }
  }

  void ask_get(Stream& s, size_t d_index) {
    s.get_in_flight = true;
    s.get_wanted = false;
    daemons_[d_index]->requester.submit(
        {"get", s.key.symbol, s.key.strategy},
        [this, key = s.key, d_index](std::optional<nlohmann::json> r) {
          auto it = streams_.find(key);
          if (it != streams_.end()) on_get(it->second, d_index, std::move(r));
        });
  }

  void on_get(Stream& s, size_t d_index, std::optional<nlohmann::json> reply) {
    s.get_in_flight = false;
    const Clock::time_point now = Clock::now();
    const size_t n = daemons_.size();
    if (!reply) {  // no reply in time: asked again (another daemon, if unowned)
      s.get_wanted = true;
      if (s.owner || s.ask_next % n == 0) {
        s.next_get_at = now + std::min(duration(std::chrono::duration<double>(1.0)),
                                       duration(options_.request_timeout));
      }
      return;
    }
    heard(d_index, now);
    if (const auto err = reply->find("error"); err != reply->end()) {
      const std::string error = err->is_string() ? err->get<std::string>() : err->dump();
      if (error.rfind("unknown stream", 0) == 0) {
        // Not this daemon's (or no longer: moved to another shard): ask the next, pausing
        // after a round of all.
        s.owner.reset();
        s.get_wanted = true;
        if (s.ask_next % n == 0) {
          s.next_get_at = now + std::max(duration(std::chrono::duration<double>(1.0)),
                                         duration(options_.stale_after) / 3);
        }
        return;
      }
      s.owner = d_index;
      if (!s.last_seq) s.last_seq = 0;  // "no publication yet": every update is new
    } else {
      std::optional<Publication> pub;
      try {
        pub = Publication::from_payload(*reply, /*from_snapshot=*/true);
      } catch (const std::exception&) {
        s.get_wanted = true;
        s.next_get_at = now + duration(std::chrono::duration<double>(1.0));
        return;
      }
      s.owner = d_index;
      if (!s.last_seq || pub->seq > *s.last_seq) {
        if (s.last_seq) ++resyncs_;
        s.last_seq = pub->seq;
        deliver_publication(s, std::move(*pub));
      }
    }
    std::vector<nlohmann::json> buffered = std::move(s.buffered);
    s.buffered.clear();
    std::stable_sort(buffered.begin(), buffered.end(),
                     [](const auto& a, const auto& b) { return seq_of(a) < seq_of(b); });
    for (const auto& payload : buffered) apply_update(s, payload);
  }

  static int64_t seq_of(const nlohmann::json& payload) {
    const auto it = payload.find("seq");
    return it != payload.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  }

  int drain(Sub& sub) {
    int delivered = 0;
    while (true) {
      std::vector<zmq::message_t> parts;
      zmq::message_t part;
      if (!sub.socket->recv(part, zmq::recv_flags::dontwait)) return delivered;
      bool more = part.more();
      parts.push_back(std::move(part));
      while (more) {
        zmq::message_t next;
        if (!sub.socket->recv(next, zmq::recv_flags::none)) break;
        more = next.more();
        parts.push_back(std::move(next));
      }
      const Clock::time_point now = Clock::now();
      if (sub.daemons.size() == 1) heard(sub.daemons[0], now);
      if (parts.size() == 2)
        delivered +=
            on_message(parts[0].to_string_view(), parts[1].to_string_view(), sub.daemons, now);
    }
  }

  int on_message(std::string_view topic, std::string_view payload_text,
                 const std::vector<size_t>& daemons, Clock::time_point now) {
    const auto parsed = parse_topic(topic);
    if (!parsed) return 0;
    const auto& [kind, key] = *parsed;
    if (kind == TopicKind::signal && !options_.signals) return 0;
    auto it = streams_.find(key);
    if (it == streams_.end()) {
      if (!follow_all_) return 0;  // another stream whose topic starts like ours (BRK.B vs BRK.B.x)
      it = streams_.try_emplace(key, Stream{key, now}).first;
      if (daemons.size() == 1) it->second.owner = daemons[0];
    }
    Stream& s = it->second;
    if (s.owner) heard(*s.owner, now);
    nlohmann::json payload =
        nlohmann::json::parse(payload_text, nullptr, /*allow_exceptions=*/false);
    if (!payload.is_object()) return 0;
    return kind == TopicKind::params ? apply_update(s, payload) : apply_signal(s, payload);
  }

  int apply_update(Stream& s, const nlohmann::json& payload) {
    if (!s.last_seq) {
      s.buffered.push_back(payload);  // before the snapshot: kept, applied after it
      return 0;
    }
    std::optional<Publication> pub;
    try {
      pub = Publication::from_payload(payload);
    } catch (const std::exception&) {
      return 0;
    }
    if (pub->seq <= *s.last_seq) return 0;  // the snapshot (or an earlier update) has it
    if (pub->seq != *s.last_seq + 1) gap(s);
    s.last_seq = pub->seq;
    deliver_publication(s, std::move(*pub));
    return 1;
  }

  int apply_signal(Stream& s, const nlohmann::json& payload) {
    std::optional<Signal> sig;
    try {
      sig = Signal::from_payload(payload);
    } catch (const std::exception&) {
      return 0;
    }
    if (s.signal && sig->ts <= s.signal->ts) return 0;
    if (s.last_seq && sig->params_seq > *s.last_seq && !s.get_in_flight && !s.get_wanted) {
      gap(s);  // it follows a publication this client has not seen
    }
    s.signal = std::move(*sig);
    if (options_.on_signal) options_.on_signal(*s.signal);
    return 1;
  }

  void gap(Stream& s) {
    ++gaps_;
    if (s.owner && !s.get_in_flight) {
      s.get_wanted = true;
      s.next_get_at = {};
    }
  }

  void deliver_publication(Stream& s, Publication pub) {
    s.publication = std::move(pub);
    if (options_.on_publication) options_.on_publication(*s.publication);
  }

  Options options_;
  std::unique_ptr<zmq::context_t> own_context_;  // declared before the sockets: outlives them
  zmq::context_t* context_ = nullptr;
  std::vector<std::unique_ptr<Daemon>> daemons_;
  std::vector<Sub> subs_;
  std::map<StreamKey, Stream> streams_;
  bool follow_all_ = false;
  bool closed_ = false;
  uint64_t gaps_ = 0;
  uint64_t resyncs_ = 0;
};

}  // namespace wfod::client
