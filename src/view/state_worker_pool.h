// The viewer's state workers: a few `gltrace replay --state-worker`
// processes, each parked at a known call, so that moving backward costs at
// most the calls from a frame start instead of a replay from the trace's
// start. A GL context cannot be saved or copied (docs/replay.md), so a
// checkpoint is a worker that stays at a frame's first call; using it moves
// it, and another worker is brought there in the background.
//
// A request at call C goes to the worker parked at the largest call <= C
// (it replays only the calls between); a worker goes back to the trace's
// start only when none is at or before C. After a request in frame F, the
// other workers are checkpoints: at F's first call (when C is not that
// call) and at the first calls of the frames before F, one per worker.
// Background jobs bring workers there, in steps, so a new request can take
// a worker over (or stop its job) after the step under way. The worker
// moved to a frame start is the one it costs the fewest calls to bring
// (from at or before it, else from the trace's start), the least recently
// used among equals.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "view/worker_process.h"

namespace gltrace::view {

class TraceModel;

class StateWorkerPool {
 public:
  // The first call of the frame that holds `call` (for a call before every
  // frame: the first frame's); nullopt while no frame is known.
  using FrameStart = std::function<std::optional<uint64_t>(uint64_t call)>;

  // `command`: a worker's argv without the trace; `size` workers at most
  // (1: no checkpoints, every backward move replays from the start).
  StateWorkerPool(const std::vector<std::string>& command, const std::string& trace, size_t size,
                  FrameStart frame_start);
  ~StateWorkerPool();
  StateWorkerPool(const StateWorkerPool&) = delete;
  StateWorkerPool& operator=(const StateWorkerPool&) = delete;

  // As WorkerProcess::request_at, on the worker that gets to `call` cheapest;
  // *go also says which worker ("worker", from 0) and whether it was a
  // checkpoint ("checkpoint": parked at a frame start by the pool). One
  // request at a time; then the checkpoints for the frame starts at and
  // before `call` are planned.
  nlohmann::json request_at(uint64_t call, nlohmann::json request, nlohmann::json* go);

  // Each worker: index, pid (null: not running), position (null: none),
  // checkpoint, and "job": the frame start a background job moves it to.
  nlohmann::json workers();
  // Waits until no background job is queued or running (tests, benchmarks).
  void wait_idle();

 private:
  struct Slot {
    std::unique_ptr<WorkerProcess> worker;
    std::optional<uint64_t> position;  // as last seen by the pool
    pid_t pid = -1;                    // as last seen (a worker's own is behind its lock)
    uint64_t last_used = 0;            // the pool's request count at its last use; 0: never
    bool checkpoint = false;           // parked at a frame start by a job
  };
  struct Job {
    size_t slot;
    uint64_t target;      // a frame's first call
    uint64_t first_call;  // the trace's, where a worker going back starts
  };

  // Under mutex_: whether a job (queued or running) holds the slot, and the
  // call the slot is at or is about to reach.
  bool held(size_t slot) const;
  std::optional<uint64_t> reachable(size_t slot) const;
  // Under mutex_ (held by `lock`): the slot to serve `call`, taken from the
  // background job when that is where it is cheapest.
  size_t claim(uint64_t call, std::unique_lock<std::mutex>& lock);
  // Under mutex_: jobs that bring workers (not `served`) to these frame
  // starts, first ones first, where none is or goes.
  void plan_checkpoints(size_t served, const std::vector<uint64_t>& frame_starts,
                        uint64_t first_call);
  void run_jobs();

  std::vector<Slot> slots_;
  FrameStart frame_start_;
  std::mutex foreground_;  // one request at a time
  std::mutex mutex_;       // slots_' bookkeeping and the jobs
  std::condition_variable changed_;
  std::optional<Job> running_;
  std::vector<Job> queued_;              // run in order, one at a time
  std::optional<uint64_t> stepping_to_;  // the running job's goto under way
  bool cancel_ = false, quit_ = false;
  uint64_t requests_ = 0;
  uint64_t step_calls_;  // calls per job step, adapted to take ~50 ms
  std::thread jobs_thread_;
};

// A pool's FrameStart from the model's frame table: the first call of the
// last frame that starts at or before `call` (the first frame's for a call
// before it); nullopt while no frame is indexed.
std::optional<uint64_t> frame_start_of(const TraceModel& model, uint64_t call);

}  // namespace gltrace::view
