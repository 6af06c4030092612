#include "common/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

namespace gltrace {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const std::string& log,
                      double timeout) {
  ChildResult child;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    child.error = "cannot run " + argv[0] + ": " + strerror(rc);
    return child;
  }
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
  auto pause = std::chrono::milliseconds(5);
  for (;;) {
    pid_t done = waitpid(pid, &child.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      child.error = std::string("waitpid: ") + strerror(errno);
      break;
    }
    if (Clock::now() >= deadline) {
      child.timed_out = true;
      kill(-pid, SIGKILL);
      while (waitpid(pid, &child.status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  kill(-pid, SIGKILL);  // what the replay left running in its group
  return child;
}

std::string log_tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) {
    all.push_back(line.substr(0, 300));
    if (all.size() > lines) all.erase(all.begin());
  }
  std::string out;
  for (const std::string& l : all) out += (out.empty() ? "" : " | ") + l;
  return out;
}

}  // namespace gltrace
