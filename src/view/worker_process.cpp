#include "view/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "view/child_exec.h"
#include "view/trace_model.h"

namespace gltrace::view {
namespace {

constexpr size_t kStderrTail = 2048;

[[noreturn]] void unavailable(const std::string& message) {
  throw QueryError{503, "the state worker is unavailable: " + message};
}

std::string exit_text(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by ") + strsignal(WTERMSIG(status));
  return "ended";
}

}  // namespace

WorkerProcess::WorkerProcess(std::vector<std::string> command, std::string trace)
    : command_(std::move(command)), trace_(std::move(trace)) {}

WorkerProcess::~WorkerProcess() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop(nullptr);
}

std::string WorkerProcess::stderr_tail() {
  std::lock_guard<std::mutex> lock(stderr_mutex_);
  // Its first line (a usage error says why there) and its last ones (a
  // crash's messages).
  std::string first = stderr_head_.substr(0, stderr_head_.find('\n'));
  std::string tail = stderr_tail_;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  size_t last_lines = tail.size() > 600 ? tail.find('\n', tail.size() - 600) : 0;
  if (last_lines != std::string::npos && last_lines != 0) tail = "..." + tail.substr(last_lines);
  if (tail.starts_with(first)) return tail;
  return first + (tail.empty() ? "" : " ... " + tail);
}

void WorkerProcess::start() {
  std::vector<std::string> argv = command_;
  argv.push_back(trace_);
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) unavailable(std::string("pipe: ") + strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]);
    unavailable(std::string("pipe: ") + strerror(errno));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    unavailable(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) exec_child(args.data(), parent, in[0], out[1], err[1]);
  int fork_errno = errno;
  close(in[0]), close(out[1]), close(err[1]);
  if (pid < 0) {
    close(in[1]), close(out[0]), close(err[0]);
    unavailable(std::string("fork: ") + strerror(fork_errno));
  }
  pid_ = pid;
  to_worker_ = in[1];
  from_worker_ = out[0];
  buffered_.clear();
  at_call_valid_ = false;
  {
    std::lock_guard<std::mutex> lock(stderr_mutex_);
    stderr_tail_.clear();
    stderr_head_.clear();
  }
  // The worker's log goes on to ours; its last lines say why it failed.
  int err_fd = err[0];
  stderr_thread_ = std::thread([this, err_fd] {
    char buffer[4096];
    for (;;) {
      ssize_t n = read(err_fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      (void)!write(2, buffer, static_cast<size_t>(n));
      std::lock_guard<std::mutex> lock(stderr_mutex_);
      if (stderr_head_.size() < kStderrTail)
        stderr_head_.append(buffer, std::min(static_cast<size_t>(n), kStderrTail));
      stderr_tail_.append(buffer, static_cast<size_t>(n));
      if (stderr_tail_.size() > kStderrTail)
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
    }
    close(err_fd);
  });
}

void WorkerProcess::stop(const char* why, const int* reaped_status) {
  if (pid_ < 0) return;
  if (to_worker_ >= 0) close(to_worker_);  // EOF: a healthy worker exits
  to_worker_ = -1;
  int status = reaped_status != nullptr ? *reaped_status : 0;
  pid_t done = reaped_status != nullptr ? pid_ : 0;
  for (int i = 0; i < 50 && done == 0; ++i) {
    done = waitpid(pid_, &status, WNOHANG);
    if (done == 0) usleep(10000);
  }
  if (done == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  if (from_worker_ >= 0) close(from_worker_);
  from_worker_ = -1;
  if (stderr_thread_.joinable()) stderr_thread_.join();
  if (why != nullptr) {
    std::string tail = stderr_tail();
    last_failure_ = std::string(why) + "; the worker " + exit_text(status);
    if (!tail.empty()) last_failure_ += ": " + tail;
  }
  pid_ = -1;
  at_call_valid_ = false;
}

void WorkerProcess::reap_if_ended() {
  int status = 0;
  if (pid_ >= 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
    // It died after its last reply (a driver crash, a kill): this request
    // gets a new one, which replays from the start.
    stop("it ended between requests", &status);
    fprintf(stderr, "gltrace view: the state worker %s; starting a new one\n",
            last_failure_.c_str());
  }
}

nlohmann::json WorkerProcess::exchange(nlohmann::json message) {
  if (pid_ < 0) start();
  int64_t id = next_id_++;
  message["id"] = id;
  std::string line = message.dump() + "\n";
  for (size_t done = 0; done < line.size();) {
    ssize_t n = write(to_worker_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stop("it stopped reading requests");
      unavailable(last_failure_);
    }
    done += static_cast<size_t>(n);
  }
  for (;;) {
    size_t newline = buffered_.find('\n');
    if (newline != std::string::npos) {
      std::string reply_line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      nlohmann::json reply;
      try {
        reply = nlohmann::json::parse(reply_line);
      } catch (const nlohmann::json::exception& e) {
        stop("it wrote a line that is no JSON");
        unavailable(last_failure_ + " (" + e.what() + ")");
      }
      if (!reply.is_object() || !reply.contains("id") || reply["id"] != id) {
        stop("its reply does not answer the request (wrong id)");
        unavailable(last_failure_);
      }
      if (reply.contains("bytes")) read_frame(reply);
      return reply;
    }
    if (buffered_.size() > kMaxReplyBytes) {
      stop("its reply is too long");
      unavailable(last_failure_);
    }
    char buffer[65536];
    ssize_t n = read(from_worker_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stop("it ended before replying");
      unavailable(last_failure_);
    }
    buffered_.append(buffer, static_cast<size_t>(n));
  }
}

void WorkerProcess::read_frame(nlohmann::json& reply) {
  if (!reply["bytes"].is_number_unsigned() || reply["bytes"].get<uint64_t>() > kMaxReplyBytes) {
    stop("its reply's binary frame has no valid length");
    unavailable(last_failure_);
  }
  auto size = reply["bytes"].get<size_t>();
  std::vector<uint8_t> bytes(buffered_.begin(), buffered_.begin() + static_cast<ptrdiff_t>(std::min(
                                                                        size, buffered_.size())));
  buffered_.erase(0, bytes.size());
  while (bytes.size() < size) {
    size_t have = bytes.size();
    bytes.resize(size);
    ssize_t n = read(from_worker_, bytes.data() + have, size - have);
    if (n < 0 && errno == EINTR)
      n = 0;
    else if (n <= 0) {
      stop("it ended inside a reply's bytes");
      unavailable(last_failure_);
    }
    bytes.resize(have + static_cast<size_t>(n));
  }
  reply["bytes"] = nlohmann::json::binary(std::move(bytes));
}

nlohmann::json WorkerProcess::request(nlohmann::json message) {
  std::lock_guard<std::mutex> lock(mutex_);
  reap_if_ended();
  return exchange(std::move(message));
}

nlohmann::json WorkerProcess::go_to_locked(uint64_t call) {
  reap_if_ended();  // before deciding whether it is at `call` already
  if (at_call_valid_ && at_call_ == call)
    return {{"ok", true},
            {"call", call},
            {"from", call},
            {"replayed", 0},
            {"restarted", false},
            {"ms", 0},
            {"warnings", nlohmann::json::array()}};
  nlohmann::json from = at_call_valid_ ? nlohmann::json(at_call_) : nlohmann::json();
  nlohmann::json reply = exchange({{"op", "goto"}, {"call", call}});
  reply.erase("id");
  if (reply.value("ok", false) != true) {
    at_call_valid_ = false;
    return reply;
  }
  // Backward, the worker went back to the trace's start.
  reply["from"] = reply.value("restarted", false) ? nlohmann::json() : from;
  at_call_valid_ = true;
  at_call_ = call;
  return reply;
}

nlohmann::json WorkerProcess::go_to(uint64_t call) {
  std::lock_guard<std::mutex> lock(mutex_);
  return go_to_locked(call);
}

nlohmann::json WorkerProcess::request_at(uint64_t call, nlohmann::json message,
                                         nlohmann::json* go) {
  std::lock_guard<std::mutex> lock(mutex_);
  *go = go_to_locked(call);
  if (go->value("ok", false) != true) return *go;
  return exchange(std::move(message));
}

std::optional<uint64_t> WorkerProcess::position() {
  std::lock_guard<std::mutex> lock(mutex_);
  reap_if_ended();
  if (!at_call_valid_) return std::nullopt;
  return at_call_;
}

pid_t WorkerProcess::pid() {
  std::lock_guard<std::mutex> lock(mutex_);
  return pid_;
}

}  // namespace gltrace::view
