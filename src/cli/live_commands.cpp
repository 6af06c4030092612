// Live tracing from the host: `gltrace ps`, `attach`, `detach`, `options`,
// `flight`.
// They talk to the control server inside a traceable app (src/control).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "cli/attach_session.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "control/client.h"

namespace gltrace::cli {

namespace {

// Set by SIGINT/SIGTERM during an attach: the capture is asked to stop.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

void on_interrupt(int) { g_interrupted = true; }

std::string describe(const control::CaptureSettings& o) {
  auto flag = [](const std::optional<bool>& v) { return v && *v ? "on" : "off"; };
  bool swap = o.framebuffer_on_swap && *o.framebuffer_on_swap;
  bool draw = o.framebuffer_on_draw && *o.framebuffer_on_draw;
  return std::string("framebuffer=") +
         (swap && draw ? "swap,draw"
          : swap       ? "swap"
          : draw       ? "draw"
                       : "off") +
         " texture-data=" + flag(o.texture_data) + " thread-time=" + flag(o.thread_time);
}

constexpr char kAttach[] = "attach";

// "flight recorder: 30 frames kept (12.3 MiB), 1 trace written"
std::string describe_flight(const control::Status& s) {
  char line[160];
  snprintf(line, sizeof line,
           "flight recorder: %" PRIu64 " frame%s kept (%.1f MiB), %" PRIu64 " trace%s written",
           s.flight_frames, s.flight_frames == 1 ? "" : "s",
           static_cast<double>(s.flight_bytes) / (1 << 20), s.flight_traces,
           s.flight_traces == 1 ? "" : "s");
  return line;
}

int ps() {
  std::string error;
  std::vector<control::ProcessEntry> entries = control::list_processes(&error);
  if (!error.empty() && entries.empty()) {
    fprintf(stderr, "gltrace ps: %s\n", error.c_str());
    return kExitFailure;
  }
  printf("%-8s %-20s %-10s %-9s %-10s %s\n", "PID", "NAME", "STATE", "MODE", "FRAMES", "SOCKET");
  for (const auto& e : entries) {
    if (!e.reachable) {
      printf("%-8s %-20s %-10s %-9s %-10s %s\n", "-", "-", "stale", "-", "-",
             e.socket_path.c_str());
      continue;
    }
    printf("%-8u %-20s %-10s %-9s %-10" PRIu64 " %s\n", e.status.pid, e.status.process_name.c_str(),
           e.status.state.c_str(), e.status.mode.c_str(), e.status.app_frames,
           e.socket_path.c_str());
    // Under its row, so the table keeps one row per process for scripts.
    if (e.status.flight_frames != 0) printf("%-8s %s\n", "", describe_flight(e.status).c_str());
    if (e.status.shadow_uploaded != 0)
      printf("%-8s compressed copies: %.1f KiB held of %.1f KiB uploaded\n", "",
             static_cast<double>(e.status.shadow_bytes) / 1024,
             static_cast<double>(e.status.shadow_uploaded) / 1024);
  }
  return kExitOk;
}

struct AttachOptions {
  Target target;
  std::string output;
  control::Request start;
  std::string framebuffer;
  bool no_texture_data = false;
  bool thread_time = false;
  double duration = 0;
  bool quiet = false;
};

int attach(AttachOptions& o, const CommandLine& line) {
  if (int status = resolve_target(line, kAttach, &o.target); status != kExitOk) return status;
  AttachRequest request;
  request.command = kAttach;
  request.endpoint = o.target.endpoint;
  request.start = o.start;
  if (!o.framebuffer.empty()) parse_framebuffer(o.framebuffer, &request.start.options);
  if (o.no_texture_data) request.start.options.texture_data = false;
  if (o.thread_time) request.start.options.thread_time = true;
  request.output = o.output;
  request.duration = o.duration;
  request.progress = !o.quiet && isatty(STDERR_FILENO) != 0;
  AttachSession session;
  if (!session.start(request)) return kExitFailure;
  struct sigaction action {};
  action.sa_handler = &on_interrupt;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  bool streamed = session.stream(g_interrupted);
  return session.finish(streamed);
}

// Sends one request to the target's process; false (after printing why, as
// "gltrace COMMAND: ...") when it cannot be reached or does not answer.
bool ask(const Target& target, const char* command, const control::Request& request,
         control::Reply* reply, int timeout_ms = 15000 /* Client::call's own */) {
  std::string error;
  auto client =
      control::Client::connect(target.endpoint, std::string("gltrace ") + command, &error);
  if (client == nullptr || !client->call(request, reply, &error, timeout_ms)) {
    fprintf(stderr, "gltrace %s: %s\n", command, error.c_str());
    return false;
  }
  return true;
}

int detach(Target& target, const CommandLine& line) {
  if (int status = resolve_target(line, "detach", &target); status != kExitOk) return status;
  control::Request stop;
  stop.command = control::Command::kStop;
  control::Reply reply;
  if (!ask(target, "detach", stop, &reply)) return kExitFailure;
  if (reply.status)
    printf("stopped: %" PRIu64 " frames, %" PRIu64 " calls\n", reply.status->frames,
           reply.status->calls);
  return kExitOk;
}

struct OptionsOptions {
  Target target;
  std::string framebuffer, texture_data, thread_time;
};

int options(OptionsOptions& o, const CommandLine& line) {
  Target& target = o.target;
  control::Request request;
  request.command = control::Command::kSetOptions;
  if (!o.framebuffer.empty()) parse_framebuffer(o.framebuffer, &request.options);
  if (!o.texture_data.empty()) request.options.texture_data = o.texture_data == "on";
  if (!o.thread_time.empty()) request.options.thread_time = o.thread_time == "on";
  if (int status = resolve_target(line, "options", &target); status != kExitOk) return status;
  control::Reply reply;
  if (!ask(target, "options", request, &reply)) return kExitFailure;
  if (reply.status)
    printf("%s (%s)\n", describe(reply.status->options).c_str(), reply.status->state.c_str());
  return kExitOk;
}

int flight(Target& target, const CommandLine& line) {
  if (int status = resolve_target(line, "flight", &target); status != kExitOk) return status;
  control::Request request;
  request.command = control::Command::kFlight;
  control::Reply reply;
  // The app writes the trace before it answers: up to a minute for a large one.
  if (!ask(target, "flight", request, &reply, 70000)) return kExitFailure;
  printf("flight trace: %s\n", reply.path.c_str());
  return kExitOk;
}

}  // namespace

void register_ps(Commands& commands) {
  CommandLine& line = commands.add("ps", "list the traceable processes of this user",
                                   [](const CommandLine&) { return ps(); });
  line.app().description(
      "Lists this user's traceable processes (started with `gltrace run --traceable`\n"
      "or with the debug.gltrace.trace setting): pid, name, state (idle, tracing,\n"
      "finishing), the mode an attach records by default, frames the app drew, and\n"
      "the control socket. Sockets nobody answers on (a process that died) are\n"
      "listed as stale. Under a process with a flight recorder, a line says what\n"
      "it keeps and how many traces it wrote.");
}

void register_attach(Commands& commands) {
  auto o = std::make_shared<AttachOptions>();
  CommandLine& line =
      commands.add(kAttach, "start tracing a running traceable process, streaming to a file",
                   [o](const CommandLine& line) { return attach(*o, line); });
  CLI::App& app = line.app();
  app.description(
      "Starts tracing a running traceable process and streams the trace to FILE.\n"
      "Each thread of the app switches to tracing at its next eglSwapBuffers or\n"
      "eglMakeCurrent; the trace is marked as started mid-run. Tracing stops after\n"
      "N frames, after S seconds, on Ctrl-C, on `gltrace detach`, or when the app\n"
      "exits; FILE is then complete (index and footer) and the app keeps running.\n"
      "If this command is killed, the app stops tracing within a frame.");
  app.add_option("-o,--output", o->output,
                 "where the trace goes (the mode's text for log, error and systrace)")
      ->type_name("FILE")
      ->required();
  app.add_option("--mode", o->start.mode,
                 "full, log, error or systrace (default: the app's setting)")
      ->type_name("MODE")
      ->check(one_of(trace_modes()));
  app.add_option("--framebuffer", o->framebuffer,
                 "swap, draw, swap,draw or off: framebuffer read-backs")
      ->type_name("WHEN")
      ->check(one_of(framebuffer_choices()));
  app.add_flag("--no-texture-data", o->no_texture_data, "texture uploads without their pixels");
  app.add_flag("--thread-time", o->thread_time, "each call's thread CPU time");
  app.add_option("--frames", o->start.max_frames, "stop after N frames")
      ->type_name("N")
      ->check(in_range(uint64_t{1}, uint64_t{1'000'000'000}));
  app.add_option("--duration", o->duration, "stop after S seconds")
      ->type_name("S")
      ->check(in_range(1e-9, 1e9));
  app.add_option("--zstd-level", o->start.zstd_level,
                 "zstd compression level of the trace's chunks, 1 (fastest) to 22 (smallest); "
                 "default 1")
      ->type_name("N")
      ->check(in_range(1, 22));
  add_target_options(app, &o->target);
  app.add_flag("--quiet", o->quiet, "no progress line");
  app.footer(
      "At the end it reads FILE back and prints `wrote N calls, M frames, X MB to\n"
      "FILE`, with a warning for no EGL, GLX or GL call, or no frame\n"
      "in the app. Exit status 1 when FILE cannot be written, read or finished.");
}

void register_detach(Commands& commands) {
  auto target = std::make_shared<Target>();
  CommandLine& line =
      commands.add("detach", "stop tracing a process (its attach finishes the trace)",
                   [target](const CommandLine& line) { return detach(*target, line); });
  line.app().description(
      "Stops the capture running in a traceable process. The attach that started\n"
      "it writes the end of the trace and exits; the app keeps running.");
  add_target_options(line.app(), target.get());
}

void register_options(Commands& commands) {
  auto o = std::make_shared<OptionsOptions>();
  CommandLine& line = commands.add("options", "change a running capture's options",
                                   [o](const CommandLine& line) { return options(*o, line); });
  CLI::App& app = line.app();
  app.description(
      "Changes the capture options of a traceable process, also while it traces,\n"
      "and prints them. Without options, prints them.");
  app.add_option("--framebuffer", o->framebuffer,
                 "swap, draw, swap,draw or off: framebuffer read-backs")
      ->type_name("WHEN")
      ->check(one_of(framebuffer_choices()));
  app.add_option("--texture-data", o->texture_data, "texture uploads with their pixels")
      ->type_name("on|off")
      ->check(one_of({"on", "off"}));
  app.add_option("--thread-time", o->thread_time, "each call's thread CPU time")
      ->type_name("on|off")
      ->check(one_of({"on", "off"}));
  add_target_options(app, &o->target);
}

void register_flight(Commands& commands) {
  auto target = std::make_shared<Target>();
  CommandLine& line =
      commands.add("flight", "write what a process's flight recorder keeps to a trace",
                   [target](const CommandLine& line) { return flight(*target, line); });
  line.app().description(
      "Asks a process started with `gltrace run --flight-recorder FRAMES` (or the\n"
      "debug.gltrace.flight setting) to write the frames its flight recorder keeps\n"
      "now to a new trace file, and prints `flight trace: FILE`. The trace begins\n"
      "with a snapshot and replays from its first frame; the app keeps running\n"
      "and recording.");
  add_target_options(line.app(), target.get());
  line.app().footer(
      "The file goes where the app's output setting says (`run -o`, GLTRACE_TRACE_FILE,\n"
      "debug.gltrace.output; default the app's current directory). Exit status 1\n"
      "when the process has no flight recorder or nothing could be written.");
}

}  // namespace gltrace::cli
