// Live tracing from the host: `gltrace ps`, `attach`, `detach`, `options`.
// They talk to the control server inside a traceable app (src/control).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/trace_output.h"
#include "control/client.h"
#include "format/reader.h"

namespace gltrace::cli {

namespace {

volatile sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

double seconds_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Target {
  std::string what;  // PID or NAME
  std::string tcp;   // HOST:PORT
  control::Endpoint endpoint;
};

// The options every live command shares: PID|NAME, --socket, --tcp, --token.
void add_target_options(CLI::App& app, Target* target) {
  app.add_option("--tcp", target->tcp,
                 "the app's TCP listener (`gltrace run --control-tcp`), with --token TOKEN as "
                 "it printed at start")
      ->type_name("HOST:PORT");
  app.add_option("--token", target->endpoint.token, "the token for --tcp")->type_name("TOKEN");
  app.add_option("--socket", target->endpoint.unix_path,
                 "the app's control socket, instead of PID or NAME")
      ->type_name("PATH");
  app.add_option("PID|NAME", target->what, "the process: its pid or executable name");
}

// Fills in the endpoint for a PID, NAME or --tcp; kExitOk, or the exit
// status after printing why not.
int resolve(const CommandLine& line, const char* command, Target* target) {
  if (!target->tcp.empty()) {
    std::string error;
    if (!control::parse_tcp_endpoint(target->tcp, &target->endpoint, &error))
      return line.usage_error(error);
  }
  if (target->endpoint.tcp_port > 0) {
    if (target->endpoint.token.empty()) {
      fprintf(stderr, "gltrace %s: --tcp needs --token (the app printed it at start)\n", command);
      return kExitFailure;
    }
    return kExitOk;
  }
  if (!target->endpoint.unix_path.empty()) return kExitOk;
  if (target->what.empty()) return line.usage_error("missing PID or NAME");
  std::string error;
  target->endpoint.unix_path = control::find_process_socket(target->what, &error);
  if (target->endpoint.unix_path.empty()) {
    fprintf(stderr, "gltrace %s: %s\n", command, error.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

bool parse_framebuffer(const std::string& value, control::CaptureOptions* options) {
  if (value != "swap" && value != "draw" && value != "swap,draw" && value != "off") return false;
  options->framebuffer_on_swap = value == "swap" || value == "swap,draw";
  options->framebuffer_on_draw = value == "draw" || value == "swap,draw";
  return true;
}

std::string describe(const control::CaptureOptions& o) {
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

// Streams the data channel into the output until it closes, sending Stop
// when asked to and printing progress from status replies.
class AttachLoop {
 public:
  AttachLoop(int control_fd, int data_fd, int out_fd, double duration, bool progress)
      : control_fd_(control_fd),
        data_fd_(data_fd),
        out_fd_(out_fd),
        deadline_(duration > 0 ? seconds_now() + duration : 0),
        progress_(progress) {}

  // False after printing why (the output failed).
  bool run() {
    double next_status = seconds_now() + 0.5;
    while (data_fd_ >= 0) {
      if (!stop_sent_ && (g_interrupted != 0 || (deadline_ > 0 && seconds_now() >= deadline_)))
        send(control::Command::kStop);
      if (seconds_now() >= next_status && control_fd_ >= 0) {
        send(control::Command::kGetStatus);
        next_status = seconds_now() + 0.5;
      }
      pollfd fds[2] = {{data_fd_, POLLIN, 0}, {control_fd_, POLLIN, 0}};
      int ready = poll(fds, control_fd_ >= 0 ? 2 : 1, 100);
      if (ready < 0 && errno != EINTR) break;
      if (ready <= 0) continue;
      if (fds[0].revents != 0 && !copy_data()) return false;
      if (control_fd_ >= 0 && fds[1].revents != 0) read_replies();
    }
    if (progress_) fputc('\n', stderr);
    return true;
  }

  uint64_t bytes() const { return bytes_; }
  const control::Status& status() const { return status_; }
  bool stop_sent() const { return stop_sent_; }

 private:
  void send(control::Command command) {
    control::Request request;
    request.id = next_id_++;
    request.command = command;
    std::string error;
    if (!control::send_message(control_fd_, control::encode(request), &error)) {
      close(control_fd_);
      control_fd_ = -1;
    }
    if (command == control::Command::kStop) stop_sent_ = true;
  }

  bool copy_data() {
    uint8_t buffer[1 << 16];
    ssize_t n = read(data_fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {  // the capture ended (or the app went away)
      close(data_fd_);
      data_fd_ = -1;
      return true;
    }
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(out_fd_, buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        fprintf(stderr, "\ngltrace attach: cannot write the trace: %s\n", strerror(errno));
        return false;
      }
      done += w;
    }
    bytes_ += static_cast<uint64_t>(n);
    return true;
  }

  void read_replies() {
    uint8_t buffer[4096];
    ssize_t n = recv(control_fd_, buffer, sizeof buffer, 0);
    if (n <= 0) {
      close(control_fd_);
      control_fd_ = -1;
      return;
    }
    reader_.append(buffer, static_cast<size_t>(n));
    std::vector<uint8_t> message;
    while (reader_.next(&message) == control::FrameReader::Result::kMessage) {
      control::Reply reply;
      std::string error;
      if (!control::decode(message.data(), message.size(), &reply, &error)) continue;
      if (!reply.ok && !reply.error.empty())
        fprintf(stderr, "\ngltrace attach: the app says: %s\n", reply.error.c_str());
      if (reply.status) status_ = *reply.status;
      if (progress_)
        fprintf(stderr, "\rframes %" PRIu64 "  calls %" PRIu64 "  %.1f MB  stalls %" PRIu64 "   ",
                status_.frames, status_.calls, static_cast<double>(bytes_) / 1e6, status_.stalls);
    }
  }

  int control_fd_;
  int data_fd_;
  int out_fd_;
  double deadline_;
  bool progress_;
  bool stop_sent_ = false;
  uint64_t next_id_ = 1000;
  uint64_t bytes_ = 0;
  control::FrameReader reader_;
  control::Status status_;
};

// True when the trace was finished: its footer points to a valid index.
bool finished_trace(const std::string& path) {
  format::ChunkReader reader;
  return reader.open(path) && reader.index() != nullptr;
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
  Target& target = o.target;
  const std::string& output = o.output;
  control::Request& start = o.start;
  start.command = control::Command::kStart;
  if (!o.framebuffer.empty()) parse_framebuffer(o.framebuffer, &start.options);
  if (o.no_texture_data) start.options.texture_data = false;
  if (o.thread_time) start.options.thread_time = true;
  double duration = o.duration;
  bool quiet = o.quiet;
  if (int status = resolve(line, kAttach, &target); status != kExitOk) return status;

  std::string error;
  control::Status status;
  auto client = control::Client::connect(target.endpoint, "gltrace attach", &error, &status);
  if (client == nullptr) {
    fprintf(stderr, "gltrace attach: %s\n", error.c_str());
    return kExitFailure;
  }
  if (status.state != "idle") {
    fprintf(stderr, "gltrace attach: %s (pid %u) is already %s\n", status.process_name.c_str(),
            status.pid, status.state.c_str());
    return kExitFailure;
  }
  // 0600, as `gltrace trace` creates its files: a trace holds what the app drew and uploaded.
  int out_fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0) {
    fprintf(stderr, "gltrace attach: cannot create %s: %s\n", output.c_str(), strerror(errno));
    return kExitFailure;
  }
  int data_fd = control::open_data_channel(target.endpoint, &error);
  control::Reply reply;
  if (data_fd < 0 || !client->call(start, &reply, &error)) {
    fprintf(stderr, "gltrace attach: cannot start tracing %s (pid %u): %s\n",
            status.process_name.c_str(), status.pid, error.c_str());
    if (data_fd >= 0) close(data_fd);
    close(out_fd);
    unlink(output.c_str());
    return kExitFailure;
  }
  fprintf(stderr, "gltrace attach: tracing %s (pid %u) from app frame %" PRIu64 " to %s%s\n",
          status.process_name.c_str(), status.pid,
          reply.status ? reply.status->app_frames : uint64_t{0}, output.c_str(),
          isatty(STDIN_FILENO) != 0 ? "; Ctrl-C stops" : "");
  struct sigaction action {};
  action.sa_handler = &on_interrupt;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  AttachLoop loop(client->fd(), data_fd, out_fd, duration, !quiet && isatty(STDERR_FILENO) != 0);
  bool ok = loop.run();
  if (close(out_fd) != 0) ok = false;
  // The capture's final figures.
  control::Request get_status;
  get_status.command = control::Command::kGetStatus;
  control::Status final_status = loop.status();
  if (client->call(get_status, &reply, &error) && reply.status) final_status = *reply.status;
  // The mode asked for, or the app's default one (as its status said before the start).
  std::string mode = !start.mode.empty() ? start.mode : status.mode;
  bool traced = ok;
  bool complete = true;
  if (mode == "full") {
    complete = finished_trace(output);
    traced = report_trace(kAttach, output) && traced;
  } else {
    fprintf(stderr, "gltrace attach: wrote %.2f MB to %s\n",
            static_cast<double>(loop.bytes()) / 1e6, output.c_str());
  }
  if (final_status.stalls != 0)
    fprintf(stderr, "gltrace attach: the app waited for the writer %" PRIu64 " times (%.1f ms)\n",
            final_status.stalls, static_cast<double>(final_status.stall_ns) / 1e6);
  if (!complete)
    fprintf(stderr,
            "gltrace attach: %s is cut short: the app or its connection went away; it is "
            "readable up to there\n",
            output.c_str());
  return traced && complete ? kExitOk : kExitFailure;
}

int detach(Target& target, const CommandLine& line) {
  if (int status = resolve(line, "detach", &target); status != kExitOk) return status;
  std::string error;
  auto client = control::Client::connect(target.endpoint, "gltrace detach", &error);
  control::Request stop;
  stop.command = control::Command::kStop;
  control::Reply reply;
  if (client == nullptr || !client->call(stop, &reply, &error)) {
    fprintf(stderr, "gltrace detach: %s\n", error.c_str());
    return kExitFailure;
  }
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
  if (int status = resolve(line, "options", &target); status != kExitOk) return status;
  std::string error;
  auto client = control::Client::connect(target.endpoint, "gltrace options", &error);
  control::Reply reply;
  if (client == nullptr || !client->call(request, &reply, &error)) {
    fprintf(stderr, "gltrace options: %s\n", error.c_str());
    return kExitFailure;
  }
  if (reply.status)
    printf("%s (%s)\n", describe(reply.status->options).c_str(), reply.status->state.c_str());
  return kExitOk;
}

const std::vector<std::string> kFramebufferChoices = {"swap", "draw", "swap,draw", "off"};

}  // namespace

void register_ps(Commands& commands) {
  CommandLine& line = commands.add("ps", "list the traceable processes of this user",
                                   [](const CommandLine&) { return ps(); });
  line.app().description(
      "Lists this user's traceable processes (started with `gltrace run --traceable`\n"
      "or with the debug.gltrace.trace setting): pid, name, state (idle, tracing,\n"
      "finishing), the mode an attach records by default, frames the app drew, and\n"
      "the control socket. Sockets nobody answers on (a process that died) are\n"
      "listed as stale.");
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
      ->check(one_of(kFramebufferChoices));
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
                 "default: the trace writer's")
      ->type_name("N")
      ->check(in_range(1, 22));
  add_target_options(app, &o->target);
  app.add_flag("--quiet", o->quiet, "no progress line");
  app.footer(
      "At the end it reads FILE back and prints `wrote N calls, M frames, X MB to\n"
      "FILE`, with a warning for no EGL/GLES call, no frame, or GLX/desktop GL use\n"
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
      ->check(one_of(kFramebufferChoices));
  app.add_option("--texture-data", o->texture_data, "texture uploads with their pixels")
      ->type_name("on|off")
      ->check(one_of({"on", "off"}));
  app.add_option("--thread-time", o->thread_time, "each call's thread CPU time")
      ->type_name("on|off")
      ->check(one_of({"on", "off"}));
  add_target_options(app, &o->target);
}

}  // namespace gltrace::cli
