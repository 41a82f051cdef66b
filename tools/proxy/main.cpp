// wfo-proxy: one endpoint for the consumers of several wfod shards. A ZeroMQ XSUB connected to
// every shard's [publish] endpoint, an XPUB bound for the consumers, forwarded by
// zmq_proxy_steerable: publications and signals downstream, subscriptions upstream. Snapshots
// are not proxied: clients ask each shard (docs/operations.md "Sharding"). A supervisor thread
// serves /healthz and /metrics (--http), follows the connections through socket monitors and
// stops the forwarder cleanly on SIGTERM / SIGINT (TERMINATE on its control socket).
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "proxy_options.hpp"
#include "proxy_status.hpp"
#include "wfo/args.hpp"
#include "wfo/tool_main.hpp"
#include "wfod/config/endpoint.hpp"
#include "wfod/version.hpp"

namespace {

constexpr std::string_view kUsage =
    R"(usage: wfo-proxy --upstream EP[,EP...] --bind EP [--http HOST:PORT] [options]
Forwards the publications and per-bar signals of several wfod shards to one endpoint
(ZeroMQ XSUB/XPUB, zmq_proxy_steerable); consumers' subscriptions go up to every shard.
Snapshots (get, list, health) are asked of each shard directly, not through the proxy.
  --upstream EP,...   each shard's [publish] endpoint (the proxy connects), comma-separated
  --bind EP           the endpoint consumers connect to, e.g. tcp://0.0.0.0:5570
  --http HOST:PORT    serve GET /healthz and /metrics (Prometheus) there; default: none
  --sndhwm N          messages queued per consumer before ZeroMQ drops (0 = no limit).
                      Default 10000, like wfod's [publish] sndhwm
  --rcvhwm N          messages queued per shard connection. Default 100000
  --help, --version   this text, or the version (exit 0)
/healthz: 200 "ok" while the forwarder runs and every upstream is connected, 503
"degraded: ..." naming what is not. /metrics: wfo_proxy_messages_total and
wfo_proxy_bytes_total{direction="downstream|upstream"}, wfo_proxy_upstream_connected{endpoint},
wfo_proxy_upstream_disconnects_total, wfo_proxy_consumers, wfo_proxy_up, wfo_proxy_build_info.
Stops on SIGTERM or SIGINT.
Exit: 0 stopped by a signal, 1 runtime error (cannot bind or connect, the forwarder failed),
2 usage error (a bad flag or endpoint; the message names the flag).
)";

constexpr const char* kControl = "inproc://wfo-proxy-control";
constexpr const char* kMonitorUp = "inproc://wfo-proxy-monitor-upstream";
constexpr const char* kMonitorDown = "inproc://wfo-proxy-monitor-consumers";

// Exit 2 for an endpoint ZeroMQ cannot parse or whose transport it lacks; 1 otherwise (in use,
// no permission: the flag was fine, the machine refused).
int exit_code_of(const zmq::error_t& e) {
  const int n = e.num();
  return n == EINVAL || n == EPROTONOSUPPORT || n == ENODEV || n == ENOCOMPATPROTO ? 2 : 1;
}

// "tcp://HOST:PORT" as the monitor names a connection: the numeric address. Each upstream
// answers to its own text and to every address its host resolves to.
std::map<std::string, std::string> upstream_aliases(const std::vector<std::string>& upstreams) {
  std::map<std::string, std::string> out;
  for (const std::string& ep : upstreams) {
    out[ep] = ep;
    if (ep.rfind("tcp://", 0) != 0) continue;
    const auto hp = wfod::config::parse_host_port(std::string_view(ep).substr(6));
    if (!hp) continue;
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(hp->first.c_str(), nullptr, &hints, &res) != 0) continue;
    for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
      char host[NI_MAXHOST];
      if (getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof host, nullptr, 0, NI_NUMERICHOST) ==
          0) {
        // Appended piece by piece: GCC 12's -Wrestrict misfires on "[" + std::string(...).
        std::string key = "tcp://";
        if (a->ai_family == AF_INET6) key += '[';
        key += host;
        if (a->ai_family == AF_INET6) key += ']';
        key += ':';
        key += std::to_string(hp->second);
        out[key] = ep;
      }
    }
    freeaddrinfo(res);
  }
  return out;
}

// The HTTP listener (--http): a blocking TCP socket; -1 and `error` set when it cannot bind.
int listen_http(const std::string& address, std::string& error) {
  const auto hp = wfod::config::parse_host_port(address);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(hp->second);
  if (const int rc = getaddrinfo(hp->first.c_str(), port.c_str(), &hints, &res); rc != 0) {
    error = gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
      error = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

class Supervisor {
 public:
  Supervisor(zmq::context_t& ctx, const wfod::proxy::Options& o, int http_fd, int signal_fd)
      : control_(ctx, zmq::socket_type::pair),
        monitor_up_(ctx, zmq::socket_type::pair),
        monitor_down_(ctx, zmq::socket_type::pair),
        aliases_(upstream_aliases(o.upstreams)),
        http_fd_(http_fd),
        signal_fd_(signal_fd),
        start_(std::chrono::steady_clock::now()) {
    for (const std::string& ep : o.upstreams) status_.upstreams[ep] = false;
    control_.set(zmq::sockopt::rcvtimeo, 1000);
    control_.set(zmq::sockopt::sndtimeo, 1000);
    control_.set(zmq::sockopt::linger, 0);
    control_.connect(kControl);
    monitor_up_.connect(kMonitorUp);
    monitor_down_.connect(kMonitorDown);
  }

  // Runs until SIGTERM / SIGINT, then tells the forwarder to stop.
  void run() {
    while (true) {
      std::array<zmq::pollitem_t, 4> items{{{monitor_up_.handle(), 0, ZMQ_POLLIN, 0},
                                            {monitor_down_.handle(), 0, ZMQ_POLLIN, 0},
                                            {nullptr, signal_fd_, ZMQ_POLLIN, 0},
                                            {nullptr, http_fd_, ZMQ_POLLIN, 0}}};
      zmq::poll(items.data(), http_fd_ >= 0 ? 4 : 3, std::chrono::milliseconds(-1));
      if (items[0].revents & ZMQ_POLLIN) on_event(monitor_up_, true);
      if (items[1].revents & ZMQ_POLLIN) on_event(monitor_down_, false);
      if (items[2].revents & ZMQ_POLLIN) {
        signalfd_siginfo si{};
        if (::read(signal_fd_, &si, sizeof si) == sizeof si) {
          std::fprintf(stderr, "wfo-proxy: %s: stopping\n",
                       strsignal(static_cast<int>(si.ssi_signo)));
        }
        (void)control_.send(zmq::str_buffer("TERMINATE"), zmq::send_flags::none);
        return;
      }
      if (http_fd_ >= 0 && (items[3].revents & ZMQ_POLLIN)) serve_http();
    }
  }

 private:
  // A monitor event: [uint16 event, uint32 value][address].
  void on_event(zmq::socket_t& monitor, bool upstream) {
    zmq::message_t head, address;
    if (!monitor.recv(head, zmq::recv_flags::dontwait)) return;
    if (!head.more() || !monitor.recv(address)) return;
    uint16_t event = 0;
    if (head.size() >= sizeof event) std::memcpy(&event, head.data(), sizeof event);
    if (upstream) {
      const auto alias = aliases_.find(address.to_string());
      const std::string ep = alias == aliases_.end() ? address.to_string() : alias->second;
      if (event == ZMQ_EVENT_CONNECTED) {
        if (!status_.upstreams[ep])
          std::fprintf(stderr, "wfo-proxy: upstream %s connected\n", ep.c_str());
        status_.upstreams[ep] = true;
      } else if (event == ZMQ_EVENT_DISCONNECTED) {
        if (status_.upstreams[ep]) {
          ++status_.upstream_disconnects;
          std::fprintf(stderr, "wfo-proxy: upstream %s disconnected\n", ep.c_str());
        }
        status_.upstreams[ep] = false;
      }
    } else if (event == ZMQ_EVENT_ACCEPTED) {
      ++status_.consumers;
    } else if (event == ZMQ_EVENT_DISCONNECTED) {
      --status_.consumers;
    }
  }

  // The forwarder's counters, asked on its control socket.
  void refresh_stats() {
    status_.stats_ok = false;
    if (!control_.send(zmq::str_buffer("STATISTICS"), zmq::send_flags::none)) return;
    std::array<uint64_t, 8> v{};
    for (size_t i = 0; i < v.size(); ++i) {
      zmq::message_t part;
      if (!control_.recv(part)) return;
      if (part.size() == sizeof(uint64_t)) std::memcpy(&v[i], part.data(), sizeof(uint64_t));
      if (!part.more() && i + 1 < v.size()) return;
    }
    auto& s = status_.stats;
    s = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    status_.stats_ok = true;
  }

  // One request, answered and closed; a client that sends nothing for 1 s is dropped.
  void serve_http() {
    const int fd = ::accept4(http_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    std::string head;
    char buf[2048];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 16384) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      head.append(buf, static_cast<size_t>(n));
    }
    refresh_stats();
    status_.uptime_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string reply = wfod::proxy::http_response(head, status_, wfod::kVersionText);
    size_t sent = 0;
    while (sent < reply.size()) {
      const ssize_t n = ::send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::close(fd);
  }

  zmq::socket_t control_, monitor_up_, monitor_down_;
  std::map<std::string, std::string> aliases_;  // address as the monitor names it -> upstream
  int http_fd_, signal_fd_;
  std::chrono::steady_clock::time_point start_;
  wfod::proxy::ProxyStatus status_;
};

int run(const wfod::proxy::Options& o, int signal_fd) {
  zmq::context_t ctx(1);
  zmq::socket_t xsub(ctx, zmq::socket_type::xsub), xpub(ctx, zmq::socket_type::xpub),
      control(ctx, zmq::socket_type::pair);
  xsub.set(zmq::sockopt::rcvhwm, o.rcvhwm);
  xsub.set(zmq::sockopt::linger, 0);
  xpub.set(zmq::sockopt::sndhwm, o.sndhwm);
  xpub.set(zmq::sockopt::linger, 0);
  control.bind(kControl);
  // Monitors first, so the first connections are seen.
  zmq_socket_monitor(xsub.handle(), kMonitorUp, ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED);
  zmq_socket_monitor(xpub.handle(), kMonitorDown, ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED);
  try {
    xpub.bind(o.bind);
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr, "wfo-proxy: --bind %s: cannot bind: %s\n", o.bind.c_str(), e.what());
    return exit_code_of(e);
  }
  for (const std::string& ep : o.upstreams) {
    // ZeroMQ resolves a host name in the background and retries forever: a name that does
    // not exist is said now. (A temporary DNS failure is not: ZeroMQ goes on trying.)
    if (const auto hp = ep.rfind("tcp://", 0) == 0
                            ? wfod::config::parse_host_port(std::string_view(ep).substr(6))
                            : std::nullopt) {
      addrinfo hints{};
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* res = nullptr;
      const int rc = getaddrinfo(hp->first.c_str(), nullptr, &hints, &res);
      if (res != nullptr) freeaddrinfo(res);
      if (rc == EAI_NONAME) {
        std::fprintf(stderr, "wfo-proxy: --upstream %s: cannot connect: cannot resolve %s: %s\n",
                     ep.c_str(), hp->first.c_str(), gai_strerror(rc));
        return 2;
      }
    }
    try {
      xsub.connect(ep);
    } catch (const zmq::error_t& e) {
      std::fprintf(stderr, "wfo-proxy: --upstream %s: cannot connect: %s\n", ep.c_str(), e.what());
      return exit_code_of(e);
    }
  }
  int http_fd = -1;
  if (!o.http.empty()) {
    std::string error;
    http_fd = listen_http(o.http, error);
    if (http_fd < 0) {
      std::fprintf(stderr, "wfo-proxy: --http %s: cannot bind: %s\n", o.http.c_str(),
                   error.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "wfo-proxy %s: forwarding %zu upstream(s) to %s%s%s\n", wfod::kVersionText,
               o.upstreams.size(), xpub.get(zmq::sockopt::last_endpoint).c_str(),
               o.http.empty() ? "" : ", http on ", o.http.c_str());
  Supervisor supervisor(ctx, o, http_fd, signal_fd);
  std::thread supervising([&] { supervisor.run(); });
  int code = 0;
  try {
    zmq::proxy_steerable(xsub, xpub, zmq::socket_ref(), control);
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr, "wfo-proxy: the forwarder failed: %s\n", e.what());
    code = 1;
    ::kill(::getpid(), SIGTERM);  // the supervisor stops on it
  }
  supervising.join();
  if (http_fd >= 0) ::close(http_fd);
  std::fprintf(stderr, "wfo-proxy: stopped exit=%d\n", code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (auto done = wfod::cli::answer_help_or_version(args, "wfo-proxy", kUsage)) return *done;
  const auto parsed = wfod::cli::parse_tool_options(args, "wfo-proxy", wfod::proxy::parse_options);
  if (!parsed) return wfod::cli::kExitUsageError;
  const wfod::proxy::Options& options = *parsed;
  // SIGTERM / SIGINT go to the supervisor's signalfd: blocked in every thread from here on.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const int signal_fd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
  if (signal_fd < 0) {
    std::fprintf(stderr, "wfo-proxy: signalfd: %s\n", std::strerror(errno));
    return 1;
  }
  try {
    return run(options, signal_fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wfo-proxy: %s\n", e.what());
    return 1;
  }
}
