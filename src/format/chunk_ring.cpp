#include "format/chunk_ring.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "format/container.h"
#include "format/crc32.h"
#include "protowire/wire.h"

namespace gltrace::format {

void ChunkFilter::reset(uint32_t from_round) {
  from_ = from_round;
  memset(started_, 0, sizeof started_);
}

bool ChunkFilter::keep(const ChunkTag& tag) {
  if (tag.round < from_) return false;
  if (tag.thread == 0) return true;
  // A thread past the limit has no place: its chunks go whole from `from_`
  // on, snapshots included (a replay then meets objects it has).
  if (tag.thread >= kMaxThreads) return true;
  // The round whose start the thread's records begin with, plus 1 (0: none yet).
  uint32_t& started = started_[tag.thread];
  if (tag.snapshot) {
    if (started == 0) started = tag.round + 1;
    // The pieces of that start (a large one is several chunks), not a later round's.
    return started == tag.round + 1;
  }
  return started != 0;
}

namespace {

// A spin lock: append and keep_from hold it for a few pointer moves (the
// memory is freed outside it).
class SpinGuard {
 public:
  explicit SpinGuard(std::atomic<uint8_t>& lock) : lock_(lock) {
    while (lock_.exchange(1, std::memory_order_acquire) != 0) sched_yield();
  }
  ~SpinGuard() { lock_.store(0, std::memory_order_release); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  std::atomic<uint8_t>& lock_;
};

}  // namespace

ChunkRing::ChunkRing(size_t max_chunks)
    : entries_(new Entry[max_chunks == 0 ? 1 : max_chunks]),
      capacity_(max_chunks == 0 ? 1 : max_chunks) {}

ChunkRing::~ChunkRing() {
  for (size_t i = 0; i < capacity_; ++i) free(entries_[i].bytes);
  free(header_.bytes);
  delete[] entries_;
}

void ChunkRing::free_entry(Entry& e) {
  bytes_.fetch_sub(e.size, std::memory_order_relaxed);
  free(e.bytes);
  e.bytes = nullptr;
  e.size = 0;
}

bool ChunkRing::append(const uint8_t* header, size_t header_size, const uint8_t* stored,
                       size_t stored_size, const ChunkTag& tag) {
  bool first_ever = header_.bytes == nullptr && appended_.load() == 0;
  if (!first_ever && tag.round < keep_from_.load(std::memory_order_relaxed)) {
    appended_.fetch_add(1, std::memory_order_release);
    return true;  // of a round no trace will start from
  }
  auto* bytes = static_cast<uint8_t*>(malloc(header_size + stored_size));
  if (bytes == nullptr) return false;
  memcpy(bytes, header, header_size);
  if (stored_size != 0) memcpy(bytes + header_size, stored, stored_size);
  Entry entry{bytes, header_size + stored_size, tag};
  bytes_.fetch_add(entry.size, std::memory_order_relaxed);
  uint8_t* evicted_bytes = nullptr;
  {
    SpinGuard guard(lock_);
    if (first_ever) {
      header_ = entry;
    } else {
      if (count_ == capacity_) {  // full: the oldest goes
        Entry& oldest = entries_[first_];
        evicted_bytes = oldest.bytes;
        bytes_.fetch_sub(oldest.size, std::memory_order_relaxed);
        oldest = Entry{};
        first_ = (first_ + 1) % capacity_;
        --count_;
        evicted_.fetch_add(1, std::memory_order_relaxed);
      }
      entries_[(first_ + count_) % capacity_] = entry;
      ++count_;
    }
  }
  free(evicted_bytes);
  appended_.fetch_add(1, std::memory_order_release);
  return true;
}

void ChunkRing::keep_from(uint32_t round) {
  keep_from_.store(round, std::memory_order_relaxed);
  SpinGuard guard(lock_);
  for (size_t i = 0; i < count_; ++i) {
    Entry& e = entries_[(first_ + i) % capacity_];
    if (e.bytes != nullptr && e.tag.round < round) free_entry(e);
  }
  while (count_ > 0 && entries_[first_].bytes == nullptr) {
    first_ = (first_ + 1) % capacity_;
    --count_;
  }
}

bool write_fully(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ChunkRing::write(int fd, ChunkFilter& filter) const {
  uint8_t file_header[kFileHeaderSize];
  memcpy(file_header, kFileMagic, 8);
  put_u32(file_header + 8, kFormatVersion);
  put_u32(file_header + 12, 0);
  if (!write_fully(fd, file_header, sizeof file_header)) return false;
  if (header_.bytes != nullptr && !write_fully(fd, header_.bytes, header_.size)) return false;
  for (size_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[(first_ + i) % capacity_];
    if (e.bytes == nullptr || !filter.keep(e.tag)) continue;
    if (!write_fully(fd, e.bytes, e.size)) return false;
  }
  return true;
}

bool write_raw_chunk(int fd, const uint8_t* raw, size_t size, uint32_t record_count) {
  if (size == 0) return true;
  if (size > kMaxRawSize) return false;
  ChunkHeader header;
  header.codec = kCodecNone;
  header.raw_size = static_cast<uint32_t>(size);
  header.stored_size = static_cast<uint32_t>(size);
  header.record_count = record_count;
  header.crc = crc32(raw, size);
  uint8_t head[kChunkHeaderSize];
  encode_chunk_header(header, head);
  return write_fully(fd, head, sizeof head) && write_fully(fd, raw, size);
}

}  // namespace gltrace::format
