#include "support/xvfb.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace gltrace::test {

XvfbServer::XvfbServer(int depth) {
  std::string screen = "1280x1024x" + std::to_string(depth);
  for (int n = 90 + getpid() % 50; n < 200; ++n) {
    std::string socket = "/tmp/.X11-unix/X" + std::to_string(n);
    std::string lock = "/tmp/.X" + std::to_string(n) + "-lock";
    struct stat st;
    if (stat(socket.c_str(), &st) == 0 || stat(lock.c_str(), &st) == 0) continue;
    std::string display = ":" + std::to_string(n);
    pid_t pid = fork();
    if (pid == 0) {
      execlp("Xvfb", "Xvfb", display.c_str(), "-screen", "0", screen.c_str(), "-nolisten", "tcp",
             static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 100; ++i) {
      if (stat(socket.c_str(), &st) == 0) {
        pid_ = pid;
        display_ = display;
        return;
      }
      int status;
      if (waitpid(pid, &status, WNOHANG) == pid) break;  // lost the race for n
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

XvfbServer::~XvfbServer() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

}  // namespace gltrace::test
