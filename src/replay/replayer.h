// The seed's Replayer: replays a source's increments at their recorded times
// (absolute deadlines from the first increment, so lateness never
// accumulates), prepared ahead of time by a pool of workers, with the
// gdb-like manual mode on a console and Ctrl-C to enter it. It is the
// console (console.h) over a ReplayController (controller.h), which programs
// drive directly.
//
//   MySource source(...);      // an IncrementSource
//   MyExecutor executor(...);  // an Executor
//   std::string error;
//   ReplayOptions options = parse_replay_options(argc, argv, &error);
//   Replayer replayer(source, executor, options);
//   ReplayStatus status = replayer.replay();
//   if (!status.ok()) fprintf(stderr, "%s\n", status.message.c_str());
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "replay/controller.h"
#include "replay/executor.h"
#include "replay/increment.h"
#include "replay/options.h"
#include "replay/stats.h"

namespace gltrace::replay {

class Replayer {
 public:
  // The seed's parameters: start at the prompt, worker threads, honour the
  // timestamps, switch to manual at this trace timestamp (ns; 0: never),
  // plus loop forever.
  Replayer(IncrementSource& source, Executor& executor, bool replay_manually, int num_threads,
           bool wait, uint64_t stop_here_ns = 0, bool loop = false);
  Replayer(IncrementSource& source, Executor& executor, const ReplayOptions& options);
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  // Replays until the end, an error, or the user quits. Call it once, on the
  // thread where increments execute (ExecuteOn::kMainThread).
  ReplayStatus replay();

  // After replay().
  const ReplayStats& stats() const;

  // From any thread, before or during replay(): as a Ctrl-C (manual mode;
  // twice before the prompt shows ends the replay with kInterrupted).
  void interrupt();
  // From any thread: replay() returns kQuit as soon as the increment
  // running now has finished.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gltrace::replay
