#include "replay/read_ahead_source.h"

#include <exception>
#include <utility>

namespace gltrace::replay {

ReadAheadSource::ReadAheadSource(IncrementSource& inner, size_t capacity)
    : inner_(inner), capacity_(capacity > 0 ? capacity : 1) {}

ReadAheadSource::~ReadAheadSource() { stop_reader(); }

void ReadAheadSource::reader_main() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      has_room_.wait(lock, [this] { return stop_ || queue_.size() < capacity_; });
      if (stop_) return;
    }
    Increment increment;
    std::string error;
    SourceResult result;
    try {
      result = inner_.next(&increment, &error);
    } catch (const std::exception& e) {
      result = SourceResult::kError;
      error = std::string("exception: ") + e.what();
    } catch (...) {
      result = SourceResult::kError;
      error = "unknown exception";
    }
    std::lock_guard<std::mutex> lock(mutex_);
    bool was_empty = queue_.empty();
    if (result == SourceResult::kIncrement) {
      queue_.push_back(std::move(increment));
    } else {
      finished_ = true;
      final_ = result;
      final_error_ = std::move(error);
    }
    if (was_empty || finished_) not_empty_.notify_all();
    if (finished_) return;
  }
}

SourceResult ReadAheadSource::next(Increment* out, std::string* error) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!reader_.joinable()) reader_ = std::thread([this] { reader_main(); });
  not_empty_.wait(lock, [this] { return !queue_.empty() || finished_; });
  if (!queue_.empty()) {
    *out = std::move(queue_.front());
    queue_.pop_front();
    // The reader sleeps while the queue is full: wake it once half is free.
    if (queue_.size() == capacity_ / 2) has_room_.notify_all();
    return SourceResult::kIncrement;
  }
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
  finished_ = false;
  final_ = SourceResult::kEnd;
  final_error_.clear();
  stop_ = false;
  reader_ = std::thread();
  return inner_.rewind(error);
}

}  // namespace gltrace::replay
