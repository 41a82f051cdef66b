// `wfod --keygen FILE` with zmq_curve_keypair, and the check that a keypair file's halves
// belong together (zmq_curve_public), which needs libzmq and so lives with the daemon.
#include "keygen.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "wfod/net/curve_keys.hpp"

namespace wfod::daemon {

net::CurveKeypair read_checked_keypair(const std::string& path) {
  net::CurveKeypair kp = net::read_keypair(path);
  // The public key must belong to the secret one, or clients pin the wrong key.
  char derived[41];
  if (zmq_curve_public(derived, kp.secret_z85.c_str()) != 0 || kp.public_z85 != derived) {
    throw std::runtime_error(path + ": the public key does not match the secret key");
  }
  return kp;
}

int run_keygen(const std::string& path) {
  if (zmq_has("curve") == 0) {
    std::fprintf(stderr, "wfod --keygen: this libzmq has no CURVE support\n");
    return 1;
  }
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0) {
    std::fprintf(stderr, "wfod --keygen: zmq_curve_keypair: %s\n", zmq_strerror(zmq_errno()));
    return 1;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "wfod --keygen: %s: %s (not overwriting a key file)\n", path.c_str(),
                 std::strerror(errno));
    return 1;
  }
  const std::string text = "# wfod CURVE keypair (wfod --keygen). Keep it mode 0600.\npublic " +
                           std::string(pub) + "\nsecret " + std::string(sec) + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  std::memset(sec, 0, sizeof sec);
  if (!ok) {
    std::fprintf(stderr, "wfod --keygen: %s: write failed\n", path.c_str());
    return 1;
  }
  std::printf("%s\n", pub);
  return 0;
}

}  // namespace wfod::daemon
