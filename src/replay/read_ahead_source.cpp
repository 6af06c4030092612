#include "replay/read_ahead_source.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

namespace gltrace::replay {

ReadAheadSource::ReadAheadSource(IncrementSource& inner, size_t capacity)
    : inner_(inner),
      ring_(std::max<size_t>(capacity, 1)),
      batch_(std::clamp<size_t>(ring_.size() / 4, 1, 256)) {}

ReadAheadSource::~ReadAheadSource() { stop_reader(); }

// A side that waits sets its flag and then reads the other's position; the
// other writes its position and then reads the flag. Both sequentially
// consistent, so one of them sees the other: no wake-up is lost.
void ReadAheadSource::publish_written(uint64_t written) {
  written_.store(written);
  if (replay_waits_.load()) {
    std::lock_guard<std::mutex> lock(mutex_);
    not_empty_.notify_one();
  }
}

void ReadAheadSource::publish_read(uint64_t read) {
  read_.store(read);
  if (reader_waits_.load() && written_.load() - read <= ring_.size() / 2) {
    std::lock_guard<std::mutex> lock(mutex_);
    has_room_.notify_one();
  }
}

void ReadAheadSource::reader_main() {
  pthread_setname_np(pthread_self(), "replay-read");
  const size_t capacity = ring_.size();
  uint64_t written = written_.load();
  uint64_t read = read_.load();
  SourceResult result = SourceResult::kIncrement;
  std::string error;
  while (result == SourceResult::kIncrement) {
    if (written - read == capacity) {
      publish_written(written);
      read = read_.load();
      if (written - read == capacity) {
        std::unique_lock<std::mutex> lock(mutex_);
        reader_waits_.store(true);
        // Woken when half the ring is free, not for every batch taken.
        has_room_.wait(lock,
                       [&] { return stop_.load() || written - read_.load() <= capacity / 2; });
        reader_waits_.store(false);
        read = read_.load();
      }
    }
    if (stop_.load()) return;
    Increment& slot = ring_[written % capacity];
    result = inner_.next_caught(&slot, &error);
    if (result != SourceResult::kIncrement) break;
    ++written;
    if (written % batch_ == 0) publish_written(written);
  }
  final_ = result;
  final_error_ = std::move(error);
  // The last position before finished_: a replay that sees finished_ sees
  // every increment too.
  written_.store(written);
  finished_.store(true);
  publish_written(written);
}

SourceResult ReadAheadSource::next(Increment* out, std::string* error) {
  if (read_local_ == available_) {
    if (!reader_.joinable() && !finished_.load()) reader_ = std::thread([this] { reader_main(); });
    publish_read(read_local_);
    available_ = written_.load();
    if (read_local_ == available_) {
      std::unique_lock<std::mutex> lock(mutex_);
      replay_waits_.store(true);
      not_empty_.wait(lock, [&] { return finished_.load() || written_.load() != read_local_; });
      replay_waits_.store(false);
      available_ = written_.load();  // complete once finished_ is seen
    }
    if (read_local_ == available_) {
      if (final_ == SourceResult::kError) *error = final_error_;
      return final_;
    }
  }
  Increment& slot = ring_[read_local_ % ring_.size()];
  *out = std::move(slot);
  ++read_local_;
  if (read_local_ % batch_ == 0) publish_read(read_local_);
  return SourceResult::kIncrement;
}

void ReadAheadSource::stop_reader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  has_room_.notify_all();
  not_empty_.notify_all();
  if (reader_.joinable()) reader_.join();
}

bool ReadAheadSource::rewind(std::string* error) {
  stop_reader();
  for (Increment& slot : ring_) slot.payload.reset();
  written_.store(0);
  read_.store(0);
  read_local_ = 0;
  available_ = 0;
  finished_.store(false);
  final_ = SourceResult::kEnd;
  final_error_.clear();
  stop_.store(false);
  reader_ = std::thread();
  return inner_.rewind(error);
}

}  // namespace gltrace::replay
