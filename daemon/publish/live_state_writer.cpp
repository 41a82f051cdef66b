// LiveStateWriter: one thread draining the newest LiveState per stream into LiveStateStore.
#include "wfod/daemon/publish/live_state_writer.hpp"

namespace wfod::daemon {

LiveStateWriter::LiveStateWriter(LiveStateStore& store, ErrorHandler on_error)
    : store_(store), on_error_(std::move(on_error)), thread_([this] { run(); }) {}

LiveStateWriter::~LiveStateWriter() {
  flush();  // a clean stop persists the last publication of every stream
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void LiveStateWriter::post(const PublicationKey& key, LiveState state) {
  {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = pending_.insert_or_assign(key, std::move(state));
    if (!inserted) ++superseded_;
  }
  wake_.notify_one();
}

void LiveStateWriter::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return pending_.empty() && !busy_; });
}

uint64_t LiveStateWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

uint64_t LiveStateWriter::superseded() const {
  std::lock_guard lock(mutex_);
  return superseded_;
}

bool LiveStateWriter::failing() const {
  std::lock_guard lock(mutex_);
  return failing_;
}

void LiveStateWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stopping, nothing left
    auto node = pending_.extract(pending_.begin());
    busy_ = true;
    lock.unlock();
    const Status s = store_.save(node.key().first, node.key().second, node.mapped());
    if (!s.ok()) {
      {
        std::lock_guard failed(mutex_);
        failing_ = true;
      }
      if (on_error_) on_error_(node.key(), s.error());
    }
    lock.lock();
    busy_ = false;
    if (s.ok()) {
      ++written_;
      failing_ = false;
    }
    if (pending_.empty()) idle_.notify_all();
  }
}

}  // namespace wfod::daemon
