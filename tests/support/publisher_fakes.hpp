// Fakes of the Publisher's seams (daemon/core/publisher.hpp), shared by the tests of the
// parts that publish or signal through it: sequence numbers that fail on demand, a socket
// that records or refuses, events kept as lines. Each call a seam receives goes to a
// Journal, in order: the order rules are read off it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wfod/daemon/core/publisher.hpp"

namespace wfod::test {

using daemon::IoError;
using daemon::MessageSink;
using daemon::PublicationKey;
using daemon::PublicationNumbers;
using daemon::PublisherEvents;
using daemon::Result;
using daemon::SendResult;
using daemon::Status;

// Every call any seam receives, in order.
using Journal = std::vector<std::string>;

class FakeNumbers final : public PublicationNumbers {
 public:
  explicit FakeNumbers(Journal& journal) : journal_(journal) {}
  Result<uint64_t> next(std::string_view, std::string_view) override {
    journal_.push_back("next");
    if (fail_next) return IoError{28, "write publications.seq.tmp: No space left on device"};
    return ++last;
  }
  Status top_up(std::string_view, std::string_view) override {
    journal_.push_back("top_up");
    if (fail_top_up) return IoError{28, "write publications.seq.tmp: No space left on device"};
    return {};
  }
  uint64_t last = 0;
  bool fail_next = false;
  bool fail_top_up = false;

 private:
  Journal& journal_;
};

class RecordingSink final : public MessageSink {
 public:
  explicit RecordingSink(Journal& journal) : journal_(journal) {}
  SendResult send(std::string_view topic, std::string_view payload) override {
    journal_.push_back("send " + std::string(topic));
    if (on_send) on_send(topic, payload);
    if (refuse) return {};
    if (error) return {false, *error};
    sent.emplace_back(topic, payload);
    return {true, {}};
  }
  std::vector<std::pair<std::string, std::string>> sent;
  bool refuse = false;
  std::optional<std::string> error;
  std::function<void(std::string_view, std::string_view)> on_send;

 private:
  Journal& journal_;
};

class RecordingEvents final : public PublisherEvents {
 public:
  void selection_withheld(const PublicationKey&, std::string_view reason) override {
    lines.push_back("selection " + std::string(reason));
  }
  void behind_published(const PublicationKey&, int64_t window, int64_t published) override {
    lines.push_back("behind " + std::to_string(window) + " < " + std::to_string(published));
  }
  void caught_up(const PublicationKey&) override { lines.push_back("caught_up"); }
  void not_persisted(const PublicationKey&, std::string_view error, uint64_t suppressed) override {
    lines.push_back("not_persisted " + std::string(error) + " " + std::to_string(suppressed));
  }
  void no_sequence_number(const PublicationKey&, std::string_view error,
                          uint64_t suppressed) override {
    lines.push_back("no_seq " + std::string(error) + " " + std::to_string(suppressed));
  }
  void sequence_numbers_back() override { lines.push_back("seq_back"); }
  void send_failed(const PublicationKey&, std::string_view error) override {
    lines.push_back("send_failed " + std::string(error));
  }
  void top_up_failed(const PublicationKey&, std::string_view error, uint64_t suppressed) override {
    lines.push_back("top_up_failed " + std::string(error) + " " + std::to_string(suppressed));
  }
  std::vector<std::string> lines;
};

}  // namespace wfod::test
