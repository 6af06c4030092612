// Runs another IncrementSource on a reader thread, a bounded ring ahead of
// the replay, for sources whose next() is slow (a chunk to decompress): the
// replay's main thread then never waits on I/O between increments. Order,
// the end and errors come through unchanged. Increments are published in
// batches, so one may wait for the next batch to be read: right for files,
// not for a source that blocks on a live stream.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
  // Reader: makes ring_ up to `written` visible to the replay.
  void publish_written(uint64_t written);
  // Replay: hands ring_ up to `read` back to the reader.
  void publish_read(uint64_t read);

  IncrementSource& inner_;
  // A single-producer single-consumer ring: no allocation and no lock per
  // increment (a deque hand-over cost ~60 ns per increment, mostly its nodes
  // allocated by one thread and freed by the other). Each side publishes its
  // position every batch_ increments, and before it waits; it takes the lock
  // only to wake the other side when that one waits.
  std::vector<Increment> ring_;
  const size_t batch_;
  // Each side's fields on cache lines of their own: a line written by one
  // core and read by the other moves between them on every write.
  alignas(64) std::atomic<uint64_t> written_{0};  // increments the reader has published
  alignas(64) std::atomic<uint64_t> read_{0};     // increments the replay has given back
  alignas(64) uint64_t read_local_ = 0;           // replay: taken so far
  uint64_t available_ = 0;                        // replay: written_ when last looked at
  alignas(64) std::atomic<bool> replay_waits_{false};
  std::atomic<bool> reader_waits_{false};  // until half the ring is free
  std::atomic<bool> finished_{false};      // the reader met the end or an error
  std::atomic<bool> stop_{false};
  SourceResult final_ = SourceResult::kEnd;  // set before finished_
  std::string final_error_;
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable has_room_;
  std::thread reader_;
};

}  // namespace gltrace::replay
