// What a replay keeps across its runs: the source, the executor, the
// options, the stats, and what other threads ask of it (interrupt(),
// stop()). A Replayer holds one before its replay() makes the controller.
// Internal to the engine.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <utility>

#include "replay/executor.h"
#include "replay/increment.h"
#include "replay/options.h"
#include "replay/stats.h"

namespace gltrace::replay {

struct ControlCore {
  ControlCore(IncrementSource& source_in, Executor& executor_in, ReplayOptions options_in)
      : source(source_in),
        executor(executor_in),
        options(std::move(options_in)),
        wake_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~ControlCore() {
    if (wake_fd >= 0) close(wake_fd);
  }
  ControlCore(const ControlCore&) = delete;
  ControlCore& operator=(const ControlCore&) = delete;

  void wake() const {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t ignored = write(wake_fd, &one, sizeof one);
  }
  void clear_wake() const {
    uint64_t value;
    [[maybe_unused]] ssize_t ignored = read(wake_fd, &value, sizeof value);
  }

  IncrementSource& source;
  Executor& executor;
  const ReplayOptions options;
  ReplayStats stats;
  bool used = false;  // Replayer::replay() runs once
  // interrupt() and stop() come from other threads; the eventfd wakes the
  // driving thread wherever it waits.
  std::atomic<uint64_t> interrupts{0};
  uint64_t interrupts_consumed = 0;  // driving thread
  std::atomic<bool> stop_requested{false};
  const int wake_fd;
};

}  // namespace gltrace::replay
