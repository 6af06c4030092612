// What runs increments: prepare() ahead of time on worker threads, execute()
// at the increment's time on its target's execution thread (see ExecuteOn in
// replay/options.h), plus the hooks the manual console needs.
#pragma once

#include <cstdint>
#include <string>

#include "replay/increment.h"

namespace gltrace::replay {

// Errors are returned, not thrown; an exception that escapes anyway is caught
// and treated as a failure of that increment. A failure stops the replay with
// the increment's index and the message; it never hangs it.
class Executor {
 public:
  virtual ~Executor() = default;

  // The slow, non-time-critical work (decode, decompress, build blobs). Runs
  // on a worker thread, concurrently with other prepare() calls and with
  // execute() of earlier increments, up to ReplayOptions::lookahead
  // increments ahead, so it must be thread-safe. With threads == 0 it runs on
  // the executing thread just before execute(). A failure stops the replay
  // before this increment executes; the ones before it still do.
  virtual bool prepare(Increment& /*increment*/, std::string* /*error*/) { return true; }

  // The time-critical part, at the increment's time, after its prepare().
  // Increments of one target run in index order on that target's execution
  // thread; on the main thread (the default) all of them run in index order,
  // and with ExecuteOn::kTargetThreadInOrder too, each on its target's thread.
  virtual bool execute(Increment& increment, std::string* error) = 0;

  // Manual-mode hooks. They run on the target's execution thread (the main
  // thread unless ExecuteOn::kTargetThread[InOrder]; the main thread for kWorker),
  // while no increment runs on that target and every earlier one has finished.
  // `info`: a line or two about the target (e.g. the current context).
  virtual std::string describe(uint32_t /*target*/) { return {}; }
  // `snap FILE`: save the target's current framebuffer (PNG for GL).
  virtual bool snapshot(uint32_t /*target*/, const std::string& /*path*/, std::string* error) {
    *error = "this replayer cannot take snapshots";
    return false;
  }

  // Between loop passes, on the main thread, once every increment of the
  // finished pass has executed: get ready to replay from the start again
  // (a GL replayer destroys what the pass created). A failure ends the replay.
  virtual bool restart(std::string* /*error*/) { return true; }

  // On a target's own thread (kTargetThread[InOrder]) just before it ends
  // (with the replay), so what is bound to that thread (a current GL
  // context) can be released there. Threads end side by side: this may run
  // on several at once. Never called for the main thread.
  virtual void thread_exiting(uint32_t /*target*/) {}
};

}  // namespace gltrace::replay
