// CURVE socket options and the ZAP decision: a handshake is admitted only for mechanism CURVE
// and a client public key listed in [curve] clients_file.
#include "curve_security.hpp"

#include <zmq.h>

#include <stdexcept>

namespace wfod::daemon {

CurveSecurity::CurveSecurity(const config::CurveConfig& cfg) {
  if (zmq_has("curve") == 0) {
    throw std::runtime_error("[curve] is configured but this libzmq has no CURVE support");
  }
  keys_ = read_checked_keypair(cfg.key_file);
  for (const std::string& k : net::read_public_keys(cfg.clients_file)) clients_.insert(k);
  if (clients_.empty()) {
    throw std::runtime_error(cfg.clients_file + ": no client public key: nobody could connect");
  }
}

void CurveSecurity::make_server(zmq::socket_t& sock) const {
  sock.set(zmq::sockopt::curve_server, 1);
  sock.set(zmq::sockopt::curve_secretkey, keys_.secret_z85);
  sock.set(zmq::sockopt::zap_domain, kZapDomain);
}

void CurveSecurity::make_client(zmq::socket_t& sock, const std::string& server_key_file) const {
  sock.set(zmq::sockopt::curve_serverkey, net::read_public_key(server_key_file));
  sock.set(zmq::sockopt::curve_publickey, keys_.public_z85);
  sock.set(zmq::sockopt::curve_secretkey, keys_.secret_z85);
}

CurveSecurity::Decision CurveSecurity::answer(const std::vector<std::string>& req) const {
  Decision d;
  // [version, request_id, domain, address, routing_id, mechanism, credentials...]
  const std::string request_id = req.size() > 1 ? req[1] : std::string();
  auto reply = [&](const char* code, const char* text) {
    d.reply = {"1.0", request_id, code, text, d.admitted ? d.client : std::string(), ""};
  };
  if (req.size() < 6 || req[0] != "1.0") {
    reply("400", "malformed ZAP request");
    return d;
  }
  d.address = req[3];
  if ((req[2] != kZapDomain && req[2] != kSnapshotZapDomain) || req[5] != "CURVE" ||
      req.size() != 7 || req[6].size() != 32) {
    reply("400", "CURVE required");
    return d;
  }
  char z85[41];
  zmq_z85_encode(z85, reinterpret_cast<const uint8_t*>(req[6].data()), 32);
  d.client = z85;
  d.admitted = clients_.count(d.client) > 0;
  reply(d.admitted ? "200" : "400", d.admitted ? "OK" : "client key not in [curve] clients_file");
  return d;
}

}  // namespace wfod::daemon
