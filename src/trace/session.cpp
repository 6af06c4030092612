#include "trace/session.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "common/log.h"
#include "common/process.h"
#include "format/container.h"
#include "format/encoders.h"
#include "format/flat_calls.h"
#include "format/output_file.h"
#include "format/record_builder.h"
#include "format/schema.h"
#include "format/writer.h"
#include "trace/flight.h"
#include "trace/modes.h"
#include "trace/recorder.h"
#include "trace/tsc_clock.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

// At the end of a frame, records go to the writer when there are this many,
// or when the last hand-over is this old: few, large chunks compress well
// and cheaply. (Flat calls take about 2.5 times the bytes they are encoded
// in: this makes chunks of about 64 KiB.)
constexpr size_t kFrameFlushBytes = 160 * 1024;
// A thread that does not flush itself (idle, blocked in a call, in a long
// frame) has its records taken by the sweeper once they are this old; it
// looks every kSweepPeriodNs, so a record waits at most kFlushIntervalNs
// (one sweep may find the thread in a call) and a crash loses at most that
// much of every thread.
constexpr uint64_t kSweepPeriodNs = 25'000'000;
constexpr uint64_t kSweepAgeNs = kFlushIntervalNs - 2 * kSweepPeriodNs;

struct Session {
  // App threads read it without the lock; a closed writer is kept alive (a
  // thread may still be in submit()), and later ones replace it.
  std::atomic<format::TraceWriter*> writer{nullptr};
  std::vector<std::unique_ptr<format::TraceWriter>> writers;  // owned, never freed
  std::atomic<bool> stop_pending{false};
  uint64_t max_frames = 0;
  std::atomic<bool> mid_run{false};
  std::atomic<uint64_t> frames{0};
  std::atomic<uint64_t> app_frames{0};
  std::atomic<uint32_t> thread_count{0};
  std::mutex mutex;                   // threads, contexts, session start and end
  std::vector<ThreadState*> threads;  // every thread that ever recorded
  // Each context's index in the session, and the epoch its Context record
  // was last written in.
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> contexts;
  std::atomic<uint32_t> epoch{0};
  std::string output;
  // Read on every call: relaxed atomics, changed while recording only by a
  // live host's "options" request.
  std::atomic<bool> framebuffer_on_swap{false};
  std::atomic<bool> framebuffer_on_draw{false};
  std::atomic<bool> texture_data{true};
  format::TraceWriter::Stats last_stats;  // of the session that ended last
  uint64_t complete_below = 0;            // the last CallsComplete record's seq
  std::atomic<uint64_t> last_blob_id{0};  // blob ids are 1, 2, ... in a session
};

// Never destroyed: app threads may still call GL while the process exits.
Session& session() {
  static auto* s = new Session();
  return *s;
}

void write_thread_record(ThreadState* thread) {
  wire::Encoder body;
  schema::thread::set_index(body, thread->index);
  schema::thread::set_tid(body, static_cast<uint64_t>(syscall(SYS_gettid)));
  char name[32] = "";
  FILE* f =
      fopen(("/proc/self/task/" + std::to_string(syscall(SYS_gettid)) + "/comm").c_str(), "r");
  if (f != nullptr) {
    if (fgets(name, sizeof name, f) != nullptr) name[strcspn(name, "\n")] = '\0';
    fclose(f);
  }
  schema::thread::set_name(body, name);
  append_record(thread, schema::record::kThread, body.data(), body.size());
}

// The other side of enter_busy(): after this, a thread that marked itself
// busy before recording stopped is seen busy, and one that marks itself
// later sees recording stopped. membarrier() is tried whatever light_fence
// says: it fails (and the full fence is used) only while the registration,
// which precedes light_fence, has not happened.
void fence_with_app_threads() {
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// App threads may fence lightly once membarrier() can fence them (Linux
// 4.14+). Registering waits for an RCU grace period in a threaded process
// (~10 ms), so a thread of its own does it; calls fence fully meanwhile.
void register_light_fence() {
  static std::atomic<bool> requested{false};
  if (requested.exchange(true)) return;
  std::thread([] {
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
      g_hot.light_fence.store(true);
  }).detach();
}

}  // namespace

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

constinit HotState g_hot;
__thread ThreadState* t_thread __attribute__((tls_model("initial-exec"))) = nullptr;

AppendGuard::AppendGuard(ThreadState* thread) : thread_(thread), ok_(enter_busy(thread)) {}

AppendGuard::~AppendGuard() {
  if (ok_) leave_busy(thread_);
}

bool capture_framebuffer_on_swap() {
  return session().framebuffer_on_swap.load(std::memory_order_relaxed);
}
bool capture_framebuffer_on_draw() {
  return session().framebuffer_on_draw.load(std::memory_order_relaxed);
}
bool capture_texture_data() { return session().texture_data.load(std::memory_order_relaxed); }

CaptureOptions capture_options() {
  return {capture_framebuffer_on_swap(), capture_framebuffer_on_draw(), capture_texture_data(),
          capture_thread_time(), capture_gpu_time()};
}

void set_capture_options(const CaptureOptions& options) {
  Session& s = session();
  s.framebuffer_on_swap.store(options.framebuffer_on_swap);
  s.framebuffer_on_draw.store(options.framebuffer_on_draw);
  s.texture_data.store(options.texture_data);
  g_hot.thread_time.store(options.thread_time);
  g_hot.gpu_time.store(options.gpu_time);
}

uint64_t frames_completed() { return session().frames.load(std::memory_order_relaxed); }

bool session_mid_run() { return session().mid_run.load(std::memory_order_relaxed); }

bool last_frame_of_session() {
  Session& s = session();
  return s.max_frames != 0 && frames_completed() + 1 >= s.max_frames;
}

uint64_t app_frames() { return session().app_frames.load(std::memory_order_relaxed); }
void count_app_frame() { session().app_frames.fetch_add(1, std::memory_order_relaxed); }

ThreadState* join_thread_state() {
  Session& s = session();
  // Under the lock the sweeper holds: it sees the thread whole or not at all.
  std::lock_guard<std::mutex> lock(s.mutex);
  uint32_t generation = g_hot.generation.load(std::memory_order_relaxed);
  ThreadState* thread = t_thread;
  if (thread == nullptr) {
    thread = new ThreadState();  // owned by the session's list, never freed
    thread->frame_starts.reserve(256);
    s.threads.push_back(thread);
    t_thread = thread;
  }
  // New in this session: what the last one left was flushed by end_session.
  thread->generation = generation;
  thread->index = s.thread_count.fetch_add(1) + 1;
  thread->context = 0;
  thread->payload.clear();
  thread->records = 0;
  thread->calls.store(0, std::memory_order_relaxed);
  thread->blobs.clear();
  thread->frame_starts.clear();
  thread->pending_gl_error = 0;
  thread->frame_started = true;
  thread->context_data = nullptr;
  thread->context_data_index = 0;
  thread->last_seq = 0;
  thread->round = g_hot.flight_round.load();
  thread->round_start = true;
  thread->round_snapshot = false;
  // Its calls take seqs from here on.
  thread->submitted_below.store(g_hot.seq.load(), std::memory_order_relaxed);
  thread->last_flush_ns.store(now_ns(), std::memory_order_relaxed);
  write_thread_record(thread);
  return thread;
}

void append_record(ThreadState* thread, uint32_t kind, const uint8_t* body, size_t size) {
  wire::Encoder& out = thread->payload;
  format::append_record(out, kind, body, size);
  ++thread->records;
  if (out.size() >= kFlushBytes) flush_thread(thread);
}

uint64_t store_blob(ThreadState* thread, const void* data, size_t size) {
  BlobHash hash = hash_blob(data, size);
  if (mode() != Mode::kFull) return hash.low;
  BlobTable::Stored stored = thread->blobs.store(thread->payload, thread->flushes, hash, data, size,
                                                 session().last_blob_id);
  if (stored.written) ++thread->records;
  return stored.id;
}

void flush_thread(ThreadState* thread) {
  Session& s = session();
  format::TraceWriter* writer = s.writer.load(std::memory_order_acquire);
  if (thread->records == 0 || writer == nullptr) return;
  size_t capacity = thread->payload.capacity();
  writer->submit(thread->payload, thread->frame_starts,
                 {thread->index, thread->round, thread->round_start});
  // A join's start is its first chunk; a round's snapshot, every chunk until it ends.
  if (!thread->round_snapshot) thread->round_start = false;
  thread->records = 0;
  thread->frame_starts.clear();
  writer->acquire_buffer().give_to(thread->payload);
  // No recycled buffer (the writer holds them all): one as large as the last
  // at once, not one grown from 4 KiB by doubling (a copy of every byte);
  // not one as large as a payload a big upload made.
  if (thread->payload.capacity() == 0) thread->payload.reserve(std::min(capacity, 2 * kFlushBytes));
  ++thread->flushes;  // the blobs' bytes in the payload are the writer's now
  // A call in progress (a record of it overflowed the payload) has last_seq.
  thread->submitted_below.store(
      std::max(thread->submitted_below.load(std::memory_order_relaxed), thread->last_seq),
      std::memory_order_release);
  continue_tsc_calibration();
  thread->last_flush_ns.store(now_ns(), std::memory_order_relaxed);
}

bool enter_busy_slow(ThreadState* thread) {
  for (;;) {
    thread->busy.store(false, std::memory_order_release);
    if (!recording()) return false;
    // The sweeper is handing this thread's payload to the writer: a submit.
    while (thread->claimed.load(std::memory_order_acquire)) sched_yield();
    thread->busy.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (recording() && !thread->claimed.load(std::memory_order_acquire)) return true;
  }
}

namespace {

void record_frame_end(ThreadState* thread, uint64_t swap_seq) {
  Session& s = session();
  continue_tsc_calibration();
  AppendGuard guard(thread);
  if (!guard.ok()) return;
  uint64_t number = s.frames.fetch_add(1);
  if (mode() != Mode::kFull) {
    text_mode_frame(thread, number, trace_time(now_ns()));
    thread->frame_started = true;
    return;
  }
  // On the stack: an Encoder's first field allocates, which cost a program
  // of small frames more than its calls did.
  uint8_t body[6 * (2 + 10)];
  uint8_t* p = body;
  p = schema::frame::put_number(p, number);
  p = schema::frame::put_seq(p, swap_seq);
  p = schema::frame::put_thread(p, thread->index);
  p = schema::frame::put_context(p, thread->context);
  p = schema::frame::put_time_ns(p, trace_time(now_ns()));
  if (g_hot.live.load(std::memory_order_relaxed)) p = schema::frame::put_app_frame(p, app_frames());
  append_record(thread, schema::record::kFrame, body, static_cast<size_t>(p - body));
  if (s.max_frames != 0 && number + 1 >= s.max_frames) {
    // The last frame asked for: stop here; the control thread finishes.
    flush_thread(thread);
    g_hot.recording.store(false);
    s.stop_pending.store(true);
  } else if (thread->payload.size() >= kFrameFlushBytes ||
             now_ns() - thread->last_flush_ns.load(std::memory_order_relaxed) >= kSweepAgeNs) {
    flush_thread(thread);
  }
  thread->frame_started = true;
}

}  // namespace

void end_frame(ThreadState* thread, uint64_t swap_seq) {
  record_frame_end(thread, swap_seq);
  flight_frame_ended();  // out of the thread's recording window (it takes locks)
}

uint32_t context_index(uint64_t handle, bool* created) {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  uint32_t epoch = s.epoch.load();
  auto [it, inserted] = s.contexts.emplace(
      handle, std::make_pair(static_cast<uint32_t>(s.contexts.size() + 1), epoch));
  // Known, but not yet described in this round of a flight recorder.
  *created = inserted || it->second.second != epoch;
  it->second.second = epoch;
  return it->second.first;
}

uint32_t snapshot_epoch() { return session().epoch.load(); }

void begin_flight_round() {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.epoch.fetch_add(1);
  g_hot.flight_round.fetch_add(1);
}

bool begin_thread_round(ThreadState* thread) {
  AppendGuard guard(thread);  // the sweeper leaves its payload alone
  if (!guard.ok()) return false;
  flush_thread(thread);
  thread->round = g_hot.flight_round.load();
  thread->round_start = thread->round_snapshot = true;
  // Nothing of the round refers to a blob before it (a trace may start here).
  thread->blobs.clear();
  write_thread_record(thread);
  return true;
}

void end_thread_round_start(ThreadState* thread) {
  AppendGuard guard(thread);
  if (guard.ok()) flush_thread(thread);
  thread->round_start = thread->round_snapshot = false;
  // Nor does the rest of the round refer to its snapshot's (a trace from an
  // earlier round leaves that snapshot out).
  thread->blobs.clear();
}

bool write_unsubmitted_records(int fd, format::ChunkFilter& filter) {
  Session& s = session();
  format::TraceWriter* writer = s.writer.load();
  if (writer == nullptr) return false;
  if (!writer->write_pending(fd, filter)) return false;
  uint32_t generation = g_hot.generation.load();
  for (const ThreadState* thread : s.threads) {
    if (thread->generation != generation) continue;
    // A thread may have been appending when the process froze: its
    // unfinished entry is left out.
    format::ChunkTag tag{thread->index, thread->round, thread->round_start};
    if (filter.keep(tag) &&
        !format::write_flat_chunk(fd, thread->payload.data(), thread->payload.size(), thread->index,
                                  writer->time_unit_ns()))
      return false;
  }
  return true;
}

namespace {

// One sweep (s.mutex held): every thread of the session is claimed, and
// those not inside a call (not busy) are the sweeper's until released:
// those whose records are older than kSweepAgeNs have them handed to the
// writer. A thread in a call is left alone: its call ends soon (its
// recording window, not the driver call, makes it busy) and the next sweep
// takes its records. Then a CallsComplete record says which seqs are all in
// the trace.
void sweep(Session& s) {
  format::TraceWriter* writer = s.writer.load();
  if (!g_hot.recording.load() || writer == nullptr || mode() != Mode::kFull) return;
  uint32_t generation = g_hot.generation.load();
  bool any = false;
  for (ThreadState* thread : s.threads) {
    if (thread->generation != generation) continue;
    thread->claimed.store(true, std::memory_order_relaxed);
    any = true;
  }
  if (!any) return;
  fence_with_app_threads();
  // A claimed thread takes no seq until it is released: the seqs it takes
  // later are at or above this.
  uint64_t next_seq = g_hot.seq.load();
  uint64_t complete_below = next_seq;
  uint64_t now = now_ns();
  for (ThreadState* thread : s.threads) {
    if (thread->generation != generation) continue;
    if (!thread->busy.load(std::memory_order_acquire)) {
      if (thread->records != 0 &&
          now - thread->last_flush_ns.load(std::memory_order_relaxed) >= kSweepAgeNs)
        flush_thread(thread);
      if (thread->records != 0) {
        complete_below =
            std::min(complete_below, thread->submitted_below.load(std::memory_order_acquire));
      }
    } else {
      complete_below =
          std::min(complete_below, thread->submitted_below.load(std::memory_order_acquire));
    }
    thread->claimed.store(false, std::memory_order_release);
  }
  if (complete_below > s.complete_below) {
    s.complete_below = complete_below;
    wire::Encoder body;
    schema::calls_complete::set_below_seq(body, complete_below);
    wire::Encoder record;
    format::append_record(record, schema::record::kCallsComplete, body.data(), body.size());
    writer->submit(record, {}, {0, g_hot.flight_round.load(), false});
  }
}

// Started with the first full-mode session, never stopped (sessions come
// and go in live tracing; between them a sweep does nothing).
void start_sweeper() {
  static std::once_flag started;
  std::call_once(started, [] {
    std::thread([] {
      pthread_setname_np(pthread_self(), "gltrace-sweep");
      Session& s = session();
      for (;;) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(kSweepPeriodNs));
        std::lock_guard<std::mutex> lock(s.mutex);
        sweep(s);
      }
    }).detach();
  });
}

}  // namespace

bool begin_session(TraceSessionOptions options, std::string* error) {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (g_hot.recording.load() || s.stop_pending.load() || s.writer.load() != nullptr) {
    *error = "a capture is already running in this process";
    return false;
  }
  start_tsc_calibration();
  register_light_fence();
  g_hot.live = options.live;
  s.max_frames = options.max_frames;
  s.mid_run = options.mid_run;
  s.output = options.output;
  g_hot.seq = 0;
  s.frames = 0;
  s.thread_count = 0;
  s.complete_below = 0;
  s.last_blob_id = 0;
  s.contexts.clear();
  s.epoch.fetch_add(1);
  g_hot.flight_round = 0;
  set_capture_options(options.capture);
  g_hot.start_ns = now_ns();
  g_hot.generation.fetch_add(1);
  reset_context_states();
  if (options.mode != Mode::kFull) {
    bool opened = options.text_fd >= 0
                      ? open_text_output_fd(options.mode, options.text_fd,
                                            static_cast<uint32_t>(getpid()), process_name().c_str())
                      : open_text_output(options.mode, s.output.c_str(),
                                         static_cast<uint32_t>(getpid()), process_name().c_str());
    if (!opened) {
      *error = "cannot open " + s.output + " for the " + mode_name(options.mode) +
               " mode: " + strerror(errno);
      return false;
    }
    g_hot.recording.store(true);
    return true;
  }
  set_mode(Mode::kFull);
  if (options.writer == nullptr) {
    *error = "no trace output";
    return false;
  }
  format::TraceWriter* writer = options.writer.get();
  s.writers.push_back(std::move(options.writer));
  // The header goes straight to the writer, ahead of every thread's records.
  CaptureOptions capture = capture_options();
  wire::Encoder body;
  schema::header::set_format_version(body, format::kFormatVersion);
  schema::header::set_pid(body, static_cast<uint64_t>(getpid()));
  schema::header::set_process_name(body, process_name());
  schema::header::set_command_line(body, command_line());
  schema::header::set_clock_domain(body, "CLOCK_MONOTONIC");
  schema::header::set_start_time_ns(body, g_hot.start_ns);
  schema::header::set_mode(body, "full");
  std::string options_text =
      std::string("framebuffer=") +
      (capture.framebuffer_on_swap && capture.framebuffer_on_draw ? "swap,draw"
       : capture.framebuffer_on_swap                              ? "swap"
       : capture.framebuffer_on_draw                              ? "draw"
                                                                  : "off") +
      " texture-data=" + (capture.texture_data ? "on" : "off") +
      " thread-time=" + (capture.thread_time ? "on" : "off") +
      " gpu-time=" + (capture.gpu_time ? "on" : "off");
  schema::header::set_capture_options(body, options_text);
  if (options.mid_run) schema::header::set_mid_run(body, true);
  if (options.flight_recorder) schema::header::set_flight_recorder(body, true);
  wire::Encoder record;
  format::append_record(record, schema::record::kHeader, body.data(), body.size());
  writer->submit(record, {});
  s.writer.store(writer, std::memory_order_release);
  g_hot.recording.store(true);
  start_sweeper();
  GLTRACE_LOADER_DEBUG("trace layer: recording to %s", s.output.c_str());
  return true;
}

namespace {

const char* file_extension(Mode mode) {
  return mode == Mode::kFull ? ".gltrace" : mode == Mode::kSystrace ? ".json" : ".log";
}

// Adds the file's name to GLTRACE_TRACE_REPORT, a file `gltrace trace` made
// and reads when the app has ended: that is how it learns every file its
// processes wrote. One write of a line under PIPE_BUF: appends of several
// processes do not interleave.
void report_output(const std::string& path) {
  const char* report = env_get("GLTRACE_TRACE_REPORT");
  if (report == nullptr || *report == '\0') return;
  int fd = open(report, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  std::string line = path + "\n";
  if (write(fd, line.data(), line.size()) < 0) GLTRACE_LOG_WARN("cannot report %s", path.c_str());
  close(fd);
}

// The file of this process for GLTRACE_TRACE_FILE: %p and %n expanded; in a
// directory (one that exists, or a name ending in '/') PROCESS.PID.EXT; and
// claimed for this process alone (another process's file is never written
// over: format/output_file.h). fd -1 after an error.
format::ClaimedFile claim_output(const char* pattern, Mode mode, std::string* error) {
  std::string wanted = expand_output_pattern(pattern);
  struct stat st {};
  if (wanted.back() == '/' || (stat(wanted.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
    wanted = format::file_in_directory(wanted, process_name(), static_cast<uint32_t>(getpid()),
                                       file_extension(mode));
  format::ClaimedFile file =
      format::claim_new_file(wanted, process_name(), static_cast<uint32_t>(getpid()), error);
  if (file.fd >= 0) report_output(file.path);
  return file;
}

}  // namespace

void read_capture_environment(CaptureOptions* capture, format::WriterOptions* writer) {
  const char* framebuffer = env_get("GLTRACE_CAPTURE_FRAMEBUFFER");
  std::string framebuffer_list = framebuffer != nullptr ? std::string(",") + framebuffer + "," : "";
  capture->framebuffer_on_swap = framebuffer_list.find(",swap,") != std::string::npos;
  capture->framebuffer_on_draw = framebuffer_list.find(",draw,") != std::string::npos;
  const char* texture_data = env_get("GLTRACE_TEXTURE_DATA");
  capture->texture_data = texture_data == nullptr || strcmp(texture_data, "0") != 0;
  const char* thread_time = env_get("GLTRACE_THREAD_TIME");
  capture->thread_time = thread_time != nullptr && strcmp(thread_time, "1") == 0;
  const char* gpu_time = env_get("GLTRACE_GPU_TIME");
  capture->gpu_time = gpu_time != nullptr && strcmp(gpu_time, "1") == 0;
  if (const char* level = env_get("GLTRACE_ZSTD_LEVEL")) writer->zstd_level = atoi(level);
  writer->time_unit_ns = trace_clock_resolution_ns();
}

void start_session() {
  const char* pattern = env_get("GLTRACE_TRACE_FILE");
  start_session(pattern != nullptr ? pattern : "");
}

void start_session(const std::string& output, bool mid_run, uint64_t max_frames) {
  const char* pattern = output.c_str();
  const char* socket = env_get("GLTRACE_TRACE_SOCKET");
  bool to_file = *pattern != '\0';
  TraceSessionOptions options;
  options.live = mid_run;
  options.mid_run = mid_run;
  options.max_frames = max_frames;
  const char* mode_env = env_get("GLTRACE_TRACE_MODE");
  if (mode_env != nullptr && *mode_env != '\0' && !parse_mode(mode_env, &options.mode))
    GLTRACE_LOG_WARN("unknown GLTRACE_TRACE_MODE '%s' (full, log, error, systrace): using full",
                     mode_env);
  std::string error;
  if (options.mode != Mode::kFull) {
    if (to_file && strcmp(pattern, "-") != 0) {
      format::ClaimedFile file = claim_output(pattern, options.mode, &error);
      if (file.fd < 0) {
        GLTRACE_LOG_ERROR("cannot open the %s output: %s", mode_name(options.mode), error.c_str());
        return;
      }
      options.text_fd = file.fd;
      options.output = file.path;
    }
    if (!begin_session(std::move(options), &error)) GLTRACE_LOG_ERROR("%s", error.c_str());
    return;
  }
  format::WriterOptions writer_options;
  read_capture_environment(&options.capture, &writer_options);
  if (socket != nullptr && *socket != '\0') {
    options.output = socket;
    options.writer = format::TraceWriter::connect_unix_socket(socket, writer_options, &error);
  } else if (to_file) {
    format::ClaimedFile file = claim_output(pattern, options.mode, &error);
    options.output = file.path.empty() ? expand_output_pattern(pattern) : file.path;
    if (file.fd >= 0)
      options.writer = format::TraceWriter::from_fd(file.fd, writer_options, &error, file.path);
  } else {
    GLTRACE_LOG_ERROR(
        "trace layer loaded without an output: set GLTRACE_TRACE_FILE (or use "
        "gltrace trace -o FILE); calls pass through unrecorded");
    return;
  }
  if (options.writer == nullptr) {
    GLTRACE_LOG_ERROR("cannot open trace output %s: %s; calls pass through unrecorded",
                      options.output.c_str(), error.c_str());
    return;
  }
  if (!begin_session(std::move(options), &error)) GLTRACE_LOG_ERROR("%s", error.c_str());
}

bool session_stop_pending() { return session().stop_pending.load(); }

namespace {
// Calls recorded by the threads of the current (or last) session; s.mutex held.
uint64_t session_calls(const Session& s) {
  uint32_t generation = g_hot.generation.load();
  uint64_t calls = 0;
  for (const ThreadState* thread : s.threads)
    if (thread->generation == generation) calls += thread->calls.load(std::memory_order_relaxed);
  return calls;
}
}  // namespace

SessionStats session_stats() {
  Session& s = session();
  std::lock_guard<std::mutex> lock(s.mutex);
  SessionStats st;
  st.on = g_hot.recording.load() || s.stop_pending.load();
  st.number = g_hot.generation.load();
  st.frames = s.frames.load();
  st.calls = session_calls(s);
  format::TraceWriter* writer = s.writer.load();
  format::TraceWriter::Stats ws = writer != nullptr ? writer->stats() : s.last_stats;
  st.bytes = ws.bytes_written;
  st.stalls = ws.stall_count;
  st.stall_ns = ws.stall_ns;
  st.output_failed = writer != nullptr && writer->failed();
  st.output = s.output;
  return st;
}

void end_session() {
  Session& s = session();
  bool was_recording = g_hot.recording.exchange(false);
  if (!was_recording && !s.stop_pending.load()) return;
  fence_with_app_threads();
  if (mode() != Mode::kFull) {
    close_text_output();
    s.stop_pending.store(false);
    return;
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  format::TraceWriter* writer = s.writer.load();
  if (writer == nullptr) {
    s.stop_pending.store(false);
    return;
  }
  uint32_t generation = g_hot.generation.load();
  ThreadState* last = nullptr;
  for (ThreadState* thread : s.threads) {
    if (thread->generation != generation) continue;
    // A thread in the middle of a call finishes it first (bounded: a thread
    // stuck in a driver call for a second loses that call).
    for (int i = 0; i < 1000 && thread->busy.load(std::memory_order_acquire); ++i) usleep(1000);
    if (thread->busy.load(std::memory_order_acquire)) continue;
    flush_thread(thread);
    last = thread;
  }
  if (last != nullptr) {
    format::TraceWriter::Stats ws = writer->stats();
    wire::Encoder body;
    schema::stats::set_calls(body, session_calls(s));
    schema::stats::set_frames(body, s.frames.load());
    schema::stats::set_bytes_uncompressed(body, ws.raw_bytes);
    schema::stats::set_stall_count(body, ws.stall_count);
    schema::stats::set_stall_ns(body, ws.stall_ns);
    append_record(last, schema::record::kStats, body.data(), body.size());
    flush_thread(last);
  }
  writer->close();  // it logs its own failure
  format::TraceWriter::Stats ws = writer->stats();
  s.last_stats = ws;
  s.writer.store(nullptr, std::memory_order_release);
  s.stop_pending.store(false);
  if (ws.stall_count != 0)
    GLTRACE_LOG_WARN("trace %s: the app waited for the writer %llu times (%.1f ms in all)",
                     s.output.c_str(), static_cast<unsigned long long>(ws.stall_count),
                     static_cast<double>(ws.stall_ns) / 1e6);
}

}  // namespace gltrace::trace
