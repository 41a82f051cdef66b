// `wfod --keygen FILE`: a CURVE keypair for [curve] key_file; and the daemon's reading of
// its own keypair, checked with libzmq.
#pragma once

#include <string>

#include "wfod/net/curve_keys.hpp"

namespace wfod::daemon {

// Writes a new keypair to FILE (mode 0600, refused if FILE exists) and prints its public
// key on stdout. Exit status: 0, or 1 with a message on stderr.
int run_keygen(const std::string& path);

// read_keypair() plus the check that the public key is the secret key's. Throws
// std::runtime_error naming the file.
net::CurveKeypair read_checked_keypair(const std::string& path);

}  // namespace wfod::daemon
