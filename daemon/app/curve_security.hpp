// CURVE on the daemon's sockets ([curve], [[feed]] curve_server_key_file): the PUB and the
// snapshot socket are CURVE servers whose handshakes the daemon's ZAP handler
// (inproc://zeromq.zap.01) admits only for the public keys in clients_file; feed SUBs with a
// server key are CURVE clients. Keys come from files and are never logged.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "keygen.hpp"
#include "wfod/config/config.hpp"

namespace wfod::daemon {

inline constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
inline constexpr const char* kZapDomain = "wfod";
// The snapshot socket's domain: its handshakes reach the ZAP handler with or without CURVE,
// which refuses those past [daemon] max_snapshot_connections.
inline constexpr const char* kSnapshotZapDomain = "wfod-snapshot";

class CurveSecurity {
 public:
  // Reads the keypair and the clients list. Throws std::runtime_error naming the file (and
  // line) on a missing, unreadable or malformed file, or a libzmq without CURVE.
  explicit CurveSecurity(const config::CurveConfig& cfg);

  // Before bind(): CURVE server with our secret key, authenticated through ZAP.
  void make_server(zmq::socket_t& sock) const;
  // Before connect(): CURVE client of the server whose public key is in `server_key_file`.
  void make_client(zmq::socket_t& sock, const std::string& server_key_file) const;

  struct Decision {
    std::vector<std::string> reply;  // the ZAP reply frames
    bool admitted = false;
    std::string client;   // the client's public key (Z85): public, safe to log
    std::string address;  // its IP address, as libzmq gives it
  };
  // One ZAP request (RFC 27) -> its reply. Anything malformed is denied (status 400).
  Decision answer(const std::vector<std::string>& request) const;

  size_t clients() const { return clients_.size(); }
  const std::string& public_key() const { return keys_.public_z85; }

 private:
  net::CurveKeypair keys_;
  std::set<std::string> clients_;  // Z85 public keys
};

}  // namespace wfod::daemon
