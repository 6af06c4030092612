#include "view/state_worker_pool.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "view/trace_model.h"

namespace gltrace::view {
namespace {

// A job's goto covers this many calls at first, then as many as took about
// kStepMs: a request that takes its worker over waits for one step at most.
constexpr uint64_t kFirstStepCalls = 1024;
constexpr uint64_t kMinStepCalls = 64;
constexpr uint64_t kMaxStepCalls = uint64_t{1} << 20;
constexpr double kStepMs = 50;

}  // namespace

// The first call of the last frame that starts at or before `call` (the
// first frame's for a call before it): see the header.
std::optional<uint64_t> frame_start_of(const TraceModel& model, uint64_t call) {
  uint64_t total = 0;
  model.frames(0, 0, &total);
  if (total == 0) return std::nullopt;
  uint64_t low = 0, high = total;  // frames before `low` start at or before the call
  while (low < high) {
    uint64_t middle = low + (high - low) / 2;
    uint64_t known = 0;
    std::vector<FrameInfo> frame = model.frames(middle, 1, &known);
    if (frame.empty() || frame[0].first_seq > call)
      high = middle;
    else
      low = middle + 1;
  }
  uint64_t known = 0;
  std::vector<FrameInfo> frame = model.frames(low == 0 ? 0 : low - 1, 1, &known);
  if (frame.empty()) return std::nullopt;
  return frame[0].first_seq;
}

StateWorkerPool::StateWorkerPool(const std::vector<std::string>& command, const std::string& trace,
                                 size_t size, FrameStart frame_start)
    : frame_start_(std::move(frame_start)), step_calls_(kFirstStepCalls) {
  slots_.resize(std::max<size_t>(size, 1));
  for (Slot& slot : slots_) slot.worker = std::make_unique<WorkerProcess>(command, trace);
  if (slots_.size() > 1) jobs_thread_ = std::thread([this] { run_jobs(); });
}

StateWorkerPool::~StateWorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  if (jobs_thread_.joinable()) jobs_thread_.join();
}

bool StateWorkerPool::held(size_t slot) const {
  if (running_ && running_->slot == slot) return true;
  return std::any_of(queued_.begin(), queued_.end(), [&](const Job& j) { return j.slot == slot; });
}

std::optional<uint64_t> StateWorkerPool::reachable(size_t slot) const {
  if (running_ && running_->slot == slot && stepping_to_) return stepping_to_;
  return slots_[slot].position;
}

size_t StateWorkerPool::claim(uint64_t call, std::unique_lock<std::mutex>& lock) {
  // A worker that died since its last use starts again from nothing.
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (held(i)) continue;
    slots_[i].position = slots_[i].worker->position();
    slots_[i].pid = slots_[i].worker->pid();
  }
  auto running = [&](size_t i) { return running_ && running_->slot == i; };
  std::optional<size_t> best;
  for (size_t i = 0; i < slots_.size(); ++i) {
    std::optional<uint64_t> at = reachable(i);
    if (!at || *at > call) continue;
    // The nearest; between equals, one no job holds.
    if (!best || *at > *reachable(*best) || (*at == *reachable(*best) && held(*best) && !held(i)))
      best = i;
  }
  if (!best) {
    // None at or before the call: the least recently used goes back to the
    // trace's start (one never used first); never the job's running worker.
    for (size_t i = 0; i < slots_.size(); ++i)
      if (!running(i) && (!best || slots_[i].last_used < slots_[*best].last_used)) best = i;
  }
  size_t chosen = *best;
  std::erase_if(queued_, [&](const Job& j) { return j.slot == chosen; });
  if (running(chosen)) {
    // Its job stops after the step under way; the request goes on from there.
    cancel_ = true;
    changed_.wait(lock, [&] { return !running(chosen); });
  }
  return chosen;
}

nlohmann::json StateWorkerPool::request_at(uint64_t call, nlohmann::json request,
                                           nlohmann::json* go) {
  std::lock_guard<std::mutex> one_at_a_time(foreground_);
  size_t chosen = 0;
  std::optional<uint64_t> parked;  // the checkpoint it was at
  {
    std::unique_lock<std::mutex> lock(mutex_);
    chosen = claim(call, lock);
    Slot& slot = slots_[chosen];
    if (slot.checkpoint) parked = slot.position;
    slot.checkpoint = false;
    slot.last_used = ++requests_;
  }
  WorkerProcess& worker = *slots_[chosen].worker;
  nlohmann::json reply;
  try {
    reply = worker.request_at(call, std::move(request), go);
  } catch (...) {
    std::optional<uint64_t> position = worker.position();
    pid_t pid = worker.pid();
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[chosen].position = position;
    slots_[chosen].pid = pid;
    throw;
  }
  std::optional<uint64_t> position = worker.position();
  pid_t pid = worker.pid();
  (*go)["worker"] = chosen;
  (*go)["checkpoint"] = parked.has_value() && go->contains("from") && (*go)["from"] == *parked;
  // Where the next backward moves start: this frame's first call (unless
  // the call is that one) and the frames' before it, one per spare worker
  // (the model's lock, not ours).
  std::vector<uint64_t> frame_starts;
  std::optional<uint64_t> first_call;
  if (slots_.size() > 1 && go->value("ok", false)) {
    first_call = frame_start_(0);
    for (std::optional<uint64_t> start = frame_start_(call);
         start && frame_starts.size() + 1 < slots_.size();) {
      if (*start < call) frame_starts.push_back(*start);
      if (*start == 0 || *start <= *first_call) break;
      start = frame_start_(*start - 1);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  slots_[chosen].position = position;
  slots_[chosen].pid = pid;
  // A request at the frame start itself leaves it there, a checkpoint still.
  slots_[chosen].checkpoint = parked && position == parked;
  if (first_call) plan_checkpoints(chosen, frame_starts, *first_call);
  return reply;
}

void StateWorkerPool::plan_checkpoints(size_t served, const std::vector<uint64_t>& frame_starts,
                                       uint64_t first_call) {
  std::vector<bool> taken(slots_.size(), false);
  taken[served] = true;
  std::vector<Job> jobs;
  bool keep_running = false;
  for (uint64_t target : frame_starts) {
    // A worker there already, or on its way.
    if (running_ && running_->target == target && !cancel_ && !taken[running_->slot]) {
      taken[running_->slot] = keep_running = true;
      continue;
    }
    std::optional<size_t> there;
    for (size_t i = 0; i < slots_.size() && !there; ++i)
      if (!taken[i] && !(running_ && running_->slot == i) && slots_[i].position == target)
        there = i;
    if (there) {
      taken[*there] = true;
      continue;
    }
    // The worker it costs the fewest calls to bring there: from at or before
    // the target, else from the trace's start; the least recently used of
    // equals, so a worker never used yet is started here, in the
    // background, rather than by a later request.
    const uint64_t from_start = target - std::min(target, first_call) + 1;
    std::optional<size_t> best;
    uint64_t best_cost = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (taken[i]) continue;
      std::optional<uint64_t> at = reachable(i);
      uint64_t cost = at && *at <= target ? target - *at : from_start;
      if (!best || cost < best_cost ||
          (cost == best_cost && slots_[i].last_used < slots_[*best].last_used)) {
        best = i;
        best_cost = cost;
      }
    }
    if (!best) break;
    taken[*best] = true;
    jobs.push_back({*best, target, first_call});
    // A new checkpoint is as recent as the request it is for (not the first
    // to go back to the start when a later request needs one).
    slots_[*best].last_used = requests_;
  }
  // A job for another frame's start is stale: it ends after its step (and
  // when its worker has a new job, that goes on from where it got).
  if (running_ && !keep_running) cancel_ = true;
  queued_ = std::move(jobs);
  changed_.notify_all();
}

void StateWorkerPool::run_jobs() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return quit_ || !queued_.empty(); });
    if (quit_) return;
    running_ = queued_.front();
    queued_.erase(queued_.begin());
    cancel_ = false;
    const Job job = *running_;
    Slot& slot = slots_[job.slot];
    slot.checkpoint = false;
    while (!quit_ && !cancel_ && slot.position != job.target) {
      // Forward from where it is, or from the trace's start (the worker
      // goes back there itself when asked for an earlier call).
      uint64_t from =
          slot.position && *slot.position < job.target ? *slot.position : job.first_call;
      uint64_t step = std::min(job.target, from + step_calls_);
      stepping_to_ = step;
      lock.unlock();
      std::string error;
      std::optional<double> ms;  // of a step that went on from where the worker was
      try {
        nlohmann::json reply = slot.worker->go_to(step);
        if (reply.value("ok", false) != true)
          error = reply.value("error", std::string("the worker failed without saying why"));
        else if (reply["from"].is_number())
          ms = reply.value("ms", 0.0);
      } catch (const QueryError& e) {
        error = e.message;
      }
      std::optional<uint64_t> position = slot.worker->position();
      pid_t pid = slot.worker->pid();
      lock.lock();
      stepping_to_.reset();
      slot.position = position;
      slot.pid = pid;
      if (!error.empty()) {
        fprintf(stderr, "gltrace view: no checkpoint at call %llu (worker %zu at call %llu): %s\n",
                static_cast<unsigned long long>(job.target), job.slot,
                static_cast<unsigned long long>(step), error.c_str());
        break;
      }
      // A step from the start also pays for the new context: not a measure.
      if (ms && *ms < kStepMs / 2)
        step_calls_ = std::min(step_calls_ * 2, kMaxStepCalls);
      else if (ms && *ms > kStepMs * 2)
        step_calls_ = std::max(step_calls_ / 2, kMinStepCalls);
    }
    slot.checkpoint = slot.position == job.target;
    running_.reset();
    changed_.notify_all();
  }
}

nlohmann::json StateWorkerPool::workers() {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& slot = slots_[i];
    nlohmann::json job;
    if (running_ && running_->slot == i) job = running_->target;
    for (const Job& queued : queued_)
      if (queued.slot == i) job = queued.target;
    list.push_back({{"index", i},
                    {"pid", slot.pid > 0 ? nlohmann::json(slot.pid) : nlohmann::json()},
                    {"position", slot.position ? nlohmann::json(*slot.position) : nlohmann::json()},
                    {"checkpoint", slot.checkpoint},
                    {"job", job}});
  }
  return list;
}

void StateWorkerPool::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !running_ && queued_.empty(); });
}

}  // namespace gltrace::view
