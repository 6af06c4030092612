#include "replay/engine.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <future>
#include <utility>

namespace gltrace::replay {

// A target's execution thread (ExecuteOn::kTargetThread): its increments in
// index order, and hook calls from the main thread in between.
struct Engine::Lane {
  explicit Lane(uint32_t target_in) : target(target_in) {}

  const uint32_t target;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<SlotPtr> slots;
  std::deque<std::function<void()>> tasks;
  SlotPtr current;  // the slot whose Event it waits on, for waking it
  // Read by the Event's give-up check without the lane's lock.
  std::atomic<bool> has_tasks{false};
  std::atomic<bool> stop{false};
};

Engine::Engine(Executor& executor, const ReplayOptions& options, int wake_fd)
    : executor_(executor),
      mode_(options.execute_on),
      inline_prepare_(options.threads == 0),
      one_per_target_(options.one_per_target || options.execute_on == ExecuteOn::kWorker),
      wake_fd_(wake_fd) {
  for (int i = 0; i < options.threads; ++i) workers_.emplace_back([this] { worker_main(); });
}

Engine::~Engine() { stop({}); }

void Engine::dispatch(const SlotPtr& slot) {
  if (mode_ == ExecuteOn::kTargetThreadInOrder && !main_target_) main_target_ = slot->target;
  // kTargetThreadInOrder hands an increment to its lane only when it starts
  // (release_to_lane): the lane runs what it is given, no Event handshake.
  if (mode_ == ExecuteOn::kTargetThread && !on_main(slot->target)) {
    Lane& target_lane = lane(slot->target);
    {
      std::lock_guard<std::mutex> lock(target_lane.mutex);
      target_lane.slots.push_back(slot);
    }
    target_lane.cv.notify_one();
  }
  if (inline_prepare_) return;  // the executing thread prepares it just before running it
  if (one_per_target_ && !scheduler_.admit(slot->target, slot)) return;
  enqueue_prepare(slot);
}

void Engine::enqueue_prepare(const SlotPtr& slot) {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    pool_queue_.push(slot);
  }
  pool_cv_.notify_one();
}

bool Engine::prepare(Slot& slot, bool signal) {
  std::string error;
  if (guarded([&] { return executor_.prepare(slot.increment, &error); }, &error)) {
    if (signal) slot.event.prepared();
    return true;
  }
  slot.event.fail(error.empty() ? "prepare() failed without a message" : error);
  return false;
}

void Engine::execute(Slot& slot, bool counted) {
  // Once started, an increment runs even after another one failed: the
  // main thread starts no more, and everything before the failure ran.
  std::string error;
  bool ok = guarded([&] { return executor_.execute(slot.increment, &error); }, &error);
  if (!ok) record_failure(slot.index, error.empty() ? "execute() failed without a message" : error);
  if (counted) {
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      ++finished_;
    }
    state_cv_.notify_all();
  }
  if (!ok || !one_per_target_) return;
  // The seed's BufferQueueScheduler step: the target's next increment may be
  // prepared now that this one is done.
  std::optional<SlotPtr> next = scheduler_.finish(slot.target);
  if (next && !inline_prepare_) enqueue_prepare(*next);
}

void Engine::record_failure(uint64_t index, std::string message) {
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    // Targets run side by side: the earliest failure is the one to report.
    if (failed_ && failed_index_ <= index) return;
    failed_index_ = index;
    failed_message_ = std::move(message);
    failed_ = true;
  }
  state_cv_.notify_all();
  uint64_t one = 1;
  [[maybe_unused]] ssize_t ignored = write(wake_fd_, &one, sizeof one);
}

void Engine::failure(uint64_t* index, std::string* message) const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  *index = failed_index_;
  *message = failed_message_;
}

void Engine::worker_main() {
  pthread_setname_np(pthread_self(), "replay-prepare");
  for (;;) {
    SlotPtr slot;
    {
      std::unique_lock<std::mutex> lock(pool_mutex_);
      pool_cv_.wait(lock, [this] { return pool_stop_ || !pool_queue_.empty(); });
      if (pool_stop_) return;
      slot = pool_queue_.top();
      pool_queue_.pop();
    }
    prepare(*slot);
    // kWorker: this worker finishes the job once the main thread signals it.
    // It gives up only when stop() joins (never on a failure elsewhere: the
    // main thread may be signaling it right now and waits until it runs).
    if (mode_ == ExecuteOn::kWorker &&
        slot->event.ready_to_execute([this] { return joining_.load(); }) == Event::Wait::kOk)
      execute(*slot);
  }
}

Engine::Lane& Engine::lane(uint32_t target) {
  auto it = lanes_.find(target);
  if (it != lanes_.end()) return *it->second;
  auto created = std::make_unique<Lane>(target);
  Lane& ref = *created;
  lanes_.emplace(target, std::move(created));
  ref.thread = std::thread([this, &ref] { lane_main(ref); });
  return ref;
}

void Engine::lane_main(Lane& lane) {
  char name[16];
  snprintf(name, sizeof name, "replay-t%u", lane.target);
  pthread_setname_np(pthread_self(), name);
  auto run_tasks = [&lane](std::unique_lock<std::mutex>& lock) {
    while (!lane.tasks.empty()) {
      std::function<void()> task = std::move(lane.tasks.front());
      lane.tasks.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
    lane.has_tasks = false;
  };
  // While waiting for its turn, the lane still runs hook calls (the main
  // thread sits at the prompt with this increment not yet signaled).
  Event::GiveUp yield = [&lane] { return lane.has_tasks.load() || lane.stop.load(); };
  for (;;) {
    SlotPtr slot;
    {
      std::unique_lock<std::mutex> lock(lane.mutex);
      lane.cv.wait(lock, [&] { return lane.stop || !lane.tasks.empty() || !lane.slots.empty(); });
      if (!lane.tasks.empty()) {
        run_tasks(lock);
        continue;
      }
      // A released increment has started: it runs even when stopping.
      if (lane.stop && (mode_ != ExecuteOn::kTargetThreadInOrder || lane.slots.empty())) break;
      slot = lane.slots.front();
      lane.slots.pop_front();
      lane.current = slot;
    }
    if (mode_ == ExecuteOn::kTargetThreadInOrder) {
      run_released(*slot);
      std::lock_guard<std::mutex> lock(lane.mutex);
      lane.current.reset();
      continue;
    }
    if (inline_prepare_) prepare(*slot);
    for (;;) {
      Event::Wait wait = slot->event.ready_to_execute(yield);
      if (wait == Event::Wait::kOk) execute(*slot);
      if (wait != Event::Wait::kGaveUp || lane.stop) break;
      std::unique_lock<std::mutex> lock(lane.mutex);
      run_tasks(lock);
    }
    std::lock_guard<std::mutex> lock(lane.mutex);
    lane.current.reset();
  }
  executor_.thread_exiting(lane.target);
}

void Engine::run_released(Slot& slot) {
  // Released before an earlier increment failed: in recorded order nothing
  // after a failure runs.
  bool skip = failed_.load();
  // Prepared here (inline) or by a worker before the main thread released it.
  if (!skip && inline_prepare_ && !prepare(slot, false)) {
    record_failure(slot.index, "prepare failed: " + slot.event.message());
    skip = true;
  }
  if (skip) {
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      ++finished_;
    }
    state_cv_.notify_all();
    return;
  }
  execute(slot);
}

Event::Wait Engine::release_to_lane(const SlotPtr& slot, const Event::GiveUp& give_up,
                                    Clock::time_point* started_at) {
  if (!inline_prepare_) {
    Event::Wait wait = slot->event.wait_prepared(give_up);
    if (wait != Event::Wait::kOk) return wait;
  }
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    ++started_;
  }
  if (started_at != nullptr) *started_at = Clock::now();
  Lane& target_lane = lane(slot->target);
  {
    std::lock_guard<std::mutex> lock(target_lane.mutex);
    target_lane.slots.push_back(slot);
  }
  target_lane.cv.notify_one();
  return Event::Wait::kOk;
}

Event::Wait Engine::start(const SlotPtr& slot, const Event::GiveUp& give_up,
                          Clock::time_point* started_at) {
  Event::Wait wait;
  if (mode_ == ExecuteOn::kTargetThreadInOrder) {
    // In recorded order: an increment starts once the one before it has
    // finished, since it may depend on what that one did. A lane runs its
    // own increments one after another, so only a change of thread waits:
    // a run of one thread's calls costs no handshake per call.
    if (last_target_ && *last_target_ != slot->target) drain();
    last_target_ = slot->target;
    if (!on_main(slot->target)) return release_to_lane(slot, give_up, started_at);
  }
  if (runs_inline(slot->target)) {
    // Prepared and run right here: no other thread waits on this slot, so
    // neither its Event nor the started/finished counts are needed (a
    // thread handshake would cost more than many a GL call).
    if (!prepare(*slot, false)) return Event::Wait::kFailed;
    if (started_at != nullptr) *started_at = Clock::now();
    execute(*slot, false);
    return Event::Wait::kOk;
  }
  if (on_main(slot->target)) {
    wait = slot->event.wait_prepared(give_up);
    if (wait != Event::Wait::kOk) return wait;
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      ++started_;
    }
    if (started_at != nullptr) *started_at = Clock::now();
    execute(*slot);
    return wait;
  }
  wait = slot->event.complete(give_up);
  if (started_at != nullptr) *started_at = Clock::now();
  if (wait == Event::Wait::kOk) {
    std::lock_guard<std::mutex> lock(state_mutex_);
    ++started_;
  }
  return wait;
}

void Engine::drain() {
  std::unique_lock<std::mutex> lock(state_mutex_);
  state_cv_.wait(lock, [this] { return finished_ >= started_; });
}

void Engine::run_on_target(uint32_t target, const std::function<void()>& fn) {
  auto it = lanes_.find(target);
  if (it == lanes_.end()) {
    fn();  // the main thread is the target's execution thread (or it has none yet)
    return;
  }
  Lane& target_lane = *it->second;
  std::promise<void> done;
  SlotPtr current;
  {
    std::lock_guard<std::mutex> lock(target_lane.mutex);
    target_lane.tasks.emplace_back([&fn, &done] {
      fn();
      done.set_value();
    });
    target_lane.has_tasks = true;
    current = target_lane.current;
  }
  target_lane.cv.notify_one();
  if (current) current->event.poke();
  done.get_future().wait();
}

void Engine::stop(const std::deque<SlotPtr>& pending) {
  if (stopped_) return;
  stopped_ = true;
  // Increments already started still finish (the threads are joined after
  // them); the cancelled ones never start.
  joining_ = true;
  for (const SlotPtr& slot : pending) slot->event.cancel();
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    pool_stop_ = true;
    pool_queue_ = {};
  }
  pool_cv_.notify_all();
  for (auto& [target, lane] : lanes_) {
    SlotPtr current;
    {
      std::lock_guard<std::mutex> lock(lane->mutex);
      lane->stop = true;
      current = lane->current;
    }
    lane->cv.notify_all();
    if (current) current->event.poke();
  }
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  for (auto& [target, lane] : lanes_) lane->thread.join();
  lanes_.clear();
}

}  // namespace gltrace::replay
