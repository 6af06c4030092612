// TraceWriter: the capture side of the container. Capture threads hand it
// encoded chunk payloads; one background thread compresses them and writes
// chunks, in submit order, to a file, a pipe or a Unix socket.
//
// Rules (it runs inside arbitrary apps):
//  - Every method is thread-safe and noexcept; nothing is printed except one
//    error line (through gltrace's log) when the output fails.
//  - submit() does no I/O. It blocks only while the queue is over its byte
//    limit (counted as a stall), never after a failure or close().
//  - close() drains, writes the index and footer (files) and closes.
//    It is idempotent and may be called from an atexit handler or a library
//    destructor while other threads still submit (those payloads are then
//    dropped and counted). It gives up after close_timeout_ms if the output
//    is stuck (a socket peer that stopped reading).
//  - Do not destroy the writer while another thread may still call it: at
//    exit, call close() and leave the object alive.
//  - In a fork()ed child the inherited writer is inert: submit() drops,
//    close() returns false, the destructor leaks (the writer thread and the
//    output belong to the parent).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "format/chunk_ring.h"
#include "format/payload.h"

namespace gltrace::format {

namespace detail {
struct WriterState;
}  // namespace detail

struct WriterOptions {
  // 0: store chunks uncompressed. 1: the writer thread, which shares the
  // cores with the app, spends 4-31% fewer instructions than at zstd's own
  // default 3 on bench/call_mix's mixes (callgrind, the writer thread alone:
  // draw 18%, two-threads 23%, upload 31%, uniform 4%), for -10% to +20%
  // bytes (still 0.02-0.15 of apitrace's). --zstd-level 3 and up for smaller.
  int zstd_level = 1;
  size_t queue_limit_bytes = size_t{64} << 20;  // submit() waits above this
  size_t pooled_buffers = 16;                   // recycled payload buffers kept
  int close_timeout_ms = 10000;                 // <= 0: wait forever
  // Pipes and sockets get the index and footer too (a host that stores the
  // stream as it comes then has a complete file).
  bool stream_index = false;
  // The times column's unit (times_column.h): the trace clock's resolution.
  uint64_t time_unit_ns = 1;
};

// A frame whose first call is in a submitted payload (for the index).
struct FrameStart {
  uint64_t frame = 0;
  uint64_t seq = 0;
};

class TraceWriter {
 public:
  struct Stats {
    uint64_t chunks = 0;            // data chunks written
    uint64_t records = 0;           // records in them (as submitted)
    uint64_t raw_bytes = 0;         // payload bytes before compression
    uint64_t stored_bytes = 0;      // payload bytes after compression
    uint64_t bytes_written = 0;     // all output, headers included
    uint64_t stall_count = 0;       // submit() calls that waited for room
    uint64_t stall_ns = 0;          // time they waited
    uint64_t write_errors = 0;      // 0 or 1: the output stops at the first
    uint64_t dropped_payloads = 0;  // after a failure or close()
    uint64_t dropped_records = 0;   // single records over the 64 MiB chunk limit
  };

  // The trace goes to a new (truncated) file, mode 0600.
  static std::unique_ptr<TraceWriter> open_file(const std::string& path,
                                                const WriterOptions& options, std::string* error);
  // Connects to a listening AF_UNIX stream socket ("@name": abstract
  // namespace) whose listener runs as this user or root (SO_PEERCRED); the
  // stream is the file format without index and footer.
  static std::unique_ptr<TraceWriter> connect_unix_socket(const std::string& socket_path,
                                                          const WriterOptions& options,
                                                          std::string* error);
  // Takes ownership of fd: a regular file (written from its current offset,
  // which should be 0, index and footer included), a pipe or a socket. `name`
  // names it in messages ("fd N" when empty).
  static std::unique_ptr<TraceWriter> from_fd(int fd, const WriterOptions& options,
                                              std::string* error, const std::string& name = "");
  // Chunks go to `ring` (the flight recorder's), with the tags they were
  // submitted with: no file header, index or footer.
  static std::unique_ptr<TraceWriter> to_memory(std::shared_ptr<ChunkRing> ring,
                                                const WriterOptions& options, std::string* error);

  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // A recycled buffer (empty, maybe with capacity) to encode the next payload into.
  Payload acquire_buffer() noexcept;
  // Queues a serialized Chunk: whole records, each as field-1 tag + length +
  // Record bytes, and flat calls (flat_calls.h) that the writer thread
  // encodes as records of thread tag.thread. frames: the frames whose first
  // call is in this payload, for the index.
  void submit(Payload payload, std::span<const FrameStart> frames = {}, ChunkTag tag = {}) noexcept;
  // As above with the encoder's bytes, which it takes (leaving it empty)
  // only once the queue has room: while the caller waits they are still in
  // its encoder, where a copy of the process made meanwhile (the flight
  // recorder's) finds them, as it finds the queued ones (write_pending).
  void submit(wire::Encoder& payload, std::span<const FrameStart> frames = {},
              ChunkTag tag = {}) noexcept;
  // A memory writer's payloads not yet in its ring, as uncompressed chunks
  // that `filter` keeps, to fd: for a flight trace written by a frozen copy
  // of the process (no lock, no allocation). False on a write error.
  bool write_pending(int fd, ChunkFilter& filter) const noexcept;
  // The unit of its times columns (WriterOptions::time_unit_ns).
  uint64_t time_unit_ns() const noexcept;
  // True once the output failed; later payloads are dropped.
  bool failed() const noexcept;
  Stats stats() const noexcept;
  // False if the output failed (error says how) or the trace could not be finished.
  bool close(std::string* error = nullptr) noexcept;

 private:
  explicit TraceWriter(std::shared_ptr<detail::WriterState> state);

  // Shared with the writer thread, which may outlive the writer after a close() timeout.
  std::shared_ptr<detail::WriterState> state_;
};

}  // namespace gltrace::format
