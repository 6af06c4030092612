#include "trace/live.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>

#include "common/log.h"
#include "common/process.h"
#include "control/server.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"
#include "gltrace/api/trace_decls.h"
#include "settings/live_config.h"
#include "trace/flight.h"
#include "trace/hooks/object_names.h"
#include "trace/layer.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/session.h"
#include "trace/tsc_clock.h"

namespace gltrace::trace {
namespace {

const GltraceLiveHost* g_host = nullptr;
settings::LiveConfig g_config;
// A start of the process's own is still to come (debug.gltrace.start
// frame:N or after:S, counted from when the layer loaded).
std::atomic<bool> g_own_start_pending{false};
std::chrono::steady_clock::time_point g_loaded;
// debug.gltrace.start signal:NAME arrived (set by the handler alone).
std::atomic<bool> g_signalled{false};
void on_start_signal(int /*signal*/) { g_signalled.store(true); }

// Opens the output and begins the session, once. frame:N calls it on the
// app's thread at the swap that reaches frame N (so the capture begins with
// that frame exactly), as a start "now" does at load.
void start_own_session() {
  if (!g_own_start_pending.exchange(false)) return;
  GLTRACE_LOG_INFO("tracing from app frame %llu on", static_cast<unsigned long long>(app_frames()));
  start_session(g_config.output, true, g_config.max_frames);
}

// This thread's table: pinned once it passed a switch point (until then it
// follows the default table).
__thread bool t_pinned __attribute__((tls_model("initial-exec"))) = false;
__thread bool t_active __attribute__((tls_model("initial-exec"))) = false;

// The thread drew while recording nothing, since its last glFinish or
// eglMakeCurrent (note_unrecorded_draw): its next glFinish ends a frame by
// the off-screen rule (hooks/frames.cpp), so it may join a capture there.
// Per thread, not per context: a context that moved between threads is
// seen drawing only from its move on, which misses a frame end at worst.
__thread bool t_drew __attribute__((tls_model("initial-exec"))) = false;

// The process swapped once: its frames end at swaps, and a glFinish within a
// frame (before its swap) is no place to join. Stricter than the recorded
// rule (the first swap of a session), which a mid-frame join cannot know.
std::atomic<bool> g_swapped{false};

control::CaptureSettings to_wire(const CaptureOptions& o) {
  control::CaptureSettings w;
  w.framebuffer_on_swap = o.framebuffer_on_swap;
  w.framebuffer_on_draw = o.framebuffer_on_draw;
  w.texture_data = o.texture_data;
  w.thread_time = o.thread_time;
  return w;
}

CaptureOptions merged(CaptureOptions base, const control::CaptureSettings& w) {
  if (w.framebuffer_on_swap) base.framebuffer_on_swap = *w.framebuffer_on_swap;
  if (w.framebuffer_on_draw) base.framebuffer_on_draw = *w.framebuffer_on_draw;
  if (w.texture_data) base.texture_data = *w.texture_data;
  if (w.thread_time) base.thread_time = *w.thread_time;
  return base;
}

class LiveController final : public control::Controller {
 public:
  // A start of the process's own (debug.gltrace.start frame:N or after:S):
  // from the control thread, which also opens the file, once.
  // after:S and signal:NAME, from the control thread (frame:N starts at
  // the app's swap).
  void start_when_due() {
    if (g_signalled.exchange(false)) {
      std::string path, error;
      if (flight_recorder_on()) {
        if (!write_flight_trace("the signal", &path, &error))
          GLTRACE_LOG_ERROR("flight recorder: %s", error.c_str());
      } else if (session_on()) {
        end_session();
        GLTRACE_LOG_INFO("tracing stopped by the signal");
      } else {
        g_own_start_pending = true;
        start_own_session();
      }
    }
    if (g_config.start_after_s > 0 && std::chrono::steady_clock::now() - g_loaded >=
                                          std::chrono::duration<double>(g_config.start_after_s))
      start_own_session();
  }

  control::Status status() override {
    SessionStats st = session_stats();
    control::Status out;
    out.pid = static_cast<uint32_t>(getpid());
    out.process_name = process_name();
    out.state = session_on() ? "tracing" : st.on ? "finishing" : "idle";
    out.mode = g_config.mode;
    out.session = st.number;
    out.frames = st.frames;
    out.calls = st.calls;
    out.bytes = st.bytes;
    out.stalls = st.stalls;
    out.stall_ns = st.stall_ns;
    out.app_frames = app_frames();
    out.options = to_wire(capture_options());
    out.output = st.output;
    FlightStats flight = flight_stats();
    out.flight_frames = flight.frames_kept;
    out.flight_bytes = flight.bytes_kept;
    out.flight_traces = flight.traces_written;
    compressed_copy_bytes(&out.shadow_bytes, &out.shadow_uploaded);
    return out;
  }

  bool start(const control::Request& request, int data_fd, std::string* error) override {
    TraceSessionOptions options;
    std::string mode = request.mode.empty() ? g_config.mode : request.mode;
    if (!parse_mode(mode.c_str(), &options.mode)) {
      close(data_fd);
      *error = "unknown mode '" + mode + "' (full, log, error, systrace)";
      return false;
    }
    options.capture = merged(CaptureOptions(), request.options);
    options.output = "host connection";
    options.live = true;
    options.mid_run = true;
    options.max_frames = request.max_frames;
    if (options.mode == Mode::kFull) {
      format::WriterOptions writer;
      if (request.zstd_level > 0) writer.zstd_level = request.zstd_level;
      writer.stream_index = true;  // the host stores a complete file
      writer.time_unit_ns = trace_clock_resolution_ns();
      options.writer = format::TraceWriter::from_fd(data_fd, writer, error);
      if (options.writer == nullptr) return false;
    } else {
      options.text_fd = data_fd;
    }
    if (!begin_session(std::move(options), error)) return false;
    GLTRACE_LOG_INFO(
        "live tracing started (%s mode): threads join at their next frame end "
        "(a swap, or an off-screen program's glFinish or read-back) or make-current",
        mode.c_str());
    return true;
  }

  bool stop(std::string* error) override {
    if (!session_stats().on) {
      *error = "not tracing";
      return false;
    }
    end_session();
    GLTRACE_LOG_INFO("live tracing stopped");
    return true;
  }

  bool set_options(const control::CaptureSettings& options, std::string* /*error*/) override {
    set_capture_options(merged(capture_options(), options));
    return true;
  }

  void host_gone() override {
    if (!session_stats().on) return;
    end_session();
    GLTRACE_LOG_WARN("live tracing stopped: the host closed its connection");
  }

  bool write_flight(std::string* path, std::string* error) override {
    return write_flight_trace("a host asked", path, error);
  }

  void tick() override {
    start_when_due();
    if (session_stop_pending()) {
      end_session();
      GLTRACE_LOG_INFO("live tracing stopped after the frames asked for");
    } else if (session_on() && session_stats().output_failed) {
      end_session();
      GLTRACE_LOG_WARN("live tracing stopped: the trace output failed");
    }
  }
};

std::mutex g_server_mutex;
LiveController* g_controller = nullptr;
control::Server* g_server = nullptr;
// Set once the server was tried: GLX programs ask at every make-current.
std::atomic<bool> g_server_tried{false};

void start_control_server() {
  if (g_host == nullptr) return;  // an ordinary layer: no live control
  if (g_server_tried.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(g_server_mutex);
  if (g_server_tried.load(std::memory_order_relaxed)) return;
  g_server_tried.store(true, std::memory_order_release);
  std::string error;
  std::string dir = control::socket_directory(&error);
  if (dir.empty()) {
    GLTRACE_LOG_ERROR("live tracing: no control socket: %s", error.c_str());
    return;
  }
  control::ServerOptions options;
  options.socket_path =
      dir + "/" +
      (g_config.socket_name.empty() ? "gltrace-" + std::to_string(getpid()) + ".sock"
                                    : g_config.socket_name);
  options.tcp_port = g_config.tcp_port;
  // The effective uid: in a setuid app, the caller must not reach its GL data.
  options.uid = geteuid();
  g_controller = new LiveController();  // never destroyed: the thread may outlive exit
  std::unique_ptr<control::Server> server = control::Server::start(g_controller, options, &error);
  if (server == nullptr) {
    GLTRACE_LOG_ERROR("live tracing: %s", error.c_str());
    return;
  }
  g_server = server.release();
  GLTRACE_LOG_INFO("traceable (%s): control socket %s", g_config.mode.c_str(),
                   g_server->socket_path().c_str());
  if (g_server->tcp_port() >= 0)
    GLTRACE_LOG_INFO("control also on 127.0.0.1:%d, token %s", g_server->tcp_port(),
                     g_server->token().c_str());
}

EGLBoolean idle_eglInitialize(EGLDisplay display, EGLint* major, EGLint* minor) {
  EGLBoolean result = NEXT(eglInitialize)(display, major, minor);
  start_control_server();
  return result;
}

EGLBoolean active_eglInitialize(EGLDisplay display, EGLint* major, EGLint* minor) {
  auto traced = reinterpret_cast<PFN_gltrace_eglInitialize>(trace_wrapper(api::kFn_eglInitialize));
  EGLBoolean result = traced(display, major, minor);
  start_control_server();
  return result;
}

// GLX has no initialize: a GLX program becomes traceable at its first
// make-current (it has a context then).
template <typename... Args>
Bool make_current_then_serve(void* wrapper, Args... args) {
  Bool result = reinterpret_cast<Bool (*)(Args...)>(wrapper)(args...);
  start_control_server();
  return result;
}
Bool idle_glXMakeCurrent(Display* dpy, GLXDrawable draw, GLXContext ctx) {
  return make_current_then_serve(idle_wrapper(api::kFn_glXMakeCurrent), dpy, draw, ctx);
}
Bool active_glXMakeCurrent(Display* dpy, GLXDrawable draw, GLXContext ctx) {
  return make_current_then_serve(trace_wrapper(api::kFn_glXMakeCurrent), dpy, draw, ctx);
}
Bool idle_glXMakeContextCurrent(Display* dpy, GLXDrawable draw, GLXDrawable read, GLXContext ctx) {
  return make_current_then_serve(idle_wrapper(api::kFn_glXMakeContextCurrent), dpy, draw, read,
                                 ctx);
}
Bool active_glXMakeContextCurrent(Display* dpy, GLXDrawable draw, GLXDrawable read,
                                  GLXContext ctx) {
  return make_current_then_serve(trace_wrapper(api::kFn_glXMakeContextCurrent), dpy, draw, read,
                                 ctx);
}

}  // namespace

void live_initialize(const GltraceLiveHost* host) {
  std::string errors;
  settings::Values values = settings::load_effective(&errors);
  g_config = settings::choose_live_config(values, &env_get, process_name());
  if (!g_config.error.empty()) GLTRACE_LOG_WARN("live tracing: %s", g_config.error.c_str());
  if (!g_config.enabled) g_config.mode = "full";  // loaded on purpose by the loader anyway
  g_host = host;
  g_loaded = std::chrono::steady_clock::now();
  // A capture may start mid-run: its snapshot needs what GLES cannot read back.
  keep_compressed_copies(static_cast<size_t>(g_config.shadow_mb) << 20);
  g_own_start_pending = g_config.start_frame != 0 || g_config.start_after_s > 0;
  if (g_config.start_signal != 0) {
    struct sigaction action {};
    action.sa_handler = on_start_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(g_config.start_signal, &action, nullptr) == 0)
      GLTRACE_LOG_INFO("kill -%s %d %s", g_config.start_signal == SIGUSR1 ? "USR1" : "USR2",
                       static_cast<int>(getpid()),
                       g_config.flight_frames != 0 ? "writes the flight recorder's trace"
                                                   : "starts a capture, and stops it");
  }
  if (g_config.flight_frames != 0) {
    // Every thread records from its first call, into memory.
    g_host->set_default(1);
    FlightConfig flight;
    flight.frames = g_config.flight_frames;
    flight.memory_mb = g_config.flight_mb;
    flight.watchdog_s = g_config.flight_watchdog_s;
    flight.output = g_config.output;
    start_flight_recorder(flight);
  } else if (g_config.start_now) {
    // Every thread records from its first call, as with the ordinary layer.
    g_host->set_default(1);
    start_session(g_config.output);
  }
}

void* live_idle_function(uint32_t id) {
  if (id == api::kFn_eglInitialize) return reinterpret_cast<void*>(&idle_eglInitialize);
  if (id == api::kFn_glXMakeCurrent) return reinterpret_cast<void*>(&idle_glXMakeCurrent);
  if (id == api::kFn_glXMakeContextCurrent)
    return reinterpret_cast<void*>(&idle_glXMakeContextCurrent);
  // The table's idle hooks: draws, swaps, context switches, glFinish.
  return idle_wrapper(id);
}

void* live_active_function(uint32_t id) {
  switch (id) {
    case api::kFn_eglInitialize:
      return reinterpret_cast<void*>(&active_eglInitialize);
    case api::kFn_glXMakeCurrent:
      return reinterpret_cast<void*>(&active_glXMakeCurrent);
    case api::kFn_glXMakeContextCurrent:
      return reinterpret_cast<void*>(&active_glXMakeContextCurrent);
    default:
      return nullptr;
  }
}

namespace {

// The app ended a frame (a swap, or an off-screen program's glFinish or
// read-back).
void app_frame_ended() {
  count_app_frame();
  if (g_config.start_frame != 0 && app_frames() >= g_config.start_frame) [[unlikely]]
    start_own_session();
}

// Joins or leaves the capture at a switch point.
void switch_tables() {
  bool active = session_on();
  if (!t_pinned || t_active != active) {
    g_host->use_active(active ? 1 : 0);
    t_active = active;
    t_pinned = true;
  }
  if (active && !recording()) record_current_binding();
}

}  // namespace

void note_unrecorded_draw() { t_drew = true; }

// The table's idle_done hooks: after the call, not recording.
void live_swap_point() { live_switch_point(true); }
void live_context_switch_point() { live_switch_point(false); }
void live_unrecorded_finish() { live_finish_point(false, false); }
bool live_process_swapped() { return g_swapped.load(std::memory_order_relaxed); }

void live_switch_point(bool swap) {
  if (g_host == nullptr) return;
  if (swap) {
    g_swapped.store(true, std::memory_order_relaxed);
    app_frame_ended();
  } else {
    t_drew = false;  // another context, maybe: its draws are not known
  }
  switch_tables();
}

void live_finish_point(bool recorded, bool ends_frame) {
  if (g_host == nullptr) return;
  if (!recorded) ends_frame = t_drew && !g_swapped.load(std::memory_order_relaxed);
  t_drew = false;
  if (!ends_frame) return;
  app_frame_ended();
  switch_tables();
}

void live_shutdown() {
  {
    std::lock_guard<std::mutex> lock(g_server_mutex);
    if (g_server != nullptr) g_server->shutdown();
  }
  end_session();
}

}  // namespace gltrace::trace
