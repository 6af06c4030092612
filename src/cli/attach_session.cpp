#include "cli/attach_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.h"
#include "cli/trace_output.h"
#include "format/output_file.h"
#include "format/reader.h"

namespace gltrace::cli {

namespace {

double seconds_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Streams the data channel into the output until it closes, sending Stop
// when asked to and printing progress from status replies.
class AttachLoop {
 public:
  AttachLoop(const char* command, int control_fd, int data_fd, int out_fd, double duration,
             bool progress)
      : command_(command),
        control_fd_(control_fd),
        data_fd_(data_fd),
        out_fd_(out_fd),
        deadline_(duration > 0 ? seconds_now() + duration : 0),
        progress_(progress) {}

  // False after printing why (the output failed). Closes the data channel.
  bool run(const std::atomic<bool>& stop, const std::function<void()>& written) {
    double next_status = seconds_now() + 0.5;
    while (data_fd_ >= 0) {
      if (!stop_sent_ && (stop.load() || (deadline_ > 0 && seconds_now() >= deadline_)))
        send(control::Command::kStop);
      if (seconds_now() >= next_status && control_fd_ >= 0) {
        send(control::Command::kGetStatus);
        next_status = seconds_now() + 0.5;
      }
      pollfd fds[2] = {{data_fd_, POLLIN, 0}, {control_fd_, POLLIN, 0}};
      int ready = poll(fds, control_fd_ >= 0 ? 2 : 1, 100);
      if (ready < 0 && errno != EINTR) break;
      if (ready <= 0) continue;
      if (fds[0].revents != 0) {
        if (!copy_data()) {
          close(data_fd_);
          return false;
        }
        if (written) written();
      }
      if (control_fd_ >= 0 && fds[1].revents != 0) read_replies();
    }
    if (data_fd_ >= 0) close(data_fd_);
    if (progress_) fputc('\n', stderr);
    return true;
  }

  uint64_t bytes() const { return bytes_; }
  const control::Status& status() const { return status_; }

 private:
  void send(control::Command command) {
    control::Request request;
    request.id = next_id_++;
    request.command = command;
    std::string error;
    if (!control::send_message(control_fd_, control::encode(request), &error)) {
      // The control connection is the client's: it closes it; this loop
      // only stops using it.
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
        fprintf(stderr, "\ngltrace %s: cannot write the trace: %s\n", command_, strerror(errno));
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
        fprintf(stderr, "\ngltrace %s: the app says: %s\n", command_, reply.error.c_str());
      if (reply.status) status_ = *reply.status;
      if (progress_)
        fprintf(stderr, "\rframes %" PRIu64 "  calls %" PRIu64 "  %.1f MB  stalls %" PRIu64 "   ",
                status_.frames, status_.calls, static_cast<double>(bytes_) / 1e6, status_.stalls);
    }
  }

  const char* command_;
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

// PROCESS-PID-YYYYMMDD-HHMMSS.gltrace, the process name kept to characters
// that need no quoting in a shell.
std::string default_output(const control::Status& status) {
  std::string name;
  for (char c : status.process_name)
    name +=
        (isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.') ? c : '_';
  if (name.empty() || name[0] == '.') name = "trace" + name;
  time_t now = time(nullptr);
  tm local{};
  localtime_r(&now, &local);
  char when[32];
  strftime(when, sizeof when, "%Y%m%d-%H%M%S", &local);
  return name + "-" + std::to_string(status.pid) + "-" + when + ".gltrace";
}

}  // namespace

const std::vector<std::string>& framebuffer_choices() {
  static const std::vector<std::string> choices = {"swap", "draw", "swap,draw", "off"};
  return choices;
}

void parse_framebuffer(const std::string& value, control::CaptureSettings* options) {
  options->framebuffer_on_swap = value == "swap" || value == "swap,draw";
  options->framebuffer_on_draw = value == "draw" || value == "swap,draw";
}

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

int resolve_target(const CommandLine& line, const char* command, Target* target) {
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

struct AttachSession::State {
  AttachRequest request;
  std::unique_ptr<control::Client> client;
  control::Status status;  // the app's, before the start
  int out_fd = -1;
  int data_fd = -1;
  uint64_t bytes = 0;
  control::Status last_status;  // from the stream's status replies

  ~State() {
    if (out_fd >= 0) close(out_fd);
    if (data_fd >= 0) close(data_fd);
  }
};

AttachSession::AttachSession() : state_(std::make_unique<State>()) {}
AttachSession::~AttachSession() = default;

bool AttachSession::start(const AttachRequest& request) {
  State& s = *state_;
  s.request = request;
  s.request.start.command = control::Command::kStart;
  const char* command = request.command;
  std::string error;
  s.client = control::Client::connect(request.endpoint, std::string("gltrace ") + command, &error,
                                      &s.status);
  if (s.client == nullptr) {
    fprintf(stderr, "gltrace %s: %s\n", command, error.c_str());
    return false;
  }
  if (s.status.state != "idle") {
    fprintf(stderr, "gltrace %s: %s (pid %u) is already %s\n", command,
            s.status.process_name.c_str(), s.status.pid, s.status.state.c_str());
    return false;
  }
  // A name of our own choosing never replaces a file that is there; -o FILE
  // replaces a finished trace, never one another writer holds (this capture
  // then gets a derived name: format/output_file.h).
  bool chosen = request.output.empty();
  std::string wanted = chosen ? default_output(s.status) : request.output;
  if (!chosen && format::replace_finished(wanted) == format::Previous::kBeingWritten)
    fprintf(stderr, "gltrace %s: note: another process is writing %s now: it is left alone\n",
            command, wanted.c_str());
  format::ClaimedFile file =
      format::claim_new_file(wanted, s.status.process_name, s.status.pid, &error);
  if (file.fd < 0) {
    fprintf(stderr, "gltrace %s: %s\n", command, error.c_str());
    return false;
  }
  output_ = file.path;
  s.out_fd = file.fd;
  s.data_fd = control::open_data_channel(request.endpoint, &error);
  control::Reply reply;
  if (s.data_fd < 0 || !s.client->call(s.request.start, &reply, &error)) {
    fprintf(stderr, "gltrace %s: cannot start tracing %s (pid %u): %s\n", command,
            s.status.process_name.c_str(), s.status.pid, error.c_str());
    close(s.out_fd);
    s.out_fd = -1;
    unlink(output_.c_str());
    return false;
  }
  fprintf(stderr, "gltrace %s: tracing %s (pid %u) from app frame %" PRIu64 " to %s%s\n", command,
          s.status.process_name.c_str(), s.status.pid,
          reply.status ? reply.status->app_frames : uint64_t{0}, output_.c_str(),
          isatty(STDIN_FILENO) != 0 ? "; Ctrl-C stops" : "");
  return true;
}

bool AttachSession::stream(const std::atomic<bool>& stop, const std::function<void()>& written) {
  State& s = *state_;
  AttachLoop loop(s.request.command, s.client->fd(), s.data_fd, s.out_fd, s.request.duration,
                  s.request.progress);
  s.data_fd = -1;  // the loop closes it
  bool ok = loop.run(stop, written);
  s.bytes = loop.bytes();
  s.last_status = loop.status();
  return ok;
}

int AttachSession::finish(bool streamed) {
  State& s = *state_;
  const char* command = s.request.command;
  bool ok = streamed;
  if (s.out_fd >= 0 && close(s.out_fd) != 0) ok = false;
  s.out_fd = -1;
  // The capture's final figures.
  control::Request get_status;
  get_status.command = control::Command::kGetStatus;
  control::Reply reply;
  std::string error;
  control::Status final_status = s.last_status;
  if (s.client->call(get_status, &reply, &error) && reply.status) final_status = *reply.status;
  // The mode asked for, or the app's default one (as its status said before the start).
  std::string mode = !s.request.start.mode.empty() ? s.request.start.mode : s.status.mode;
  bool complete = true;
  if (mode == "full") {
    complete = finished_trace(output_);
    ok = report_trace(command, output_) && ok;
  } else {
    fprintf(stderr, "gltrace %s: wrote %.2f MB to %s\n", command,
            static_cast<double>(s.bytes) / 1e6, output_.c_str());
  }
  if (final_status.stalls != 0)
    fprintf(stderr, "gltrace %s: the app waited for the writer %" PRIu64 " times (%.1f ms)\n",
            command, final_status.stalls, static_cast<double>(final_status.stall_ns) / 1e6);
  if (!complete)
    fprintf(stderr,
            "gltrace %s: %s is cut short: the app or its connection went away; it is "
            "readable up to there\n",
            command, output_.c_str());
  return ok && complete ? kExitOk : kExitFailure;
}

}  // namespace gltrace::cli
