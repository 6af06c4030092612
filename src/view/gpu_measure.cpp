#include "view/gpu_measure.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "view/child_exec.h"
#include "view/trace_model.h"

namespace gltrace::view {
namespace {

constexpr size_t kStderrTail = 2048;

// The last non-empty line of a process's error output.
std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t at = text.rfind('\n');
  return at == std::string::npos ? text : text.substr(at + 1);
}

}  // namespace

GpuMeasure::GpuMeasure(std::vector<std::string> replay_command, std::string trace,
                       TraceModel& model)
    : command_(std::move(replay_command)), trace_(std::move(trace)), model_(model) {}

GpuMeasure::~GpuMeasure() {
  stopping_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pid_ > 0) kill(pid_, SIGKILL);
  }
  if (thread_.joinable()) thread_.join();
}

void GpuMeasure::start() {
  TraceSummary s = model_.summary();
  if (s.live) throw QueryError{409, "a live capture cannot be measured until it ends"};
  if (s.indexing) throw QueryError{409, "the trace is still being indexed: try again once it is"};
  if (s.gpu_source == "capture")
    throw QueryError{409, "the trace already holds the GPU times of its capture"};
  if (command_.empty()) throw QueryError{503, "no gltrace to replay with"};
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == "running") throw QueryError{409, "a GPU time measure is already running"};
  if (thread_.joinable()) thread_.join();  // the last run's thread, ended
  const char* tmp = getenv("TMPDIR");
  std::string output =
      std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") + "/gltrace-view-gpu-XXXXXX";
  int fd = mkstemp(output.data());
  if (fd < 0)
    throw QueryError{
        500, "cannot create a file for the replay's profile: " + std::string(strerror(errno))};
  close(fd);
  std::vector<std::string> argv = command_;
  for (const char* a :
       {"--profile=draws", "--profile-top", "0", "--profile-format", "json", "--profile-output"})
    argv.emplace_back(a);
  argv.push_back(output);
  argv.push_back(trace_);
  state_ = "running";
  message_ = "replaying the trace to time its GPU work";
  matched_ = measured_ = 0;
  started_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this, argv, output] { run(argv, output); });
}

void GpuMeasure::finish(const char* state, std::string message) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = state;
  message_ = std::move(message);
  ended_ = std::chrono::steady_clock::now();
  pid_ = -1;
}

void GpuMeasure::run(std::vector<std::string> argv, const std::string& output) {
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) {
    unlink(output.c_str());
    return finish("failed", std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) exec_child(args.data(), parent, -1, -1, err[1]);
  int fork_errno = errno;
  close(err[1]);
  if (pid < 0) {
    close(err[0]);
    unlink(output.c_str());
    return finish("failed", std::string("fork: ") + strerror(fork_errno));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pid_ = pid;
    if (stopping_) kill(pid, SIGKILL);
  }
  std::string tail;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(err[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    tail.append(buffer, static_cast<size_t>(n));
    if (tail.size() > kStderrTail) tail.erase(0, tail.size() - kStderrTail);
  }
  close(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pid_ = -1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    unlink(output.c_str());
    std::string why = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                        : "killed by signal " + std::to_string(WTERMSIG(status));
    std::string line = last_line(tail);
    return finish("failed", "gltrace replay failed (" + why + ")" +
                                (line.empty() ? std::string() : ": " + line));
  }
  std::vector<std::pair<uint64_t, uint64_t>> times;
  try {
    std::ifstream in(output);
    nlohmann::json profile = nlohmann::json::parse(in);
    for (const nlohmann::json& row : profile.at("draws")) {
      const nlohmann::json& ms = row.at("gpu ms");
      if (!ms.is_number() || !row.at("call").is_number_unsigned()) continue;
      double ns = ms.get<double>() * 1e6;
      if (!(ns >= 0)) continue;
      times.emplace_back(row["call"].get<uint64_t>(), static_cast<uint64_t>(std::llround(ns)));
    }
  } catch (const std::exception& e) {
    unlink(output.c_str());
    return finish("failed", std::string("the replay's profile does not read: ") + e.what());
  }
  unlink(output.c_str());
  uint64_t matched = model_.merge_gpu_times(times);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    matched_ = matched;
    measured_ = times.size();
  }
  if (times.empty())
    return finish("failed", "the replay timed no GPU work (does the driver have timer queries?)");
  finish("done", "measured the GPU time of " + std::to_string(matched) + " calls by a replay");
}

nlohmann::json GpuMeasure::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json out = {
      {"state", state_}, {"message", message_}, {"matched", matched_}, {"measured", measured_}};
  if (state_ == "idle") {
    out["elapsed_ms"] = nullptr;
  } else {
    auto end = state_ == "running" ? std::chrono::steady_clock::now() : ended_;
    out["elapsed_ms"] =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - started_).count();
  }
  return out;
}

}  // namespace gltrace::view
