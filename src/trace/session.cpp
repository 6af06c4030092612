#include "trace/session.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/log.h"
#include "common/process.h"
#include "format/schema.h"
#include "format/writer.h"
#include "trace/modes.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

// Past this, a thread's records go to the writer even mid-frame.
constexpr size_t kFlushBytes = 256 * 1024;
// At the end of a frame, records go to the writer when there are this many,
// or when the last hand-over is this old: few, large chunks compress well
// and cheaply, and a crash loses at most ~100 ms of calls.
constexpr size_t kFrameFlushBytes = 64 * 1024;
constexpr uint64_t kFlushIntervalNs = 100'000'000;

struct Session {
  std::unique_ptr<format::TraceWriter> writer;
  std::atomic<bool> recording{false};
  uint64_t start_ns = 0;
  std::atomic<uint64_t> seq{0};
  std::atomic<uint64_t> frames{0};
  std::atomic<uint64_t> calls{0};
  std::atomic<uint32_t> thread_count{0};
  std::mutex mutex;  // threads, contexts
  std::vector<ThreadState*> threads;
  std::unordered_map<uint64_t, uint32_t> contexts;
  std::string output;
  bool framebuffer_on_swap = false;
  bool framebuffer_on_draw = false;
  bool texture_data = true;
};

// Read on every call: plain globals, set once before recording starts.
bool g_thread_time = false;

// Never destroyed: app threads may still call GL while the process exits.
Session& session() {
  static auto* s = new Session();
  return *s;
}

__thread ThreadState* t_thread __attribute__((tls_model("initial-exec"))) = nullptr;

// A 64-bit content hash for blob deduplication: 8 bytes a step.
uint64_t hash_bytes(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (size * 0xff51afd7ed558ccdull);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t v;
    memcpy(&v, p + i, 8);
    h ^= v * 0xc4ceb9fe1a85ec53ull;
    h = ((h << 31) | (h >> 33)) * 0x9e3779b97f4a7c15ull;
  }
  uint64_t tail = 0;
  memcpy(&tail, p + i, size - i);
  h ^= tail * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

std::string expand_output_pattern(const char* pattern) {
  std::string out;
  for (const char* p = pattern; *p != '\0'; ++p) {
    if (p[0] == '%' && p[1] == 'p') {
      out += std::to_string(getpid());
      ++p;
    } else if (p[0] == '%' && p[1] == 'n') {
      out += process_name();
      ++p;
    } else {
      out += *p;
    }
  }
  return out;
}

std::string command_line() {
  std::string line;
  FILE* f = fopen("/proc/self/cmdline", "rb");
  if (f == nullptr) return line;
  int c;
  while ((c = fgetc(f)) != EOF) line += c == 0 ? ' ' : static_cast<char>(c);
  fclose(f);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

void write_thread_record(ThreadState* thread) {
  wire::Encoder body;
  body.uint_field(schema::thread::kIndex, thread->index);
  body.uint_field(schema::thread::kTid, static_cast<uint64_t>(syscall(SYS_gettid)));
  char name[32] = "";
  FILE* f =
      fopen(("/proc/self/task/" + std::to_string(syscall(SYS_gettid)) + "/comm").c_str(), "r");
  if (f != nullptr) {
    if (fgets(name, sizeof name, f) != nullptr) name[strcspn(name, "\n")] = '\0';
    fclose(f);
  }
  body.string_field(schema::thread::kName, name);
  append_record(thread, schema::record::kThread, body.data(), body.size());
}

}  // namespace

bool recording() { return session().recording.load(std::memory_order_relaxed); }

uint64_t next_seq() { return session().seq.fetch_add(1, std::memory_order_relaxed); }

bool capture_framebuffer_on_swap() { return session().framebuffer_on_swap; }
bool capture_framebuffer_on_draw() { return session().framebuffer_on_draw; }
bool capture_texture_data() { return session().texture_data; }
bool capture_thread_time() { return g_thread_time; }

uint64_t frames_completed() { return session().frames.load(std::memory_order_relaxed); }

uint64_t trace_time(uint64_t clock_ns) { return clock_ns - session().start_ns; }

ThreadState* thread_state() {
  ThreadState* thread = t_thread;
  if (thread != nullptr) return thread;
  thread = new ThreadState();  // owned by the session's list, never freed
  Session& s = session();
  thread->index = s.thread_count.fetch_add(1) + 1;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.threads.push_back(thread);
  }
  t_thread = thread;
  thread->frame_starts.reserve(256);
  thread->last_flush_ns = now_ns();
  write_thread_record(thread);
  return thread;
}

void append_record(ThreadState* thread, uint32_t kind, const uint8_t* body, size_t size,
                   const wire::Encoder* tail) {
  wire::Encoder& out = thread->payload;
  size_t message_size = size + (tail != nullptr ? tail->size() : 0);
  out.tag(schema::chunk::kRecords, wire::kLengthDelimited);
  out.raw_varint(wire::varint_size((uint64_t{kind} << 3) | wire::kLengthDelimited) +
                 wire::varint_size(message_size) + message_size);
  out.tag(kind, wire::kLengthDelimited);
  out.raw_varint(message_size);
  out.raw(body, size);
  if (tail != nullptr) out.raw(tail->data(), tail->size());
  ++thread->records;
  if (kind == schema::record::kCall) session().calls.fetch_add(1, std::memory_order_relaxed);
  if (out.size() >= kFlushBytes) flush_thread(thread);
}

uint64_t store_blob(ThreadState* thread, const void* data, size_t size) {
  uint64_t id = hash_bytes(data, size);
  if (mode() == Mode::kFull && thread->blobs.insert(id).second) {
    wire::Encoder& out = thread->payload;
    // Record{blob = Blob{id, data}} written in place: no copy of the data.
    size_t blob_size = 1 + 8 + 1 + wire::varint_size(size) + size;
    size_t record_size = 1 + wire::varint_size(blob_size) + blob_size;
    out.tag(schema::chunk::kRecords, wire::kLengthDelimited);
    out.raw_varint(record_size);
    out.tag(schema::record::kBlob, wire::kLengthDelimited);
    out.raw_varint(blob_size);
    out.fixed64_field(schema::blob::kId, id);
    out.bytes_field(schema::blob::kData, data, size);
    ++thread->records;
  }
  return id;
}

void flush_thread(ThreadState* thread) {
  Session& s = session();
  if (thread->records == 0 || s.writer == nullptr) return;
  s.writer->submit(format::Payload::from_encoder(thread->payload), thread->records,
                   thread->frame_starts);
  thread->records = 0;
  thread->chunk_has_call = false;
  thread->frame_starts.clear();
  thread->last_flush_ns = now_ns();
  s.writer->acquire_buffer().give_to(thread->payload);
}

void end_frame(ThreadState* thread, uint64_t swap_seq) {
  Session& s = session();
  thread->busy.store(true);
  if (!recording()) return thread->busy.store(false);
  struct Done {
    ThreadState* t;
    ~Done() { t->busy.store(false, std::memory_order_release); }
  } done{thread};
  uint64_t number = s.frames.fetch_add(1);
  if (mode() != Mode::kFull) {
    text_mode_frame(thread, number, trace_time(now_ns()));
    thread->frame_started = true;
    return;
  }
  wire::Encoder body;
  body.uint_field(schema::frame::kNumber, number);
  body.uint_field(schema::frame::kSeq, swap_seq);
  body.uint_field(schema::frame::kThread, thread->index);
  body.uint_field(schema::frame::kContext, thread->context);
  body.uint_field(schema::frame::kTimeNs, trace_time(now_ns()));
  append_record(thread, schema::record::kFrame, body.data(), body.size());
  if (thread->payload.size() >= kFrameFlushBytes ||
      now_ns() - thread->last_flush_ns >= kFlushIntervalNs)
    flush_thread(thread);
  thread->frame_started = true;
}

uint32_t context_index(uint64_t handle, bool* created) {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [it, inserted] = s.contexts.emplace(handle, static_cast<uint32_t>(s.contexts.size() + 1));
  *created = inserted;
  return it->second;
}

void start_session() {
  Session& s = session();
  calibrate_tsc_clock();
  const char* pattern = env_get("GLTRACE_TRACE_FILE");
  const char* socket = env_get("GLTRACE_TRACE_SOCKET");
  std::string error;
  Mode trace_mode = Mode::kFull;
  const char* mode_env = env_get("GLTRACE_TRACE_MODE");
  if (mode_env != nullptr && *mode_env != '\0' && !parse_mode(mode_env, &trace_mode))
    GLTRACE_LOG_WARN("unknown GLTRACE_TRACE_MODE '%s' (full, log, error, systrace): using full",
                     mode_env);
  if (trace_mode != Mode::kFull) {
    s.output = pattern != nullptr && *pattern != '\0' ? expand_output_pattern(pattern) : "";
    s.start_ns = now_ns();
    if (!open_text_output(trace_mode, s.output.c_str(), static_cast<uint32_t>(getpid()),
                          process_name().c_str())) {
      GLTRACE_LOG_ERROR("cannot open %s for the %s mode: %s", s.output.c_str(),
                        mode_name(trace_mode), strerror(errno));
      return;
    }
    s.recording.store(true);
    return;
  }
  const char* framebuffer = env_get("GLTRACE_CAPTURE_FRAMEBUFFER");
  std::string framebuffer_list = framebuffer != nullptr ? std::string(",") + framebuffer + "," : "";
  s.framebuffer_on_swap = framebuffer_list.find(",swap,") != std::string::npos;
  s.framebuffer_on_draw = framebuffer_list.find(",draw,") != std::string::npos;
  const char* texture_data = env_get("GLTRACE_TEXTURE_DATA");
  s.texture_data = texture_data == nullptr || strcmp(texture_data, "0") != 0;
  const char* thread_time = env_get("GLTRACE_THREAD_TIME");
  g_thread_time = thread_time != nullptr && strcmp(thread_time, "1") == 0;
  format::WriterOptions options;
  if (const char* level = env_get("GLTRACE_ZSTD_LEVEL")) options.zstd_level = atoi(level);
  if (socket != nullptr && *socket != '\0') {
    s.output = socket;
    s.writer = format::TraceWriter::connect_unix_socket(socket, options, &error);
  } else if (pattern != nullptr && *pattern != '\0') {
    s.output = expand_output_pattern(pattern);
    s.writer = format::TraceWriter::open_file(s.output, options, &error);
  } else {
    GLTRACE_LOG_ERROR(
        "trace layer loaded without an output: set GLTRACE_TRACE_FILE (or use "
        "gltrace trace -o FILE); calls pass through unrecorded");
    return;
  }
  if (s.writer == nullptr) {
    GLTRACE_LOG_ERROR("cannot open trace output %s: %s; calls pass through unrecorded",
                      s.output.c_str(), error.c_str());
    return;
  }
  s.start_ns = now_ns();
  // The header goes straight to the writer, ahead of every thread's records.
  wire::Encoder body;
  body.uint_field(schema::header::kFormatVersion, 1);
  body.uint_field(schema::header::kPid, static_cast<uint64_t>(getpid()));
  body.string_field(schema::header::kProcessName, process_name());
  body.string_field(schema::header::kCommandLine, command_line());
  body.string_field(schema::header::kClockDomain, "CLOCK_MONOTONIC");
  body.uint_field(schema::header::kStartTimeNs, s.start_ns);
  body.string_field(schema::header::kMode, "full");
  std::string options_text = std::string("framebuffer=") +
                             (s.framebuffer_on_swap && s.framebuffer_on_draw ? "swap,draw"
                              : s.framebuffer_on_swap                        ? "swap"
                              : s.framebuffer_on_draw                        ? "draw"
                                                                             : "off") +
                             " texture-data=" + (s.texture_data ? "on" : "off") +
                             " thread-time=" + (g_thread_time ? "on" : "off");
  body.string_field(schema::header::kCaptureOptions, options_text);
  wire::Encoder record;
  record.tag(schema::chunk::kRecords, wire::kLengthDelimited);
  record.raw_varint(1 + wire::varint_size(body.size()) + body.size());
  record.bytes_field(schema::record::kHeader, body.data(), body.size());
  s.writer->submit(format::Payload::from_encoder(record), 1, {});
  s.recording.store(true);
  GLTRACE_LOADER_DEBUG("trace layer: recording to %s", s.output.c_str());
}

void end_session() {
  Session& s = session();
  if (!s.recording.exchange(false)) return;
  if (mode() != Mode::kFull) return close_text_output();
  if (s.writer == nullptr) return;
  std::lock_guard<std::mutex> lock(s.mutex);
  ThreadState* last = nullptr;
  for (ThreadState* thread : s.threads) {
    // A thread in the middle of a call finishes it first (bounded: a thread
    // stuck in a driver call for a second loses that call).
    for (int i = 0; i < 1000 && thread->busy.load(std::memory_order_acquire); ++i) usleep(1000);
    if (thread->busy.load(std::memory_order_acquire)) continue;
    flush_thread(thread);
    last = thread;
  }
  if (last != nullptr) {
    format::TraceWriter::Stats ws = s.writer->stats();
    wire::Encoder body;
    body.uint_field(schema::stats::kCalls, s.calls.load());
    body.uint_field(schema::stats::kFrames, s.frames.load());
    body.uint_field(schema::stats::kBytesUncompressed, ws.raw_bytes);
    body.uint_field(schema::stats::kStallCount, ws.stall_count);
    body.uint_field(schema::stats::kStallNs, ws.stall_ns);
    append_record(last, schema::record::kStats, body.data(), body.size());
    flush_thread(last);
  }
  format::TraceWriter::Stats ws = s.writer->stats();
  s.writer->close();  // it logs its own failure
  if (ws.stall_count != 0)
    GLTRACE_LOG_WARN("trace %s: the app waited for the writer %llu times (%.1f ms in all)",
                     s.output.c_str(), static_cast<unsigned long long>(ws.stall_count),
                     static_cast<double>(ws.stall_ns) / 1e6);
}

}  // namespace gltrace::trace
