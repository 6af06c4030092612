#include "format/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "common/log.h"
#include "format/container.h"
#include "format/crc32.h"
#include "format/encoders.h"
#include "format/flat_calls.h"
#include "format/records.h"
#include "format/schema.h"
#include "format/times_column.h"

namespace gltrace::format {
namespace detail {

enum class OutputKind { kFile, kPipe, kSocket, kMemory };

struct Slot {
  Payload payload;
  std::vector<FrameStart> frames;
  ChunkTag tag;
};

struct WriterState {
  WriterState(int fd_in, OutputKind kind_in, std::string name_in, const WriterOptions& options_in)
      : fd(fd_in), kind(kind_in), name(std::move(name_in)), options(options_in), pid(getpid()) {}
  ~WriterState() {
    ZSTD_freeCCtx(cctx);
    free(out);
    free(expanded);
  }

  // Fixed at start.
  const int fd;
  const OutputKind kind;
  const std::string name;
  const WriterOptions options;
  const pid_t pid;
  std::shared_ptr<ChunkRing> memory;  // kMemory: where chunks go

  // Shared, under mu.
  std::mutex mu;
  std::condition_variable work_cv;   // the writer thread waits for payloads
  std::condition_variable space_cv;  // submitters wait for room
  std::condition_variable done_cv;   // close() waits for the writer thread
  std::vector<Slot> ring;            // the queue, grown only while warming up
  size_t head = 0;
  size_t count = 0;
  size_t queued_bytes = 0;
  std::vector<Payload> pool;
  size_t pool_bytes = 0;
  int waiting = 0;  // submitters blocked for room: they still get in after close()
  bool closing = false;
  bool done = false;
  std::string failure;

  std::atomic<bool> failed{false};
  std::thread thread;
  std::mutex close_mu;
  bool closed = false;
  bool close_ok = false;
  std::string close_error;

  std::atomic<uint64_t> chunks{0}, records{0}, raw_bytes{0}, stored_bytes{0}, bytes_written{0},
      stall_count{0}, stall_ns{0}, write_errors{0}, dropped_payloads{0}, dropped_records{0};

  // The payload the writer thread is storing (kMemory), for a flight
  // trace written while it does: it is in the ring once the ring's
  // appended() passed in_progress_seen.
  std::atomic<const Payload*> in_progress{nullptr};
  ChunkTag in_progress_tag;
  uint64_t in_progress_seen = 0;

  // Writer thread only.
  ChunkTag tag;         // of the payload being written
  uint64_t offset = 0;  // bytes of the trace written so far
  ZSTD_CCtx* cctx = nullptr;
  uint8_t* out = nullptr;
  size_t out_capacity = 0;
  uint8_t* expanded = nullptr;  // the payload with its flat calls encoded
  size_t expanded_capacity = 0;
  std::vector<IndexEntry> index;
  std::vector<FrameStart> frames;
  bool warned_oversized = false;
};

}  // namespace detail

using detail::OutputKind;
using detail::WriterState;

namespace {

bool forked_child(const WriterState& s) { return getpid() != s.pid; }

// Discards the SIGPIPE a write to a closed pipe raised on this thread (it is
// blocked here, so it stays pending instead of killing the app).
void consume_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  timespec zero{};
  while (sigtimedwait(&set, nullptr, &zero) == SIGPIPE) {
  }
}

// Writes every byte or returns the errno that stopped it.
int write_all(const WriterState& s, iovec* iov, int count) {
  while (count > 0) {
    ssize_t n;
    if (s.kind == OutputKind::kSocket) {
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<size_t>(count);
      n = sendmsg(s.fd, &msg, MSG_NOSIGNAL);  // a gone peer is EPIPE, never SIGPIPE
    } else {
      n = writev(s.fd, iov, count);
    }
    if (n < 0) {
      int e = errno;
      if (e == EINTR) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) {  // a non-blocking fd from from_fd()
        pollfd p{s.fd, POLLOUT, 0};
        poll(&p, 1, -1);
        continue;
      }
      if (e == EPIPE && s.kind != OutputKind::kSocket) consume_sigpipe();
      return e;
    }
    if (n == 0) return EIO;
    auto left = static_cast<size_t>(n);
    while (count > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0) {
      iov->iov_base = static_cast<uint8_t*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return 0;
}

// The output is lost from byte `at` on: one message, then everything is dropped.
void fail(WriterState& s, int error, uint64_t at) {
  if (s.failed.exchange(true)) return;
  // A file keeps exactly its complete chunks (if this fails too, the partial
  // chunk stays and readers report the trace as cut short there).
  if (s.kind == OutputKind::kFile) (void)!ftruncate(s.fd, static_cast<off_t>(at));
  char message[1024];
  snprintf(message, sizeof message,
           "trace output to %s failed at byte %" PRIu64 ": %s; the %" PRIu64
           " bytes before are kept",
           s.name.c_str(), at, strerror(error), at);
  GLTRACE_LOG_ERROR("%s", message);
  s.write_errors = 1;
  {
    std::lock_guard lock(s.mu);
    s.failure = message;
  }
  s.space_cv.notify_all();
}

bool write_raw(WriterState& s, const void* bytes, size_t n) {
  iovec iov{const_cast<void*>(bytes), n};
  int e = write_all(s, &iov, 1);
  if (e != 0) {
    fail(s, e, s.offset);
    return false;
  }
  s.offset += n;
  s.bytes_written += n;
  return true;
}

// Compresses (when it pays) and writes one chunk; false on I/O failure.
bool write_chunk(WriterState& s, const uint8_t* raw, size_t raw_size, uint32_t record_count,
                 uint32_t flags) {
  ChunkHeader header;
  header.codec = kCodecNone | flags;
  header.raw_size = static_cast<uint32_t>(raw_size);
  header.record_count = record_count;
  const uint8_t* stored = raw;
  size_t stored_size = raw_size;
  if (s.options.zstd_level != 0 && raw_size != 0) {
    // A times column is a zstd frame of its own, the records another (a
    // reader decompresses the two as one): in one frame, the column's
    // statistics and the records' mix (the demo mix of bench/call_mix.py:
    // 5% more bytes).
    std::string_view column = leading_times_column(raw, raw_size);
    size_t column_end =
        column.empty() ? 0 : static_cast<size_t>(column.end() - reinterpret_cast<const char*>(raw));
    size_t bound = ZSTD_compressBound(column_end) + ZSTD_compressBound(raw_size - column_end);
    if (bound > s.out_capacity) {
      auto* grown = static_cast<uint8_t*>(realloc(s.out, bound));
      if (grown != nullptr) {
        s.out = grown;
        s.out_capacity = bound;
      }
    }
    if (s.cctx == nullptr) s.cctx = ZSTD_createCCtx();
    if (s.cctx != nullptr && s.out_capacity >= bound) {
      size_t n = 0;
      if (column_end != 0)
        n = ZSTD_compressCCtx(s.cctx, s.out, s.out_capacity, raw, column_end, s.options.zstd_level);
      if (!ZSTD_isError(n)) {
        size_t records = ZSTD_compressCCtx(s.cctx, s.out + n, s.out_capacity - n, raw + column_end,
                                           raw_size - column_end, s.options.zstd_level);
        n = ZSTD_isError(records) ? records : n + records;
      }
      // Incompressible data (or a zstd failure) is stored as it is.
      if (!ZSTD_isError(n) && n < raw_size) {
        header.codec = kCodecZstd | flags;
        stored = s.out;
        stored_size = n;
      }
    }
  }
  header.stored_size = static_cast<uint32_t>(stored_size);
  header.crc = crc32(stored, stored_size);
  uint8_t head[kChunkHeaderSize];
  encode_chunk_header(header, head);
  int e = 0;
  if (s.kind == OutputKind::kMemory) {
    if (!s.memory->append(head, sizeof head, stored, stored_size, s.tag)) e = ENOMEM;
  } else {
    iovec iov[2] = {{head, sizeof head}, {const_cast<uint8_t*>(stored), stored_size}};
    e = write_all(s, iov, stored_size != 0 ? 2 : 1);
  }
  if (e != 0) {
    fail(s, e, s.offset);
    return false;
  }
  s.offset += kChunkHeaderSize + stored_size;
  s.bytes_written += kChunkHeaderSize + stored_size;
  if ((flags & kChunkIndexFlag) == 0) {
    s.stored_bytes += stored_size;
    s.chunks++;
  }
  return true;
}

// A payload over the chunk limit goes out as several chunks, split between
// records; a single record over the limit cannot be stored and is dropped.
// A times column (format 3) is split with the records: each piece gets the
// entries its records take, counted again from the piece's start, since
// every chunk decodes on its own.
void write_split(WriterState& s, const uint8_t* data, size_t size) {
  // The column comes first (flat_calls.cpp).
  std::string_view column_bytes = leading_times_column(data, size);
  const auto* column = reinterpret_cast<const uint8_t*>(column_bytes.data());
  TimesLayout layout;
  const char* column_error = nullptr;
  bool has_column =
      !column_bytes.empty() && read_times_head(column, column_bytes.size(), &layout, &column_error);
  TimesReaders whole;  // reading the payload's column
  if (has_column) {
    for (int i = 0; i < kTimesSections; ++i)
      whole.at[i] = wire::Reader(column + layout.begin[i], layout.end[i] - layout.begin[i]);
  }
  const uint8_t* records = has_column ? column + column_bytes.size() : data;
  wire::Reader reader(records, size - static_cast<size_t>(records - data));
  uint32_t field = 0;
  wire::WireType type{};
  TimesColumnState whole_column(layout.unit_ns);
  TimesColumnState piece_state(layout.unit_ns);  // writing the piece's
  std::vector<uint8_t> piece_sections[kTimesSections];
  auto piece_column_size = [&] {
    return piece_sections[0].size() + piece_sections[1].size() + piece_sections[2].size();
  };
  std::vector<uint8_t> piece_bytes;  // a piece with a column: the column, then its records
  size_t piece_start = 0;
  size_t piece_end = 0;
  uint32_t piece_records = 0;
  auto flush = [&] {
    if (piece_end > piece_start) {
      const uint8_t* bytes = records + piece_start;
      size_t n = piece_end - piece_start;
      if (piece_column_size() != 0) {
        uint8_t start[kMaxTimesStartBytes];
        size_t sizes[kTimesSections];
        for (int i = 0; i < kTimesSections; ++i) sizes[i] = piece_sections[i].size();
        piece_bytes.assign(start, put_times_start(start, layout.unit_ns, sizes));
        for (const std::vector<uint8_t>& section : piece_sections)
          piece_bytes.insert(piece_bytes.end(), section.begin(), section.end());
        piece_bytes.insert(piece_bytes.end(), bytes, bytes + n);
        bytes = piece_bytes.data();
        n = piece_bytes.size();
      }
      if (write_chunk(s, bytes, n, piece_records, 0)) s.records += piece_records;
    }
    piece_records = 0;
    for (std::vector<uint8_t>& section : piece_sections) section.clear();
    piece_state = TimesColumnState(layout.unit_ns);
  };
  // The record's column entry, taken from the payload's and (keep) put
  // into the piece's.
  auto move_times = [&](size_t start, size_t end, bool keep) {
    if (!has_column) return;
    uint8_t entry[TimesColumnState::kMaxEntryBytes];
    TimesCursors c;
    for (int i = 0; i < kTimesSections; ++i) c.at[i] = entry + i * TimesColumnState::kMaxValueBytes;
    bool taken = false;
    switch (times_entry_of(records + start, end - start)) {
      case TimesEntry::kCall: {
        CallTimes times;
        if ((taken = whole_column.take_call(whole, &times))) piece_state.put_call(c, times);
        break;
      }
      case TimesEntry::kFrame: {
        FrameTimes times;
        if ((taken = whole_column.take_frame(whole, &times))) piece_state.put_frame(c, times);
        break;
      }
      case TimesEntry::kNone:
        break;
    }
    if (!keep || !taken) return;
    for (int i = 0; i < kTimesSections; ++i) {
      uint8_t* value = entry + i * TimesColumnState::kMaxValueBytes;
      piece_sections[i].insert(piece_sections[i].end(), value, c.at[i]);
    }
  };
  while (!s.failed && reader.next(&field, &type)) {
    size_t start = reader.offset() - wire::varint_size(uint64_t{field} << 3 | type);
    reader.skip(type);
    if (!reader.ok()) break;
    size_t end = reader.offset();
    // One oversized record (with room for its column entry).
    if (end - start > kMaxRawSize - 64) {
      flush();
      move_times(start, end, false);
      s.dropped_records++;
      if (!s.warned_oversized) {
        s.warned_oversized = true;
        GLTRACE_LOG_WARN(
            "trace output to %s: dropped a %zu-byte record, over the 64 MiB chunk limit",
            s.name.c_str(), end - start);
      }
      piece_start = piece_end = end;
      continue;
    }
    // The piece's column may take up to kMaxEntryBytes a record, and its framing.
    size_t column_room =
        piece_column_size() + TimesColumnState::kMaxEntryBytes + kMaxTimesStartBytes;
    if (end - piece_start + column_room > kMaxRawSize) {
      flush();
      piece_start = piece_end;
    }
    move_times(start, end, true);
    piece_end = end;
    ++piece_records;
  }
  if (!reader.ok()) {
    GLTRACE_LOG_WARN("trace output to %s: dropped the malformed end of an oversized payload: %s",
                     s.name.c_str(), reader.error());
  }
  flush();
}

// Writes a chunk payload, encoded: as one chunk, or split when over the limit.
void write_encoded(WriterState& s, const uint8_t* data, size_t size, uint32_t record_count) {
  uint64_t chunk_offset = s.offset;
  s.raw_bytes += size;
  if (size <= kMaxRawSize) {
    if (!write_chunk(s, data, size, record_count, 0)) return;
    s.records += record_count;
  } else {
    write_split(s, data, size);
    if (s.failed) return;
  }
  // A split payload's frames point at its first chunk: a seek lands at or before them.
  if (s.kind == OutputKind::kMemory) return;  // no index: chunks come and go
  for (const FrameStart& f : s.frames) {
    if (s.index.size() >= kMaxIndexEntries) break;
    s.index.push_back({f.frame, chunk_offset, f.seq});
  }
}

// Room kept for encoding payloads (a payload of large blobs needs more once).
constexpr size_t kKeptExpandedBytes = size_t{4} << 20;

void write_payload(WriterState& s, const Payload& payload) {
  // The capture thread's flat calls are encoded here (flat_calls.h).
  size_t room = expanded_room(payload.data(), payload.size());
  if (room > s.expanded_capacity) {
    auto* grown = static_cast<uint8_t*>(realloc(s.expanded, room));
    if (grown == nullptr) {
      s.dropped_payloads++;
      return;
    }
    s.expanded = grown;
    s.expanded_capacity = room;
  }
  uint32_t record_count = 0;
  size_t size = expand_flat_calls(payload.data(), payload.size(), s.tag.thread,
                                  s.options.time_unit_ns, s.expanded, &record_count);
  write_encoded(s, s.expanded, size, record_count);
  if (s.expanded_capacity > kKeptExpandedBytes) {
    free(s.expanded);
    s.expanded = nullptr;
    s.expanded_capacity = 0;
  }
}

void write_index_and_footer(WriterState& s) {
  wire::Encoder encoder;
  for (const IndexEntry& e : s.index) {
    size_t mark = schema::index::begin_entries(encoder);
    schema::index_entry::set_frame(encoder, e.frame);
    schema::index_entry::set_chunk_offset(encoder, e.chunk_offset);
    schema::index_entry::set_seq(encoder, e.seq);
    encoder.end_nested(mark);
  }
  uint64_t index_offset = s.offset;
  if (!write_chunk(s, encoder.data(), encoder.size(), static_cast<uint32_t>(s.index.size()),
                   kChunkIndexFlag)) {
    return;
  }
  uint8_t footer[kFooterSize];
  memcpy(footer, kFooterMagic, 8);
  put_u64(footer + 8, index_offset);
  write_raw(s, footer, sizeof footer);
}

void recycle(WriterState& s, Payload payload) {
  // Under s.mu. The pool is reserved up front, so this never allocates.
  if (payload.capacity() == 0 || s.pool.size() >= s.options.pooled_buffers ||
      s.pool_bytes + payload.capacity() > s.options.queue_limit_bytes) {
    return;
  }
  payload.clear();
  s.pool_bytes += payload.capacity();
  s.pool.push_back(std::move(payload));
}

void run(WriterState& s) {
  try {
    uint8_t header[kFileHeaderSize];
    memcpy(header, kFileMagic, 8);
    put_u32(header + 8, kFormatVersion);
    put_u32(header + 12, 0);
    if (s.kind != OutputKind::kMemory) write_raw(s, header, sizeof header);
    for (;;) {
      Payload payload;
      {
        std::unique_lock lock(s.mu);
        s.work_cv.wait(lock, [&] { return s.count > 0 || (s.closing && s.waiting == 0); });
        if (s.count == 0) break;
        detail::Slot& slot = s.ring[s.head];
        payload = std::move(slot.payload);
        s.tag = slot.tag;
        std::swap(slot.frames, s.frames);  // both keep their capacity
        if (s.kind == OutputKind::kMemory) {
          s.in_progress_tag = slot.tag;
          s.in_progress_seen = s.memory->appended();
          s.in_progress.store(&payload, std::memory_order_release);
        }
        s.head = (s.head + 1) % s.ring.size();
        s.count--;
      }
      size_t size = payload.size();
      if (!s.failed) {
        write_payload(s, payload);
      } else {
        s.dropped_payloads++;
      }
      s.frames.clear();
      {
        std::lock_guard lock(s.mu);
        s.in_progress.store(nullptr, std::memory_order_release);
        s.queued_bytes -= size;
        recycle(s, std::move(payload));
      }
      s.space_cv.notify_all();
    }
    if (!s.failed && s.kind != OutputKind::kMemory &&
        (s.kind == OutputKind::kFile || s.options.stream_index))
      write_index_and_footer(s);
    // No fsync: what reached the kernel survives the app's crash, and the
    // app's exit waits for close(): a sync there cost it milliseconds.
  } catch (...) {  // out of memory in the index or the queue: end the trace here
    fail(s, ENOMEM, s.offset);
  }
  if (s.fd >= 0) ::close(s.fd);
  {
    std::lock_guard lock(s.mu);
    s.done = true;
  }
  s.done_cv.notify_all();
  s.space_cv.notify_all();
}

std::string errno_message(const std::string& what) { return what + ": " + strerror(errno); }

// Starts the writer thread on fd (owned from here on); null on failure.
// fd -1: into `memory`.
std::shared_ptr<WriterState> start(int fd, std::string name, const WriterOptions& options,
                                   std::string* error,
                                   std::shared_ptr<ChunkRing> memory = nullptr) {
  struct stat st {};
  if (memory == nullptr && fstat(fd, &st) != 0) {
    if (error != nullptr) *error = errno_message("cannot use trace output " + name);
    return nullptr;
  }
  OutputKind kind = memory != nullptr      ? OutputKind::kMemory
                    : S_ISREG(st.st_mode)  ? OutputKind::kFile
                    : S_ISSOCK(st.st_mode) ? OutputKind::kSocket
                                           : OutputKind::kPipe;
  std::shared_ptr<WriterState> state;
  try {
    state = std::make_shared<WriterState>(fd, kind, std::move(name), options);
    state->memory = std::move(memory);
    state->ring.resize(64);
    state->pool.reserve(options.pooled_buffers);
    state->frames.reserve(16);
    // The thread starts with every signal blocked: the app's handlers never
    // run on it, and a write to a closed pipe leaves SIGPIPE pending instead
    // of killing the process.
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    try {
      state->thread = std::thread([state] { run(*state); });
    } catch (...) {
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
      throw;
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  } catch (const std::exception& e) {
    if (fd >= 0) ::close(fd);
    if (error != nullptr) *error = std::string("cannot start the trace writer: ") + e.what();
    return nullptr;
  }
  return state;
}

// Factories do not throw either: a failure to allocate is an error like any other.
template <typename F>
std::unique_ptr<TraceWriter> no_throw(std::string* error, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (error != nullptr) *error = e.what();
    return nullptr;
  }
}

}  // namespace

TraceWriter::TraceWriter(std::shared_ptr<WriterState> state) : state_(std::move(state)) {}

TraceWriter::~TraceWriter() {
  // A forked child must not join the parent's thread; its state just leaks.
  if (!forked_child(*state_)) close(nullptr);
}

std::unique_ptr<TraceWriter> TraceWriter::open_file(const std::string& path,
                                                    const WriterOptions& options,
                                                    std::string* error) {
  return no_throw(error, [&]() -> std::unique_ptr<TraceWriter> {
    // 0600: a trace holds what the app drew and uploaded.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (error != nullptr) *error = errno_message("cannot create trace file " + path);
      return nullptr;
    }
    auto state = start(fd, path, options, error);
    return state == nullptr ? nullptr : std::unique_ptr<TraceWriter>(new TraceWriter(state));
  });
}

std::unique_ptr<TraceWriter> TraceWriter::connect_unix_socket(const std::string& socket_path,
                                                              const WriterOptions& options,
                                                              std::string* error) {
  return no_throw(error, [&]() -> std::unique_ptr<TraceWriter> {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.empty() || socket_path.size() >= sizeof addr.sun_path) {
      if (error != nullptr) *error = "bad socket path '" + socket_path + "' (empty or too long)";
      return nullptr;
    }
    memcpy(addr.sun_path, socket_path.data(), socket_path.size());
    auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path.size());
    if (socket_path[0] == '@') {
      addr.sun_path[0] = '\0';  // "@name": Linux's abstract namespace, no NUL at the end
    } else {
      length += 1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      if (error != nullptr) *error = errno_message("cannot create a socket");
      return nullptr;
    }
    int rc;
    do {
      rc = connect(fd, reinterpret_cast<const sockaddr*>(&addr), length);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      if (error != nullptr) *error = errno_message("cannot connect to " + socket_path);
      ::close(fd);
      return nullptr;
    }
    // The trace holds the app's data: only a host of the same user (or root) gets it.
    ucred peer{};
    socklen_t peer_size = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 ||
        (peer.uid != geteuid() && peer.uid != 0)) {
      if (error != nullptr)
        *error = "refusing to send the trace to " + socket_path + ": its listener is uid " +
                 std::to_string(peer.uid) + ", not this user";
      ::close(fd);
      return nullptr;
    }
    auto state = start(fd, socket_path, options, error);
    return state == nullptr ? nullptr : std::unique_ptr<TraceWriter>(new TraceWriter(state));
  });
}

std::unique_ptr<TraceWriter> TraceWriter::from_fd(int fd, const WriterOptions& options,
                                                  std::string* error, const std::string& name) {
  return no_throw(error, [&]() -> std::unique_ptr<TraceWriter> {
    auto state = start(fd, name.empty() ? "fd " + std::to_string(fd) : name, options, error);
    return state == nullptr ? nullptr : std::unique_ptr<TraceWriter>(new TraceWriter(state));
  });
}

std::unique_ptr<TraceWriter> TraceWriter::to_memory(std::shared_ptr<ChunkRing> ring,
                                                    const WriterOptions& options,
                                                    std::string* error) {
  return no_throw(error, [&]() -> std::unique_ptr<TraceWriter> {
    auto state = start(-1, "memory", options, error, std::move(ring));
    return state == nullptr ? nullptr : std::unique_ptr<TraceWriter>(new TraceWriter(state));
  });
}

bool TraceWriter::write_pending(int fd, ChunkFilter& filter) const noexcept {
  const WriterState& s = *state_;
  const Payload* busy = s.in_progress.load(std::memory_order_acquire);
  if (busy != nullptr && s.memory->appended() == s.in_progress_seen &&
      filter.keep(s.in_progress_tag) &&
      !write_flat_chunk(fd, busy->data(), busy->size(), s.in_progress_tag.thread,
                        s.options.time_unit_ns))
    return false;
  if (s.ring.empty()) return true;
  for (size_t i = 0; i < s.count && i < s.ring.size(); ++i) {
    const detail::Slot& slot = s.ring[(s.head + i) % s.ring.size()];
    if (slot.payload.data() == nullptr || !filter.keep(slot.tag)) continue;
    if (!write_flat_chunk(fd, slot.payload.data(), slot.payload.size(), slot.tag.thread,
                          s.options.time_unit_ns))
      return false;
  }
  return true;
}

Payload TraceWriter::acquire_buffer() noexcept {
  WriterState& s = *state_;
  if (forked_child(s)) return {};
  std::lock_guard lock(s.mu);
  if (s.pool.empty()) return {};
  Payload payload = std::move(s.pool.back());
  s.pool.pop_back();
  s.pool_bytes -= payload.capacity();
  return payload;
}

namespace {

// Queues the payload that take() hands over, once there is room: until then
// the caller holds it (see TraceWriter::submit(wire::Encoder&...)).
template <typename Take>
void queue_payload(WriterState& s, size_t size, std::span<const FrameStart> frames, ChunkTag tag,
                   Take take) noexcept {
  if (forked_child(s)) {
    take();  // dropped
    return;
  }
  {
    std::unique_lock lock(s.mu);
    if (size == 0 || s.closing || s.failed) {
      if (size != 0) s.dropped_payloads++;
      recycle(s, take());
      return;
    }
    auto has_room = [&] {
      return s.queued_bytes == 0 || s.queued_bytes + size <= s.options.queue_limit_bytes;
    };
    if (!has_room()) {
      auto start_time = std::chrono::steady_clock::now();
      s.waiting++;
      s.space_cv.wait(lock, [&] { return has_room() || s.failed || s.done; });
      s.waiting--;
      s.stall_count++;
      s.stall_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now() - start_time)
                                              .count());
      if (s.failed || s.done) {
        s.dropped_payloads++;
        recycle(s, take());
        lock.unlock();
        s.work_cv.notify_one();  // close() may be waiting for the last waiter
        return;
      }
    }
    try {
      if (s.count == s.ring.size()) {  // warming up: more payloads in flight than ever
        std::vector<detail::Slot> grown(s.ring.size() * 2);
        for (size_t i = 0; i < s.count; ++i)
          grown[i] = std::move(s.ring[(s.head + i) % s.ring.size()]);
        s.ring.swap(grown);
        s.head = 0;
      }
      detail::Slot& slot = s.ring[(s.head + s.count) % s.ring.size()];
      slot.frames.assign(frames.begin(), frames.end());
      slot.payload = take();
      slot.tag = tag;
      s.count++;
      s.queued_bytes += size;
    } catch (...) {  // out of memory: lose this payload, not the app
      s.dropped_payloads++;
      take();
      return;
    }
  }
  s.work_cv.notify_one();
}

}  // namespace

void TraceWriter::submit(Payload payload, std::span<const FrameStart> frames,
                         ChunkTag tag) noexcept {
  size_t size = payload.size();
  queue_payload(*state_, size, frames, tag, [&] { return std::move(payload); });
}

void TraceWriter::submit(wire::Encoder& payload, std::span<const FrameStart> frames,
                         ChunkTag tag) noexcept {
  queue_payload(*state_, payload.size(), frames, tag,
                [&] { return Payload::from_encoder(payload); });
}

bool TraceWriter::failed() const noexcept { return state_->failed; }

uint64_t TraceWriter::time_unit_ns() const noexcept { return state_->options.time_unit_ns; }

TraceWriter::Stats TraceWriter::stats() const noexcept {
  const WriterState& s = *state_;
  Stats st;
  st.chunks = s.chunks;
  st.records = s.records;
  st.raw_bytes = s.raw_bytes;
  st.stored_bytes = s.stored_bytes;
  st.bytes_written = s.bytes_written;
  st.stall_count = s.stall_count;
  st.stall_ns = s.stall_ns;
  st.write_errors = s.write_errors;
  st.dropped_payloads = s.dropped_payloads;
  st.dropped_records = s.dropped_records;
  return st;
}

bool TraceWriter::close(std::string* error) noexcept {
  WriterState& s = *state_;
  if (forked_child(s)) {
    if (error != nullptr) *error = "the trace writer belongs to the parent process";
    return false;
  }
  std::lock_guard close_lock(s.close_mu);
  if (!s.closed) try {
      std::unique_lock lock(s.mu);
      s.closing = true;
      s.work_cv.notify_all();
      auto finished = [&] { return s.done; };
      bool done = true;
      if (s.options.close_timeout_ms <= 0) {
        s.done_cv.wait(lock, finished);
      } else {
        done = s.done_cv.wait_for(lock, std::chrono::milliseconds(s.options.close_timeout_ms),
                                  finished);
        if (!done && s.kind == OutputKind::kSocket) {
          // A peer that stopped reading: cut it off so the blocked send fails.
          GLTRACE_LOG_WARN("trace output to %s: stuck for %d ms at close, disconnecting",
                           s.name.c_str(), s.options.close_timeout_ms);
          shutdown(s.fd, SHUT_RDWR);
          done = s.done_cv.wait_for(lock, std::chrono::seconds(2), finished);
        }
      }
      lock.unlock();
      if (done) {
        s.thread.join();
        s.close_ok = !s.failed;
        std::lock_guard relock(s.mu);
        s.close_error = s.failure;
      } else {
        GLTRACE_LOG_ERROR(
            "trace output to %s: stuck at close for %d ms, giving up; the trace "
            "ends at its last complete chunk",
            s.name.c_str(), s.options.close_timeout_ms);
        s.thread.detach();  // it owns a reference to the state
        s.close_ok = false;
        s.close_error = "trace output to " + s.name + " stuck at close";
      }
      s.closed = true;
    } catch (...) {  // only the messages allocate; the outcome stands without them
      s.closed = true;
    }
  if (error != nullptr && !s.close_ok) {
    try {
      *error = s.close_error;
    } catch (...) {
    }
  }
  return s.close_ok;
}

}  // namespace gltrace::format
