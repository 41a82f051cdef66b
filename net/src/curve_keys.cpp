// CURVE key files: strict line-by-line reading with errors that name the file and the line
// but never echo a key.
#include "wfod/net/curve_keys.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

namespace wfod::net {
namespace {

bool is_z85_key(const std::string& s) {
  if (s.size() != 40) return false;
  static constexpr std::string_view kZ85 =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  for (char c : s) {
    if (kZ85.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// Calls f(line_no, kind, key) for each non-comment line: kind is "public", "secret" or ""
// (a bare key). Throws on a line that is none of those.
template <class F>
void for_each_key_line(const std::string& path, F f) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
  std::string line;
  for (size_t no = 1; std::getline(in, line); ++no) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::string kind, key = line;
    if (const size_t sp = line.find(' '); sp != std::string::npos) {
      kind = line.substr(0, sp);
      key = trim(line.substr(sp + 1));
    }
    if ((kind != "" && kind != "public" && kind != "secret") || !is_z85_key(key)) {
      throw std::runtime_error(path + ":" + std::to_string(no) +
                               ": expected a 40-character Z85 key, \"public <key>\" or "
                               "\"secret <key>\" (line not shown: it may hold a key)");
    }
    f(no, kind, key);
  }
}

}  // namespace

CurveKeypair read_keypair(const std::string& path) {
  CurveKeypair kp;
  for_each_key_line(path, [&](size_t no, const std::string& kind, const std::string& key) {
    if (kind == "public")
      kp.public_z85 = key;
    else if (kind == "secret")
      kp.secret_z85 = key;
    else {
      throw std::runtime_error(path + ":" + std::to_string(no) +
                               ": a keypair file has \"public <key>\" and \"secret <key>\" lines");
    }
  });
  if (kp.public_z85.empty() || kp.secret_z85.empty()) {
    throw std::runtime_error(path +
                             ": needs both a \"public\" and a \"secret\" line "
                             "(make one with wfod --keygen FILE)");
  }
  return kp;
}

std::vector<std::string> read_public_keys(const std::string& path) {
  std::vector<std::string> keys;
  for_each_key_line(path, [&](size_t no, const std::string& kind, const std::string& key) {
    if (kind == "secret") {
      throw std::runtime_error(path + ":" + std::to_string(no) +
                               ": a secret key in a public key file; remove it and rotate it");
    }
    keys.push_back(key);
  });
  return keys;
}

std::string read_public_key(const std::string& path) {
  const std::vector<std::string> keys = read_public_keys(path);
  if (keys.empty()) throw std::runtime_error(path + ": no public key in it");
  return keys.front();
}

}  // namespace wfod::net
