#include "support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace gltrace::test {
namespace {

std::vector<std::string> g_temp_dirs;
std::mutex g_temp_mutex;

void remove_temp_dirs() {
  for (const auto& dir : g_temp_dirs) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
}

}  // namespace

namespace {

// The child's argv and environment as exec wants them (owning the strings).
struct ExecArgs {
  std::vector<std::string> strings;
  std::vector<char*> argv;
  std::vector<char*> envp;
};

ExecArgs make_exec_args(const std::vector<std::string>& argv, const EnvChanges& env) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = strchr(*e, '=');
    if (eq != nullptr) merged[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto& [name, value] : env) {
    if (value)
      merged[name] = *value;
    else
      merged.erase(name);
  }
  ExecArgs args;
  args.strings = argv;
  for (const auto& [name, value] : merged) args.strings.push_back(name + "=" + value);
  for (size_t i = 0; i < args.strings.size(); ++i)
    (i < argv.size() ? args.argv : args.envp).push_back(args.strings[i].data());
  args.argv.push_back(nullptr);
  args.envp.push_back(nullptr);
  return args;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const EnvChanges& env,
                          int timeout_seconds, const std::string& cwd) {
  ExecArgs exec_args = make_exec_args(argv, env);
  std::vector<char*>& argp = exec_args.argv;
  std::vector<char*>& envp = exec_args.envp;

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execve(argp[0], argp.data(), envp.data());
    fprintf(stderr, "exec %s: %s\n", argp[0], strerror(errno));
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProcessResult result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& fd : fds)
    if (fd.fd >= 0) close(fd.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
    result.core_dumped = WCOREDUMP(status);
  }
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, const EnvChanges& env,
                                     const std::string& out_path, const std::string& err_path)
    : out_path_(out_path), err_path_(err_path) {
  ExecArgs args = make_exec_args(argv, env);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    setpgid(0, 0);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    execve(args.argv[0], args.argv.data(), args.envp.data());
    fprintf(stderr, "exec %s: %s\n", args.argv[0], strerror(errno));
    _exit(127);
  }
}

BackgroundProcess::~BackgroundProcess() {
  if (pid_ > 0 && !done_) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void BackgroundProcess::signal(int sig) {
  if (!done_) kill(pid_, sig);
}

bool BackgroundProcess::running() {
  if (done_) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    done_ = true;
    status_ = status;
  }
  return !done_;
}

ProcessResult BackgroundProcess::wait(int timeout_seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  ProcessResult result;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status_, 0);
      done_ = true;
      break;
    }
    usleep(10000);
  }
  if (WIFEXITED(status_)) result.exit_code = WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) {
    result.term_signal = WTERMSIG(status_);
    result.core_dumped = WCOREDUMP(status_);
  }
  result.out = read_text_file(out_path_);
  result.err = read_text_file(err_path_);
  return result;
}

std::string build_bin(const std::string& name) {
  return std::string(GLTRACE_TEST_BIN_DIR) + "/" + name;
}
std::string build_lib(const std::string& relative) {
  return std::string(GLTRACE_TEST_LIB_DIR) + "/" + relative;
}
std::string source_path(const std::string& relative) {
  return std::string(GLTRACE_TEST_SOURCE_DIR) + "/" + relative;
}

std::string make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gltrace-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  std::lock_guard<std::mutex> lock(g_temp_mutex);
  if (g_temp_dirs.empty()) atexit(remove_temp_dirs);
  g_temp_dirs.push_back(pattern);
  return pattern;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.good()) throw std::runtime_error("cannot write " + path);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

size_t count_occurrences(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size()))
    ++count;
  return count;
}

}  // namespace gltrace::test
