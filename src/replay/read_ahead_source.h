// Runs another IncrementSource on a reader thread, a bounded queue ahead of
// the replay, for sources whose next() is slow (a chunk to decompress): the
// replay's main thread then never waits on I/O between increments. Order,
// the end and errors come through unchanged. Increments are handed over in
// batches, so one may wait for the next kBatch - 1 to be read: right for
// files, not for a source that blocks on a live stream.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "replay/increment.h"

namespace gltrace::replay {

class ReadAheadSource : public IncrementSource {
 public:
  // inner is used only from the reader thread (and by rewind() with the
  // reader stopped), so it need not be thread-safe.
  explicit ReadAheadSource(IncrementSource& inner, size_t capacity = 4096);
  // Stops the reader; waits for an inner next() under way to return.
  ~ReadAheadSource() override;
  ReadAheadSource(const ReadAheadSource&) = delete;
  ReadAheadSource& operator=(const ReadAheadSource&) = delete;

  SourceResult next(Increment* out, std::string* error) override;
  bool rewind(std::string* error) override;

 private:
  void reader_main();
  void stop_reader();

  IncrementSource& inner_;
  const size_t capacity_;
  // Increments cross in batches: the reader hands over up to kBatch at a
  // time, the replay takes all that are there, and each wakes the other only
  // when that one is waiting, so neither pays a lock and a wake-up per
  // increment.
  static constexpr size_t kBatch = 256;
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable has_room_;
  std::deque<Increment> queue_;
  std::deque<Increment> taken_;  // the replay's side, no lock needed
  bool replay_waits_ = false;
  bool finished_ = false;  // the reader met the end or an error
  SourceResult final_ = SourceResult::kEnd;
  std::string final_error_;
  bool stop_ = false;
  std::thread reader_;
};

}  // namespace gltrace::replay
