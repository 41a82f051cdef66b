// CURVE key files ([curve] key_file, clients_file, [[feed]] curve_server_key_file): strict
// line-by-line reading whose errors name the file and line but never echo a key. Text only
// (no libzmq here), so the daemon and the tools (wfo-sub, wfo-replay) share it.
#pragma once

#include <string>
#include <vector>

namespace wfod::net {

struct CurveKeypair {
  std::string public_z85;  // 40 characters
  std::string secret_z85;  // 40 characters; never logged
};

// "public <z85>" and "secret <z85>" lines, as `wfod --keygen` writes them ('#' comments and
// blank lines ignored). Throws std::runtime_error naming the file and line.
CurveKeypair read_keypair(const std::string& path);
// Public keys, one per line: a bare 40-character Z85 key or "public <z85>" (so a keypair
// file's public half, or a list of clients). A "secret" line is an error.
std::vector<std::string> read_public_keys(const std::string& path);
// The first public key of such a file; an error when there is none.
std::string read_public_key(const std::string& path);

}  // namespace wfod::net
