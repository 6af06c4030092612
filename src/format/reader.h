// Reading a .gltrace container: ChunkReader walks the chunks of a file, a
// stream or a memory buffer, checking every size against the format's
// limits before allocating (the trace is hostile input); read_trace() feeds
// the decoded records to a Consumer. Not thread-safe: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "format/records.h"

namespace gltrace::format {

enum class ReadState {
  kReading,   // more chunks may follow
  kEnd,       // clean end (closed_cleanly: the footer was there)
  kCutShort,  // the trace stops inside a chunk: a crash; everything before is fine
  kCorrupt,   // bad magic, CRC, sizes, compression or records
  kIoError,
};

struct ReadStatus {
  ReadState state = ReadState::kReading;
  std::string message;         // empty unless cut short or an error; names the offset
  uint64_t offset = 0;         // where the problem is
  uint64_t chunks = 0;         // complete data chunks read
  uint64_t payload_bytes = 0;  // their payloads, decompressed
  bool closed_cleanly = false;

  // The trace was read to its end, possibly cut short by a crash.
  bool ok() const { return state == ReadState::kEnd || state == ReadState::kCutShort; }
};

struct ChunkView {
  uint64_t offset = 0;  // of its chunk header in the file
  uint32_t record_count = 0;
  std::span<const uint8_t> payload;  // a serialized Chunk; valid until the next call
};

class ChunkReader {
 public:
  ChunkReader();
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  // Each checks the file header and, where the input can seek, loads the index.
  // False with status() set when the input is no readable trace.
  bool open(const std::string& path);
  // The bytes are not copied: they must outlive the reader.
  bool open_memory(std::span<const uint8_t> data);
  // Takes ownership of fd; a pipe or socket is read front to back (no seek, no index).
  bool open_fd(int fd);

  // The next data chunk, decompressed; false at the end or on an error (see status()).
  bool next(ChunkView* chunk);
  const ReadStatus& status() const;

  // The index of a cleanly closed trace, or null (index_error() says why
  // when there was one that could not be used).
  const Index* index() const;
  const std::string& index_error() const;

  // Continues at a chunk offset (from the index or a ChunkView); false if
  // the input cannot seek or the offset is outside the trace.
  bool seek(uint64_t offset);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Decodes every chunk from the reader's position into consumer callbacks.
// True when the trace was read to its end (clean, or cut short: a warning in
// status->message) or the consumer asked to stop; false on corruption, with
// the chunk offset and the byte inside the chunk in status->message.
bool read_trace(ChunkReader& reader, Consumer& consumer, ReadStatus* status);

// Opens the file `path` and reads it to its end into `consumer`. False with
// *error ("PATH: what went wrong, where") when it is no readable trace or is
// corrupt; a trace cut short by a crash reads as far as it goes, and
// *warning (when given) says so.
bool read_trace_file(const std::string& path, Consumer& consumer, std::string* error,
                     std::string* warning = nullptr);

// The same, with reading and decompression on a second thread, ahead of the
// decoding and the consumer on this one (a few chunks of memory more). The
// reader must not be used by anyone else until it returns.
bool read_trace_prefetched(ChunkReader& reader, Consumer& consumer, ReadStatus* status);

// The same with only reading and decompression on the second thread: the
// chunks' records are decoded on this one, straight into the consumer. Less
// work in all (no copy of each record into a batch and out again), for a
// consumer whose own work per record is small (the dumper).
bool read_trace_read_ahead(ChunkReader& reader, Consumer& consumer, ReadStatus* status);

}  // namespace gltrace::format
