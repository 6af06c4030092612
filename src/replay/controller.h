// The replay's control surface, shaped like RenderDoc's ReplayController:
// run to a point of the trace (a call, a frame, a time, n increments), park
// there, run a task on a target's execution thread while parked, report the
// position, go back to the start. The manual console (console.cpp) and the
// viewer's state worker (glreplay/state_worker*) both drive the replay
// through it; Replayer::replay() is the console on top of one.
//
//   ReplayOptions options;
//   options.wait = false;
//   options.execute_on = ExecuteOn::kTargetThreadInOrder;
//   ReplayController controller(source, executor, options);
//   RunResult result = controller.run_to(120);  // calls up to 120 have run
//   if (result.stop == RunStop::kParked)
//     controller.run_on_target(controller.position().last_target, [&] { ... }, &error);
//
// One thread drives a controller: the one that calls run(), which also runs
// the increments of the main target (ExecuteOn). Position and tasks are for
// the parked replay only: asked while run() is running (from an increment's
// execute(), or another thread) they are refused.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "replay/executor.h"
#include "replay/increment.h"
#include "replay/options.h"
#include "replay/stats.h"

namespace gltrace::replay {

struct ControlCore;

enum class ReplayResult {
  kFinished,     // every increment (every pass) ran
  kQuit,         // `q`, the end of console input, or stop()
  kInterrupted,  // Ctrl-C at the prompt, or twice while replaying
  kBadOptions,
  kSourceError,   // the trace is damaged: what came before it ran
  kPrepareError,  // index: the increment whose prepare() failed (it did not run)
  kExecuteError,  // index: the increment whose execute() failed
  kRestartError,  // Executor::restart() failed between loop passes
};
const char* to_string(ReplayResult result);

struct ReplayStatus {
  ReplayResult result = ReplayResult::kFinished;
  std::string message;  // for the user; names the increment
  // The failed increment, or the last good one before a source error.
  std::optional<uint64_t> index;
  bool ok() const { return result == ReplayResult::kFinished || result == ReplayResult::kQuit; }
};

// Where run() stops: before the first increment that meets the goal.
struct RunGoal {
  enum class Kind {
    kEnd,     // the trace's end (its last pass)
    kPause,   // before the next increment
    kSteps,   // after n increments
    kFrames,  // after n frame ends
    kFrame,   // the start of frame n (of this pass)
    kCall,    // before the first increment whose index is n or more
    kTime,    // before the first increment at or after `time`
  };
  Kind kind = Kind::kEnd;
  uint64_t n = 0;
  TimeSpec time;
  // Sleeps to the recorded times, when ReplayOptions::wait says so.
  bool timed = true;
};

// Where the replay stands (parked).
struct Position {
  std::optional<uint64_t> last;  // the last increment run in this pass
  uint32_t last_target = 0;
  int64_t last_ns = 0;
  std::optional<uint64_t> next;  // the increment due next; none at the end
  uint32_t next_target = 0;
  int64_t next_ns = 0;
  uint64_t frame = 0;             // frames ended in this pass: the frame of the next increment
  uint64_t frame_increments = 0;  // increments run in that frame
  uint64_t pass = 1;
  int64_t pass_start_ns = 0;  // the pass's first timestamp: time 0
  int64_t clock_ns = 0;       // the trace time the replay stands at
  bool clock_moved = false;   // past the last increment (a time goal or Ctrl-C)
};

enum class RunStop {
  kParked,       // the goal was reached: parked before position().next
  kInterrupted,  // Ctrl-C or interrupt() once: parked, as kParked
  kEnd,          // the trace's end (status: finished, or the source's error): parked after the
                 // last increment; a later run() reads on if the source has grown
  kOver,         // the replay is over (status says why): quit, an execute or prepare
                 // failure, Ctrl-C twice, bad options; only restart() may follow
};

struct RunResult {
  RunStop stop = RunStop::kParked;
  ReplayStatus status;  // kEnd, kOver
  bool parked() const { return stop != RunStop::kOver; }
};

class ReplayController {
 public:
  ReplayController(IncrementSource& source, Executor& executor, const ReplayOptions& options);
  ~ReplayController();
  ReplayController(const ReplayController&) = delete;
  ReplayController& operator=(const ReplayController&) = delete;

  // Runs increments until the goal stops it, the trace ends, or it is
  // interrupted; then parks, every started increment finished.
  RunResult run(const RunGoal& goal);
  // Every increment up to and including index `call` has run, the next is
  // after it (RenderDoc's SetFrameEvent): forward replays only what lies in
  // between, backward restarts from the start first. kEnd when the trace
  // ends before it; position().last is then the last call there is.
  RunResult run_to(uint64_t call, bool* restarted = nullptr);
  // Back to before the first increment: the target threads end
  // (Executor::thread_exiting), Executor::restart(), the source rewinds.
  bool restart(std::string* error);

  Position position() const;
  bool running() const { return running_.load(); }
  // Runs task on the target's execution thread and waits for it: parked
  // only (false with *error while running or once the replay is over).
  bool run_on_target(uint32_t target, const std::function<void()>& task, std::string* error);

  Executor& executor();
  const ReplayOptions& options() const;
  const ReplayStats& stats() const;

  // From any thread: as a Ctrl-C (run() parks with kInterrupted; twice
  // before it parks is kOver, interrupted).
  void interrupt();
  // From any thread: run() is over (kQuit) as soon as the increment
  // running now has finished.
  void stop();

  // For a console's wait for input: the SIGINT pipe (-1 without
  // handle_sigint) and the wake-up eventfd (interrupt(), stop(), a failure
  // on another thread); the presses not yet taken by run().
  int interrupt_fd() const;
  int wake_fd() const;
  void clear_wake();
  uint64_t presses_pending() const;
  bool stop_requested() const;

 private:
  friend class Replayer;
  class Session;
  // Replayer's: a controller over a Core the Replayer keeps (interrupt() may
  // come before replay()).
  explicit ReplayController(ControlCore& core);
  // Ends the threads and fills in stats(); idempotent.
  void close();

  std::unique_ptr<ControlCore> owned_;
  ControlCore* core_;
  std::unique_ptr<Session> session_;
  std::atomic<bool> running_{false};
};

}  // namespace gltrace::replay
