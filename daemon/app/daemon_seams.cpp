// The parts' seams over the daemon's own: the worker (a job's body, its result posted back to
// the loop), the publication sequence store and PUB socket (the Publisher's), the live-state
// writer (the PublicationStep's), the Asio timers (the BarKeeper's).

#include "daemon_seams.hpp"

#include <utility>

namespace wfod::daemon::loop {

void WorkerHandOff::post(JobTicket ticket) {
  worker_.post([this, t = std::move(ticket)]() mutable {
    HistorySnapshot history = t.input.snap;
    JobResult out = run_job(*t.backend, t.input);
    const std::optional<Combo> next = next_live_winner(out);
    // Before the post: the publication carries the combo's position, and the loop follows
    // it for signals from the window's last bar on.
    if (next) follow_winner(*t.backend, t.input, out, *next);
    asio::post(io_, [this, key = t.key, generation = t.generation, history,
                     out = std::move(out)]() mutable {
      results->on_result(key, generation, history, std::move(out));
    });
    if (next) warm_live_tracker(t.input, *next);
    checkpoint_if_due(t.key, t.input, t.plan);
  });
}

Result<uint64_t> SequenceNumbers::next(std::string_view symbol, std::string_view strategy) {
  return seqs_->next(symbol, strategy);
}

Status SequenceNumbers::top_up(std::string_view symbol, std::string_view strategy) {
  return seqs_->top_up(symbol, strategy);
}

SendResult PubSocketSink::send(std::string_view topic, std::string_view payload) {
  try {
    if (!pub_->sock.send(zmq::buffer(topic),
                         zmq::send_flags::sndmore | zmq::send_flags::dontwait) ||
        !pub_->sock.send(zmq::buffer(payload), zmq::send_flags::dontwait)) {
      return {};
    }
  } catch (const zmq::error_t& e) {
    return {false, e.what()};
  }
  return {true, {}};
}

void AsioLoopTimer::start(std::chrono::milliseconds after, std::function<void()> fired) {
  timer_.expires_after(after);
  timer_.async_wait([fired = std::move(fired)](const boost::system::error_code& ec) {
    if (!ec) fired();
  });
}

}  // namespace wfod::daemon::loop
