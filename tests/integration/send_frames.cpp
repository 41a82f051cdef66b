// wfod_send_frames: a tiny ZeroMQ PUB for the integration tests, sending hand-made (often
// malformed) multipart messages to a daemon feed. It binds, waits for subscribers, sends each
// message given on the command line (messages separated by "--"), then lingers and exits.
// With --req it is a REQ client instead: one hand-made request (frames of any size, which
// wfo-sub's command line cannot carry) to a snapshot endpoint, the reply on stdout.
//
// usage: wfod_send_frames ENDPOINT WAIT_MS FRAME... [-- FRAME...]...
//        wfod_send_frames --req ENDPOINT TIMEOUT_MS FRAME...   (exit 0 reply, 3 none in time)
// FRAME: @FILE (the file's bytes) | rep:N:C (N bytes of C) | bin:TS,O,H,L,C,V,SEQ (the 64-byte
// PROTOCOL §1 binary record; "nan" parses) | anything else: the literal text.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "wfod/bar.hpp"
#include "wfod/feeds/bar_codec.hpp"

namespace {

bool frame_bytes(std::string_view spec, std::string& out) {
  if (spec.starts_with("@")) {
    std::ifstream in(std::string(spec.substr(1)), std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
  }
  if (spec.starts_with("rep:")) {
    const std::string rest(spec.substr(4));
    const size_t colon = rest.find(':');
    if (colon == std::string::npos || colon + 2 != rest.size()) return false;
    out.assign(std::strtoull(rest.c_str(), nullptr, 10), rest.back());
    return true;
  }
  if (spec.starts_with("bin:")) {
    std::vector<std::string> parts;
    std::stringstream ss{std::string(spec.substr(4))};
    for (std::string p; std::getline(ss, p, ',');) parts.push_back(p);
    if (parts.size() != 7) return false;
    wfod::Bar b;
    b.ts_ns = std::strtoll(parts[0].c_str(), nullptr, 10);
    b.open = std::strtod(parts[1].c_str(), nullptr);
    b.high = std::strtod(parts[2].c_str(), nullptr);
    b.low = std::strtod(parts[3].c_str(), nullptr);
    b.close = std::strtod(parts[4].c_str(), nullptr);
    b.volume = std::strtod(parts[5].c_str(), nullptr);
    b.seq = std::strtoull(parts[6].c_str(), nullptr, 10);
    out = wfod::feeds::encode_binary(b);
    return true;
  }
  out.assign(spec);
  return true;
}

int request(const char* endpoint, int timeout_ms, const std::vector<std::string>& frames) {
  zmq::context_t ctx;
  zmq::socket_t req(ctx, zmq::socket_type::req);
  req.set(zmq::sockopt::linger, 0);
  req.connect(endpoint);
  for (size_t f = 0; f < frames.size(); ++f) {
    const auto flags = f + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
    (void)req.send(zmq::buffer(frames[f]), flags);
  }
  zmq::pollitem_t item{req.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) {
    std::fprintf(stderr, "no reply within %d ms\n", timeout_ms);
    return 3;
  }
  zmq::message_t reply;
  (void)req.recv(reply);
  std::printf("%s\n", reply.to_string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 5 && std::string_view(argv[1]) == "--req") {
    std::vector<std::string> frames;
    for (int i = 4; i < argc; ++i) {
      std::string bytes;
      if (!frame_bytes(argv[i], bytes)) {
        std::fprintf(stderr, "bad frame spec: %s\n", argv[i]);
        return 2;
      }
      frames.push_back(std::move(bytes));
    }
    try {
      return request(argv[2], std::atoi(argv[3]), frames);
    } catch (const zmq::error_t& e) {
      std::fprintf(stderr, "zmq: %s\n", e.what());
      return 1;
    }
  }
  if (argc < 4) {
    std::fprintf(stderr, "usage: wfod_send_frames ENDPOINT WAIT_MS FRAME... [-- FRAME...]...\n");
    return 2;
  }
  std::vector<std::vector<std::string>> messages(1);
  for (int i = 3; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      messages.emplace_back();
      continue;
    }
    std::string bytes;
    if (!frame_bytes(arg, bytes)) {
      std::fprintf(stderr, "bad frame spec: %s\n", argv[i]);
      return 2;
    }
    messages.back().push_back(std::move(bytes));
  }
  try {
    zmq::context_t ctx;
    zmq::socket_t pub(ctx, zmq::socket_type::pub);
    pub.set(zmq::sockopt::linger, 2000);
    pub.set(zmq::sockopt::sndhwm, 0);
    pub.bind(argv[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(argv[2])));
    for (const auto& msg : messages) {
      for (size_t f = 0; f < msg.size(); ++f) {
        const auto flags = f + 1 < msg.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
        (void)pub.send(zmq::buffer(msg[f]), flags);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr, "zmq: %s\n", e.what());
    return 1;
  }
  return 0;
}
