// A backend's answer to "do you compute this?" (Backend::supports, the capability query) and
// the exception that carries a refusal, so that "this backend cannot do X" is told apart from
// "the request is wrong" (SPEC errors, std::invalid_argument) by whoever needs to.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace wfod {

// What a capability query asks about: the backend's entry points, grouped as a device
// backend runs them (ggml's supports_op asks per operation).
enum class Work {
  sweep,      // Backend::sweep, Backend::evaluate
  selection,  // Backend::block_summaries, the selection extension (robust_scores)
  stream,     // Backend::open_stream
};

// Ok, or a refusal saying what is unsupported in words fit for an error message.
struct Support {
  std::string refusal;  // empty: supported
  bool ok() const { return refusal.empty(); }
  static Support yes() { return {}; }
  static Support no(std::string why) { return {std::move(why)}; }
};

// A refusal: this backend (or stream) does not compute what it was asked; another may (the
// registry's "auto" routing, the host pipeline, a re-sweeping stream, a replay). It derives
// from std::invalid_argument because every caller so far treats a refusal as it treats a SPEC
// error: the daemon's job reports it without declaring the backend failed (no cpu fallback),
// stream opening and robust selection fall back on either, `wfo` prints it as "wfo: error:"
// with exit code 1. Catch Unsupported before std::invalid_argument to tell them apart.
class Unsupported : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws Unsupported with the refusal unless `s` is ok.
inline void require(const Support& s) {
  if (!s.ok()) throw Unsupported(s.refusal);
}

}  // namespace wfod
