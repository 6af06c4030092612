#include "replay/read_ahead_source.h"

#include <pthread.h>

#include <exception>
#include <utility>

namespace gltrace::replay {

ReadAheadSource::ReadAheadSource(IncrementSource& inner, size_t capacity)
    : inner_(inner), capacity_(capacity > 0 ? capacity : 1) {}

ReadAheadSource::~ReadAheadSource() { stop_reader(); }

void ReadAheadSource::reader_main() {
  pthread_setname_np(pthread_self(), "replay-read");
  std::deque<Increment> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      has_room_.wait(lock, [this] { return stop_ || queue_.size() < capacity_; });
      if (stop_) return;
    }
    // A batch is read without the lock and handed over at once: one lock and
    // at most one wake-up per batch, not per increment.
    SourceResult result = SourceResult::kIncrement;
    std::string error;
    while (result == SourceResult::kIncrement && batch.size() < kBatch) {
      Increment increment;
      try {
        result = inner_.next(&increment, &error);
      } catch (const std::exception& e) {
        result = SourceResult::kError;
        error = std::string("exception: ") + e.what();
      } catch (...) {
        result = SourceResult::kError;
        error = "unknown exception";
      }
      if (result == SourceResult::kIncrement) batch.push_back(std::move(increment));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    for (Increment& increment : batch) queue_.push_back(std::move(increment));
    batch.clear();
    if (result != SourceResult::kIncrement) {
      finished_ = true;
      final_ = result;
      final_error_ = std::move(error);
    }
    if (replay_waits_) not_empty_.notify_all();
    if (finished_) return;
  }
}

SourceResult ReadAheadSource::next(Increment* out, std::string* error) {
  if (taken_.empty()) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!reader_.joinable()) reader_ = std::thread([this] { reader_main(); });
    replay_waits_ = true;
    not_empty_.wait(lock, [this] { return !queue_.empty() || finished_; });
    replay_waits_ = false;
    // Everything read so far moves to the replay's side in one go.
    taken_.swap(queue_);
    has_room_.notify_all();
  }
  if (!taken_.empty()) {
    *out = std::move(taken_.front());
    taken_.pop_front();
    return SourceResult::kIncrement;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (final_ == SourceResult::kError) *error = final_error_;
  return final_;
}

void ReadAheadSource::stop_reader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  has_room_.notify_all();
  not_empty_.notify_all();
  if (reader_.joinable()) reader_.join();
}

bool ReadAheadSource::rewind(std::string* error) {
  stop_reader();
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.clear();
  taken_.clear();
  finished_ = false;
  final_ = SourceResult::kEnd;
  final_error_.clear();
  stop_ = false;
  reader_ = std::thread();
  return inner_.rewind(error);
}

}  // namespace gltrace::replay
