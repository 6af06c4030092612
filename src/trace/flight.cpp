#include "trace/flight.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "common/log.h"
#include "common/process.h"
#include "format/chunk_ring.h"
#include "format/writer.h"
#include "trace/hooks/context_state.h"
#include "trace/hooks/frames.h"
#include "trace/live.h"
#include "trace/session.h"
#include "trace/tsc_clock.h"

namespace gltrace::trace {
namespace {

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
// Chunks the ring holds at most (the oldest go first): a round of a slow
// app is mostly the sweeper's small records.
constexpr size_t kRingChunks = size_t{1} << 16;
// A round is this many frames more than asked for: the framebuffer
// read-backs of the last frames are still in flight when a trace is
// written, so those frames come without an image.
constexpr uint64_t kFramesInFlight = 2;
// How long the app waits for the copy of itself that writes a trace.
constexpr int kDumpTimeoutMs = 60'000;
constexpr uint64_t kWatchPeriodNs = 50'000'000;

// --- async-signal-safe text ---------------------------------------------------------

struct Line {
  char text[PATH_MAX + 256];
  size_t size = 0;
  Line& add(const char* s) {
    while (*s != '\0' && size + 1 < sizeof text) text[size++] = *s++;
    text[size] = '\0';
    return *this;
  }
  Line& add(uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0 && size + 1 < sizeof text) text[size++] = digits[--n];
    text[size] = '\0';
    return *this;
  }
};

struct Flight {
  FlightConfig config;
  std::shared_ptr<format::ChunkRing> ring;
  uint64_t round_frames = 0;  // frames per round
  uint64_t bound_bytes = 0;
  std::atomic<bool> on{false};
  pid_t pid = 0;  // the process recording: a child the app forked has a copy of this
  // The frame count where each of the last rounds began (by round % 8).
  std::atomic<uint64_t> round_start_frame[8] = {};
  // The kept bytes when each round began: what a round added since.
  std::atomic<uint64_t> round_start_bytes[8] = {};
  std::atomic<uint64_t> frame_end_seq{0};  // g_hot.seq when the last frame ended
  std::atomic<uint64_t> traces{0};
  std::atomic<uint32_t> file_number{0};
  std::mutex dump_mutex;  // one trace at a time, outside the crash path
  // Written once at start: where traces go (async-signal-safe to use).
  char path_base[PATH_MAX] = "";
  struct sigaction previous[NSIG] = {};
  std::atomic<bool> crashed{false};
  std::atomic<bool> crash_written{false};
  // The crash path's: kept here, not on a stack that may be a small
  // alternate signal stack.
  format::ChunkFilter filter{0};
  Line crash_path, crash_message;
  bool warned_bound = false;
  // A page shared with the copies that write traces: the frames the last one
  // wrote, counted in it (in the app a round may begin meanwhile).
  uint64_t* copied_frames = nullptr;
};

Flight& flight() {
  static auto* f = new Flight();  // never destroyed: a crash may come at exit
  return *f;
}

uint64_t frames_kept() {
  Flight& f = flight();
  uint32_t from = f.ring->kept_from();
  return frames_completed() - f.round_start_frame[from % 8].load();
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGABRT:
      return "SIGABRT";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    default:
      return "a signal";
  }
}

// A new file of the next free number: BASE-N.gltrace. -1 when none can be made.
int open_trace_file(Line* path) {
  Flight& f = flight();
  for (int tries = 0; tries < 1000; ++tries) {
    path->size = 0;
    path->add(f.path_base).add("-").add(uint64_t{f.file_number.fetch_add(1) + 1}).add(".gltrace");
    int fd = open(path->text, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// --- writing a trace ------------------------------------------------------------------

// In the copy of the process: nothing but what it needs runs, no lock is
// taken (another thread may have held one when it was copied), nothing is
// allocated.
[[noreturn]] void write_in_copy(int fd) {
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  for (int sig : kCrashSignals) sigaction(sig, &fallback, nullptr);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crash of the copy is not the app's
  Flight& f = flight();
  f.filter.reset(f.ring->kept_from());
  if (f.copied_frames != nullptr) *f.copied_frames = frames_kept();
  bool ok = f.ring->write(fd, f.filter) && write_unsubmitted_records(fd, f.filter);
  syscall(SYS_exit_group, ok ? 0 : 1);
  __builtin_unreachable();
}

// Writes the kept frames to fd from a copy of the process (a fork without
// glibc's fork handlers, which may take locks a crashed thread holds) and
// waits for it; true when it wrote them all, *frames of them.
// Async-signal-safe.
bool write_trace(int fd, uint64_t* frames) {
  Flight& f = flight();
  *frames = frames_kept();
  if (f.copied_frames != nullptr) *f.copied_frames = *frames;
  // Exit signal 0: no SIGCHLD reaches the app, and its waits for "any
  // child" do not take this one.
  long pid = syscall(SYS_clone, 0L, nullptr, nullptr, nullptr, nullptr);
  if (pid == 0) write_in_copy(fd);
  if (pid < 0) return false;
  for (int waited_ms = 0;; waited_ms += 5) {
    int status = 0;
    pid_t done = waitpid(static_cast<pid_t>(pid), &status, __WALL | WNOHANG);
    if (done == pid) {
      if (f.copied_frames != nullptr) *frames = *f.copied_frames;
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    if (done < 0 && errno != EINTR) return false;  // reaped by someone else
    if (waited_ms >= kDumpTimeoutMs) {
      kill(static_cast<pid_t>(pid), SIGKILL);
      waitpid(static_cast<pid_t>(pid), &status, __WALL);
      return false;
    }
    timespec five_ms{0, 5'000'000};
    nanosleep(&five_ms, nullptr);
  }
}

// --- crashes --------------------------------------------------------------------------

// From here on the signal goes where it would have gone without gltrace:
// the app's handler, or the default action (its core dump and exit status).
// A fault re-executes the instruction when the handler returns and faults
// again; a sent signal (abort, kill) is sent again, blocked until then.
void give_back(int sig, const siginfo_t* info) {
  sigaction(sig, &flight().previous[sig], nullptr);
  bool fault = info != nullptr && info->si_code > 0 && sig != SIGABRT;
  if (!fault) syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

void on_crash(int sig, siginfo_t* info, void* /*context*/) {
  int saved_errno = errno;
  Flight& f = flight();
  // A child the app forked inherited the handler, not the recording.
  if (getpid() != f.pid) {
    give_back(sig, info);
    errno = saved_errno;
    return;
  }
  if (!f.crashed.exchange(true)) {
    Line& path = f.crash_path;
    int fd = open_trace_file(&path);
    int open_errno = errno;
    uint64_t frames = 0;
    bool ok = fd >= 0 && write_trace(fd, &frames);
    if (fd >= 0) close(fd);
    Line& message = f.crash_message;
    message.add("gltrace: flight recorder: the app got ").add(signal_name(sig));
    if (ok) {
      f.traces.fetch_add(1);
      message.add(": its last ").add(frames).add(" frames are in ").add(path.text).add("\n");
    } else {
      message.add(": could not write its last frames to ").add(path.text);
      if (fd < 0) message.add(" (errno ").add(static_cast<uint64_t>(open_errno)).add(")");
      message.add("\n");
    }
    format::write_fully(STDERR_FILENO, message.text, message.size);
    f.crash_written.store(true);
  } else {
    // Another thread writes the trace: the process lives until it is done.
    for (int waited_ms = 0; !f.crash_written.load() && waited_ms < kDumpTimeoutMs + 1000;
         waited_ms += 5) {
      timespec five_ms{0, 5'000'000};
      nanosleep(&five_ms, nullptr);
    }
  }
  give_back(sig, info);
  errno = saved_errno;
}

// Puts the handler in front of every crash signal; one the app installed
// since is kept, to be called as it would have been.
void install_crash_handlers() {
  Flight& f = flight();
  if (f.crashed.load()) return;
  for (int sig : kCrashSignals) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &on_crash) continue;
    struct sigaction ours {};
    ours.sa_sigaction = &on_crash;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    f.previous[sig] = current;
    sigaction(sig, &ours, nullptr);
  }
}

// --- rounds ---------------------------------------------------------------------------

// At a frame end: a new round once this one has its frames, or sooner when
// the kept chunks reach the memory bound (the oldest round then goes). The
// watch thread asks too (any_time): an app that ends no frame (off-screen
// work) must not grow its rounds past the bound; it ends a round that has
// no frame only once that round alone added half the bound. A hung app, or
// one that just began a round at its last frame end, adds little: a round
// begun over it would free the one that holds its last frames.
void maybe_begin_round(bool any_time = false) {
  Flight& f = flight();
  static std::mutex round_mutex;
  std::lock_guard<std::mutex> lock(round_mutex);
  uint32_t round = flight_round();
  uint64_t frames = frames_completed(), bytes = f.ring->bytes();
  uint64_t started = f.round_start_frame[round % 8].load();
  uint64_t started_bytes = f.round_start_bytes[round % 8].load();
  bool full = frames - started >= f.round_frames;
  bool grew = frames > started ||
              (any_time && bytes > started_bytes && bytes - started_bytes > f.bound_bytes / 2);
  bool over = bytes > f.bound_bytes && grew;
  if (!full && !over) return;
  if (over && !full && !f.warned_bound) {
    f.warned_bound = true;
    GLTRACE_LOG_WARN(
        "flight recorder: rounds end before their %llu frames to stay within %llu MiB: a trace "
        "may hold fewer than the %llu frames asked for (debug.gltrace.flight_mb)",
        static_cast<unsigned long long>(f.round_frames),
        static_cast<unsigned long long>(f.config.memory_mb),
        static_cast<unsigned long long>(f.config.frames));
  }
  f.round_start_frame[(round + 1) % 8].store(frames);
  begin_flight_round();
  f.ring->keep_from(round);  // this round and the new one
  f.round_start_bytes[(round + 1) % 8].store(f.ring->bytes());
}

// This thread's snapshot begins its part of the round (at its first call
// in it, before the call): the read-backs still in flight end the last round.
void begin_thread_part(ThreadState* thread) {
  if (thread->context != 0) complete_pending_reads(thread);
  if (!begin_thread_round(thread)) return;
  record_current_binding();
  end_thread_round_start(thread);
}

// --- the watch thread: hangs, handlers the app replaced ----------------------------

// A frame is in progress once a call came after the last frame end; it hangs
// when it lasts past the watchdog. An app idle between frames (a toolkit
// that draws on events) makes no call, so it never looks hung.
void watch() {
  Flight& f = flight();
  uint64_t frame_seen = 0, seq_seen = 0;
  uint64_t in_progress_since = 0;  // when a call of the frame was first seen (0: none)
  bool reported = false;
  for (;;) {
    timespec period{0, static_cast<long>(kWatchPeriodNs)};
    nanosleep(&period, nullptr);
    install_crash_handlers();
    maybe_begin_round(true);
    uint64_t frame = frames_completed(), seq = g_hot.seq.load();
    // An app that ends no frame (off-screen work) has no frame to time.
    if (f.config.watchdog_s <= 0 || frame == 0) continue;
    if (frame != frame_seen) {
      frame_seen = frame;
      seq_seen = f.frame_end_seq.load();
      in_progress_since = 0;
      reported = false;
    }
    if (seq == seq_seen) continue;  // no call since the frame ended
    uint64_t now = now_ns();
    if (in_progress_since == 0) in_progress_since = now;
    if (reported || static_cast<double>(now - in_progress_since) < f.config.watchdog_s * 1e9)
      continue;
    reported = true;
    std::string path, error;
    char reason[64];
    snprintf(reason, sizeof reason, "a frame took longer than %g s", f.config.watchdog_s);
    if (!write_flight_trace(reason, &path, &error))
      GLTRACE_LOG_ERROR("flight recorder: %s", error.c_str());
  }
}

}  // namespace

void start_flight_recorder(const FlightConfig& config) {
  Flight& f = flight();
  if (f.on.load() || config.frames == 0) return;
  f.config = config;
  f.pid = getpid();
  f.round_frames = config.frames + kFramesInFlight;
  f.bound_bytes = config.memory_mb << 20;
  std::string output = config.output.empty() ? "." : expand_output_pattern(config.output.c_str());
  struct stat st {};
  std::string base;
  if (output.back() == '/' || (stat(output.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    if (output.back() != '/') output += '/';
    base = output + process_name() + "." + std::to_string(getpid()) + ".flight";
  } else {
    base = output;
    const std::string suffix = ".gltrace";
    if (base.size() > suffix.size() &&
        base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
      base.resize(base.size() - suffix.size());
  }
  if (base.size() >= sizeof f.path_base) {
    GLTRACE_LOG_ERROR("flight recorder: the output path %s is too long", base.c_str());
    return;
  }
  memcpy(f.path_base, base.c_str(), base.size() + 1);
  f.ring = std::make_shared<format::ChunkRing>(kRingChunks);
  void* shared =
      mmap(nullptr, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared != MAP_FAILED) f.copied_frames = static_cast<uint64_t*>(shared);
  TraceSessionOptions options;
  format::WriterOptions writer_options;
  read_capture_environment(&options.capture, &writer_options);
  std::string error;
  options.writer = format::TraceWriter::to_memory(f.ring, writer_options, &error);
  options.output = "the flight recorder's memory";
  options.flight_recorder = true;
  if (options.writer == nullptr || !begin_session(std::move(options), &error)) {
    GLTRACE_LOG_ERROR("flight recorder: %s", error.c_str());
    return;
  }
  install_crash_handlers();
  f.on.store(true);
  // Every signal blocked: the app's never run on it.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread([] {
    pthread_setname_np(pthread_self(), "gltrace-flight");
    watch();
  }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  GLTRACE_LOG_INFO(
      "flight recorder: keeping the last %llu frames (at most %llu MiB); traces go to %s-N.gltrace",
      static_cast<unsigned long long>(config.frames),
      static_cast<unsigned long long>(config.memory_mb), f.path_base);
}

bool flight_recorder_on() { return flight().on.load(std::memory_order_relaxed); }

void flight_frame_ended() {
  if (!flight_recorder_on()) return;
  flight().frame_end_seq.store(g_hot.seq.load(), std::memory_order_relaxed);
  maybe_begin_round();
}

void begin_flight_part() {
  if (!recording()) return;
  ThreadState* thread = thread_state();
  if (thread->round == flight_round()) return;
  // Between a map and its unmap the app's calls refer to a mapping a
  // snapshot cannot make: the thread starts the round after the unmap.
  if (thread->context != 0 && !context_state(thread)->mappings.empty()) return;
  begin_thread_part(thread);
}

bool write_flight_trace(const char* reason, std::string* path, std::string* error) {
  Flight& f = flight();
  if (!flight_recorder_on() || getpid() != f.pid) {
    *error =
        "this process has no flight recorder (start it with gltrace run --flight-recorder FRAMES)";
    return false;
  }
  std::lock_guard<std::mutex> lock(f.dump_mutex);
  Line file;
  int fd = open_trace_file(&file);
  if (fd < 0) {
    *error = std::string("cannot create ") + file.text + ": " + strerror(errno);
    return false;
  }
  uint64_t frames = 0;
  bool ok = write_trace(fd, &frames);
  close(fd);
  *path = file.text;
  if (!ok) {
    *error = "the flight trace " + *path + " could not be written whole";
    return false;
  }
  f.traces.fetch_add(1);
  GLTRACE_LOG_INFO("flight recorder (%s): the last %llu frames are in %s", reason,
                   static_cast<unsigned long long>(frames), path->c_str());
  return true;
}

FlightStats flight_stats() {
  Flight& f = flight();
  FlightStats st;
  st.on = flight_recorder_on();
  if (!st.on) return st;
  st.frames_kept = frames_kept();
  st.bytes_kept = f.ring->bytes();
  st.traces_written = f.traces.load();
  return st;
}

}  // namespace gltrace::trace
