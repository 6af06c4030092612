#include "replay/sigint.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace gltrace::replay {
namespace {

// Process-wide because a handler has no context. The pipe is made once and
// never closed: a handler running late on another thread must never write
// into an fd number that has since been reused.
int g_pipe[2] = {-1, -1};
std::atomic<bool> g_installed{false};
std::atomic<uint64_t> g_presses{0};
std::atomic<uint64_t> g_consumed{0};
struct sigaction g_previous;

static_assert(std::atomic<uint64_t>::is_always_lock_free, "used from a signal handler");

constexpr uint64_t kPressesToKill = 3;

void on_sigint(int) {
  int saved_errno = errno;
  uint64_t presses = g_presses.fetch_add(1) + 1;
  if (presses - g_consumed.load() >= kPressesToKill) {
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
  }
  char byte = 1;
  [[maybe_unused]] ssize_t ignored = write(g_pipe[1], &byte, 1);
  errno = saved_errno;
}

}  // namespace

SigintWatch::SigintWatch() {
  bool expected = false;
  if (!g_installed.compare_exchange_strong(expected, true)) return;
  if (g_pipe[0] < 0 && pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_installed = false;
    return;
  }
  g_consumed = g_presses.load();
  drain();
  struct sigaction action = {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: the other threads of the process (the caller's) keep their
  // system calls; the replay's own waits poll the pipe.
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGINT, &action, &g_previous) != 0) {
    g_installed = false;
    return;
  }
  active_ = true;
}

SigintWatch::~SigintWatch() {
  if (!active_) return;
  sigaction(SIGINT, &g_previous, nullptr);
  drain();
  g_installed = false;
}

int SigintWatch::fd() const { return active_ ? g_pipe[0] : -1; }

uint64_t SigintWatch::pending() const { return active_ ? g_presses.load() - g_consumed.load() : 0; }

void SigintWatch::consume() {
  if (active_ && pending() > 0) g_consumed.fetch_add(1);
}

void SigintWatch::drain() {
  char buffer[64];
  while (read(g_pipe[0], buffer, sizeof buffer) > 0) {
  }
}

}  // namespace gltrace::replay
