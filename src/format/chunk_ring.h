// The flight recorder's store (trace/flight.h): a trace's newest chunks in
// memory, each with the tag its payload was submitted with, and what
// writes them out as a trace from the start of a round.
//
// A round begins, for each thread, with the chunks of its snapshot (or of
// its first records); a trace from round R holds, of each thread, the start
// of the first round at or after R it has, and its later chunks except
// later rounds' starts (ChunkFilter).
// Writing out is meant for a frozen copy of the process (a fork of an app
// that crashed): it takes no lock and allocates nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gltrace::format {

struct ChunkTag {
  uint32_t thread = 0;    // the capture thread whose records it holds (0: none)
  uint32_t round = 0;     // the thread's round when it handed them over
  bool snapshot = false;  // the thread's snapshot at the start of `round`
};

// Which chunks a trace from `from_round` holds, in the order they come.
class ChunkFilter {
 public:
  explicit ChunkFilter(uint32_t from_round) : from_(from_round) {}
  // Starts over from `from_round` (a filter is large: a crash handler's
  // stack may be small, so it keeps one aside).
  void reset(uint32_t from_round);
  bool keep(const ChunkTag& tag);

 private:
  static constexpr uint32_t kMaxThreads = 4096;  // later threads' snapshots are not kept apart
  uint32_t from_;
  uint32_t started_[kMaxThreads] = {};
};

class ChunkRing {
 public:
  explicit ChunkRing(size_t max_chunks);
  ~ChunkRing();
  ChunkRing(const ChunkRing&) = delete;
  ChunkRing& operator=(const ChunkRing&) = delete;

  // The writer thread's: a copy of one chunk (its header and stored bytes).
  // The first chunk ever (the trace's Header record) is kept for good; chunks
  // of rounds before keep_from() are not stored. False when out of memory.
  bool append(const uint8_t* header, size_t header_size, const uint8_t* stored, size_t stored_size,
              const ChunkTag& tag);
  // Frees the chunks of rounds before `round` (any thread).
  void keep_from(uint32_t round);
  uint32_t kept_from() const { return keep_from_.load(std::memory_order_relaxed); }
  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  // Chunks appended so far (the writer's in-progress payload is in the
  // ring once this passed the count it saw).
  uint64_t appended() const { return appended_.load(std::memory_order_acquire); }
  // Chunks dropped because the ring was full (the oldest go first).
  uint64_t evicted() const { return evicted_.load(std::memory_order_relaxed); }

  // Writes the file header, the Header chunk and the chunks `filter` keeps
  // to fd; false on a write error. No lock, no allocation.
  bool write(int fd, ChunkFilter& filter) const;

 private:
  struct Entry {
    uint8_t* bytes = nullptr;  // chunk header + stored bytes (malloc'd)
    size_t size = 0;
    ChunkTag tag;
  };
  void free_entry(Entry& e);

  Entry* entries_;
  const size_t capacity_;
  Entry header_;
  // Entries [first_, first_ + count_) modulo capacity_, appended in order.
  size_t first_ = 0;
  size_t count_ = 0;
  std::atomic<uint8_t> lock_{0};  // append and keep_from: a spin lock (never held long)
  std::atomic<uint32_t> keep_from_{0};
  std::atomic<size_t> bytes_{0};
  std::atomic<uint64_t> appended_{0};
  std::atomic<uint64_t> evicted_{0};
};

// Writes all of a buffer to fd (EINTR retried); false on error. Async-signal-safe.
bool write_fully(int fd, const void* data, size_t size);

// Writes one uncompressed chunk of `raw` (whole records); async-signal-safe.
bool write_raw_chunk(int fd, const uint8_t* raw, size_t size, uint32_t record_count);

}  // namespace gltrace::format
