// The threads behind the replay's main loop: the bounded pool that prepares
// increments ahead of time (lowest index first), the per-target execution
// threads, the per-target scheduler, and the record of an execute() failure.
// The main loop (replayer.cpp) decides when each increment starts; this
// carries it out. Internal to the engine.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "replay/event.h"
#include "replay/executor.h"
#include "replay/increment.h"
#include "replay/options.h"
#include "replay/target_scheduler.h"

namespace gltrace::replay {

// One increment on its way through the engine. What the main loop reads is
// copied out of the Increment when the source returns it, so prepare() and
// execute() may change the Increment without racing the main thread. The
// main loop reuses a slot no other thread holds any more (reuse()).
struct Slot {
  Slot(uint64_t seq_in, Increment&& increment_in) { reuse(seq_in, std::move(increment_in)); }

  void reuse(uint64_t seq_in, Increment&& increment_in) {
    seq = seq_in;
    index = increment_in.index;
    timestamp_ns = static_cast<int64_t>(increment_in.timestamp_ns);
    target = increment_in.target;
    ends_frame = increment_in.ends_frame;
    increment = std::move(increment_in);
    event.reset();
  }

  uint64_t seq = 0;  // the engine's order, across loop passes
  uint64_t index = 0;
  int64_t timestamp_ns = 0;
  uint32_t target = 0;
  bool ends_frame = false;
  Increment increment;
  Event event;
};
using SlotPtr = std::shared_ptr<Slot>;

// Runs an executor call, turning an exception that escapes it into an error
// message, so no failure path can end a thread (and the process).
template <typename Fn>
bool guarded(Fn&& fn, std::string* error) {
  try {
    return fn();
  } catch (const std::exception& e) {
    *error = std::string("exception: ") + e.what();
  } catch (...) {
    *error = "unknown exception";
  }
  return false;
}

class Engine {
 public:
  using Clock = std::chrono::steady_clock;

  // wake_fd (an eventfd) is written when an execute() fails on another thread.
  Engine(Executor& executor, const ReplayOptions& options, int wake_fd);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Main thread, in index order: a new increment for the threads.
  void dispatch(const SlotPtr& slot);

  // Main thread, at the increment's time: starts it, or runs it when
  // executing on the main thread. kOk: it runs (or ran; *started_at, unless
  // null, is when it began; an execute() failure shows in failed()). kFailed: its
  // preparation failed (the slot's event says why). kGaveUp: give_up() said
  // so before anything started; call again.
  Event::Wait start(const SlotPtr& slot, const Event::GiveUp& give_up,
                    Clock::time_point* started_at);

  // Main thread: waits until every started increment has finished executing
  // (or failed). The prompt, loop restarts and error reports come after it.
  void drain();

  // Main thread, after drain(): runs fn on the target's execution thread.
  void run_on_target(uint32_t target, const std::function<void()>& fn);

  // Whether the target's increments are prepared and run by start() on the
  // main thread, never seen by another thread.
  bool runs_inline(uint32_t target) const { return on_main(target) && inline_prepare_; }

  // An execute() failed (on any thread); failure() has the index and message
  // of the earliest one (drain() first to be sure of it).
  bool failed() const { return failed_.load(); }
  void failure(uint64_t* index, std::string* message) const;

  // Main thread: no more increments start; waiters on the given slots are
  // cancelled, and every thread is joined once the started ones have
  // finished. Idempotent.
  void stop(const std::deque<SlotPtr>& pending);

 private:
  struct Lane;
  struct LaterFirst {
    bool operator()(const SlotPtr& a, const SlotPtr& b) const { return a->seq > b->seq; }
  };

  // signal: mark the slot's Event prepared (for a thread that waits on it);
  // a failure is always recorded there.
  bool prepare(Slot& slot, bool signal = true);
  // counted: it was started with ++started_ (drain() waits for it).
  void execute(Slot& slot, bool counted = true);
  void enqueue_prepare(const SlotPtr& slot);
  void worker_main();
  void lane_main(Lane& lane);
  // kTargetThreadInOrder: the main thread hands a started increment to its
  // lane, which runs it (run_released) as soon as it is free.
  Event::Wait release_to_lane(const SlotPtr& slot, const Event::GiveUp& give_up,
                              Clock::time_point* started_at);
  void run_released(Slot& slot);
  void record_failure(uint64_t index, std::string message);
  Lane& lane(uint32_t target);
  // Whether the target's increments run on the main thread.
  bool on_main(uint32_t target) const {
    return mode_ == ExecuteOn::kMainThread ||
           (mode_ == ExecuteOn::kTargetThreadInOrder && target == main_target_);
  }

  Executor& executor_;
  const ExecuteOn mode_;
  const bool inline_prepare_;
  const bool one_per_target_;
  const int wake_fd_;
  TargetScheduler<SlotPtr> scheduler_;

  std::mutex pool_mutex_;
  std::condition_variable pool_cv_;
  std::priority_queue<SlotPtr, std::vector<SlotPtr>, LaterFirst> pool_queue_;
  bool pool_stop_ = false;
  std::vector<std::thread> workers_;

  std::map<uint32_t, std::unique_ptr<Lane>> lanes_;  // main thread only
  // kTargetThreadInOrder: the first target dispatched, run on the main thread.
  std::optional<uint32_t> main_target_;
  // kTargetThreadInOrder: the target of the increment started last.
  std::optional<uint32_t> last_target_;

  std::atomic<bool> failed_{false};
  std::atomic<bool> joining_{false};  // stop() is ending the threads
  mutable std::mutex state_mutex_;
  std::condition_variable state_cv_;
  uint64_t started_ = 0;   // main thread writes, under state_mutex_
  uint64_t finished_ = 0;  // finished executing, failed or not
  uint64_t failed_index_ = 0;
  std::string failed_message_;
  bool stopped_ = false;
};

}  // namespace gltrace::replay
