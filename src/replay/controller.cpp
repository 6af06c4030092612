#include "replay/controller.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "replay/control_core.h"
#include "replay/engine.h"
#include "replay/sigint.h"

namespace gltrace::replay {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxThreads = 256;

std::string call_text(uint64_t index) { return "call " + std::to_string(index); }

}  // namespace

const char* to_string(ReplayResult result) {
  switch (result) {
    case ReplayResult::kFinished:
      return "finished";
    case ReplayResult::kQuit:
      return "quit";
    case ReplayResult::kInterrupted:
      return "interrupted";
    case ReplayResult::kBadOptions:
      return "bad options";
    case ReplayResult::kSourceError:
      return "source error";
    case ReplayResult::kPrepareError:
      return "prepare error";
    case ReplayResult::kExecuteError:
      return "execute error";
    case ReplayResult::kRestartError:
      return "restart error";
  }
  return "?";
}

// The main loop and the position in the trace; ReplayController's state.
class ReplayController::Session {
 public:
  explicit Session(ControlCore& core) : core_(core), options_(core.options) {}
  ~Session() { close(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  RunResult run(const RunGoal& goal);
  bool restart(std::string* error);
  Position position() const;
  bool run_on_target(uint32_t target, const std::function<void()>& task, std::string* error);
  void close();

  int interrupt_fd() const { return watch_ ? watch_->fd() : -1; }
  uint64_t presses_pending() const {
    return (watch_ ? watch_->pending() : 0) + (core_.interrupts.load() - core_.interrupts_consumed);
  }

 private:
  // Checks the options and starts the engine, once. False: *bad says why.
  bool begin(RunResult* bad);
  RunResult loop();
  void fill();
  // Done with pending_.front(): its slot goes to spare_ when it can.
  // The per-increment steps are inlined into loop(): as calls they cost a
  // replay 0.5% of its instructions per call (callgrind, uniform mix).
  [[gnu::always_inline]] void retire_front();
  // A run to the end never stops before an increment: no call for it.
  bool stops_before(const Slot& slot) {
    return goal_.kind != RunGoal::Kind::kEnd && goal_stops(slot);
  }
  bool goal_stops(const Slot& slot);
  bool sleep_until(Clock::time_point when);
  [[gnu::always_inline]] void account(const Slot& slot, Clock::time_point started);
  // account()'s part for an increment that ends a frame.
  void account_frame(const Slot& slot, Clock::time_point started);
  // The position reached, once everything started has finished.
  RunResult park(RunStop stop, ReplayStatus status = {});
  RunResult execute_failure();
  RunResult over(ReplayResult result, std::string message,
                 std::optional<uint64_t> index = std::nullopt) {
    over_ = true;
    return {RunStop::kOver, {result, std::move(message), index}};
  }
  // Back to before the pass's first increment.
  void reset_pass();

  void consume_press();
  bool timed() const { return options_.wait && goal_.timed; }
  Clock::time_point deadline(int64_t timestamp_ns) const {
    return base_wall_ + std::chrono::nanoseconds(timestamp_ns - base_ts_);
  }
  int64_t resolve(const TimeSpec& time) const {
    return time.from_start ? pass_t0_ + time.ns : time.ns;
  }
  void rebase() {
    base_wall_ = Clock::now();
    base_ts_ = clock_;
  }
  void clock_from_wall();
  std::string where() const;

  ControlCore& core_;
  const ReplayOptions& options_;
  std::optional<SigintWatch> watch_;
  std::unique_ptr<Engine> engine_;
  bool begun_ = false;
  bool over_ = false;
  bool at_end_ = false;  // the last run stopped at the end
  RunGoal goal_;

  // Read ahead of the increment due next, which is the front.
  std::deque<SlotPtr> pending_;
  // Slots to use again: a slot (with its Event) made per increment cost more
  // than many a GL call.
  static constexpr size_t kSpareSlots = 64;
  std::vector<SlotPtr> spare_;
  // What a wait checks, made once rather than per increment.
  const Event::GiveUp give_up_ = [this] {
    return presses_pending() > 0 || core_.stop_requested.load() || engine_->failed();
  };
  uint64_t next_seq_ = 0;
  size_t lookahead_ = 1;
  bool source_done_ = false;
  std::optional<std::string> source_error_;

  // Position.
  uint64_t pass_ = 1;
  bool pass_started_ = false;
  uint64_t pass_increments_ = 0;
  int64_t pass_t0_ = 0;
  uint64_t frame_ = 0;
  uint64_t frame_increments_ = 0;
  std::optional<uint64_t> last_index_;
  uint32_t last_target_ = 0;
  int64_t last_ts_ = 0;
  int64_t clock_ = 0;
  bool clock_moved_ = false;

  // Deadlines are absolute: base_wall_ is when trace time base_ts_ was due.
  Clock::time_point base_wall_;
  int64_t base_ts_ = 0;

  // The time spent in run(), not parked.
  Clock::duration active_total_{};
  double lateness_sum_ns_ = 0;
  int64_t recorded_span_ns_ = 0;  // of pass 1, so far
};

bool ReplayController::Session::begin(RunResult* bad) {
  if (begun_) return true;
  begun_ = true;
  if (options_.threads < 0 || options_.threads > kMaxThreads) {
    *bad = over(ReplayResult::kBadOptions, "threads must be 0 to " + std::to_string(kMaxThreads) +
                                               ", not " + std::to_string(options_.threads));
    return false;
  }
  if (options_.execute_on == ExecuteOn::kWorker && options_.threads < 1) {
    *bad = over(ReplayResult::kBadOptions,
                "executing on the workers needs at least one worker thread");
    return false;
  }
  if (core_.wake_fd < 0) {
    *bad = over(ReplayResult::kBadOptions, "eventfd failed");
    return false;
  }
  lookahead_ =
      options_.lookahead > 0 ? options_.lookahead : 4 * static_cast<size_t>(options_.threads) + 4;
  if (options_.handle_sigint) watch_.emplace();
  engine_ = std::make_unique<Engine>(core_.executor, options_, core_.wake_fd);
  return true;
}

RunResult ReplayController::Session::run(const RunGoal& goal) {
  RunResult bad;
  if (!begin(&bad)) return bad;
  if (over_)
    return {RunStop::kOver,
            {ReplayResult::kQuit, "the replay is over; restart first", std::nullopt}};
  goal_ = goal;
  // A source that ended may have grown since (a trace still being written).
  if (at_end_ && !source_error_) source_done_ = false;
  at_end_ = false;
  Clock::time_point since = Clock::now();
  rebase();
  RunResult result = loop();
  active_total_ += Clock::now() - since;
  return result;
}

RunResult ReplayController::Session::loop() {
  for (;;) {
    if (core_.stop_requested) return over(ReplayResult::kQuit, "stopped " + where());
    if (engine_->failed()) return execute_failure();
    fill();
    if (!pending_.empty() && !pass_started_) {
      pass_started_ = true;
      pass_t0_ = pending_.front()->timestamp_ns;
      clock_ = pass_t0_;
      rebase();
    }

    uint64_t presses = presses_pending();
    if (presses >= 2)
      return over(ReplayResult::kInterrupted, "interrupted (Ctrl-C twice) " + where());
    if (presses == 1) {
      consume_press();
      clock_from_wall();
      return park(RunStop::kInterrupted);
    }

    if (pending_.empty()) {
      engine_->drain();
      if (engine_->failed()) continue;  // reported at the top
      if (source_error_) {
        std::string message = last_index_ ? "trace error after " + call_text(*last_index_)
                                          : std::string("trace error before the first increment");
        return park(RunStop::kEnd,
                    {ReplayResult::kSourceError, message + ": " + *source_error_, last_index_});
      }
      if (pass_increments_ == 0 || !pass_started_)
        return park(RunStop::kEnd,
                    {ReplayResult::kFinished, "the trace has no increments", std::nullopt});
      if (options_.loops != 0 && pass_ >= options_.loops)
        return park(RunStop::kEnd,
                    {ReplayResult::kFinished,
                     "replayed " + std::to_string(core_.stats.increments) + " increments, " +
                         std::to_string(core_.stats.frames) + " frames",
                     std::nullopt});
      ++core_.stats.passes;
      std::string error;
      if (!guarded([&] { return core_.executor.restart(&error); }, &error))
        return over(ReplayResult::kRestartError,
                    "cannot start pass " + std::to_string(pass_ + 1) + ": " + error);
      if (!guarded([&] { return core_.source.rewind(&error); }, &error))
        return over(ReplayResult::kSourceError, "cannot loop: " + error);
      ++pass_;
      reset_pass();
      continue;
    }

    const SlotPtr& slot = pending_.front();
    if (stops_before(*slot)) return park(RunStop::kParked);
    if (timed() && !sleep_until(deadline(slot->timestamp_ns))) continue;
    // Only a timed frame's lateness needs the start time (a clock read per
    // call is a measurable share of a replay's own cost).
    Clock::time_point started;
    Event::Wait wait =
        engine_->start(slot, give_up_, timed() && slot->ends_frame ? &started : nullptr);
    if (wait == Event::Wait::kFailed) {
      engine_->drain();  // an earlier increment's failure comes first
      if (engine_->failed()) return execute_failure();
      return over(ReplayResult::kPrepareError,
                  call_text(slot->index) + ": prepare failed: " + slot->event.message(),
                  slot->index);
    }
    if (wait != Event::Wait::kOk || engine_->failed()) continue;
    account(*slot, started);
    retire_front();
  }
}

RunResult ReplayController::Session::park(RunStop stop, ReplayStatus status) {
  engine_->drain();  // everything before the position has finished
  if (engine_->failed()) return execute_failure();
  at_end_ = stop == RunStop::kEnd;
  // The pass counts once, however often a run comes back to its end.
  if (stop == RunStop::kEnd && status.result == ReplayResult::kFinished && pass_started_ &&
      pass_increments_ > 0 && core_.stats.passes < pass_)
    core_.stats.passes = pass_;
  return {stop, std::move(status)};
}

void ReplayController::Session::reset_pass() {
  pass_started_ = false;
  pass_increments_ = 0;
  frame_ = 0;
  frame_increments_ = 0;
  last_index_.reset();
  source_done_ = false;
}

inline void ReplayController::Session::retire_front() {
  SlotPtr slot = std::move(pending_.front());
  pending_.pop_front();
  // Only a slot no other thread ever saw: another may still run it
  // (ExecuteOn::kTargetThread), and that case pays a thread handshake anyway.
  if (!engine_->runs_inline(slot->target) || spare_.size() >= kSpareSlots) return;
  slot->increment.payload.reset();
  spare_.push_back(std::move(slot));
}

void ReplayController::Session::fill() {
  // A deque's size() is a dozen instructions: asked once.
  for (size_t pending = pending_.size(); !source_done_ && pending < lookahead_; ++pending) {
    Increment increment;
    std::string error;
    SourceResult result = SourceResult::kError;
    guarded(
        [&] {
          result = core_.source.next(&increment, &error);
          return true;
        },
        &error);
    if (result == SourceResult::kIncrement) {
      SlotPtr slot;
      if (spare_.empty()) {
        slot = std::make_shared<Slot>(next_seq_++, std::move(increment));
      } else {
        slot = std::move(spare_.back());
        spare_.pop_back();
        slot->reuse(next_seq_++, std::move(increment));
      }
      pending_.push_back(std::move(slot));  // not a copy: two atomic counts a call
      engine_->dispatch(pending_.back());
      continue;
    }
    source_done_ = true;
    if (result == SourceResult::kError)
      source_error_ = error.empty() ? "the source failed without a message" : error;
  }
}

bool ReplayController::Session::goal_stops(const Slot& slot) {
  using Kind = RunGoal::Kind;
  switch (goal_.kind) {
    case Kind::kEnd:
      return false;
    case Kind::kPause:
      return true;
    case Kind::kSteps:
    case Kind::kFrames:
      return goal_.n == 0;
    case Kind::kFrame:
      return frame_ >= goal_.n;
    case Kind::kCall:
      return slot.index >= goal_.n;
    case Kind::kTime: {
      int64_t at = resolve(goal_.time);
      if (slot.timestamp_ns < at) return false;
      // Time passes up to the stop time even with nothing to run in it
      // (`c 100` takes 100 ms).
      if (timed() && at > clock_ && !sleep_until(deadline(at))) return false;
      if (at > clock_) {
        clock_ = at;
        clock_moved_ = true;
      }
      return true;
    }
  }
  return false;
}

bool ReplayController::Session::sleep_until(Clock::time_point when) {
  for (;;) {
    if (presses_pending() > 0 || core_.stop_requested || engine_->failed()) return false;
    Clock::time_point now = Clock::now();
    if (now >= when) return true;
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(when - now).count();
    timespec timeout = {static_cast<time_t>(left / 1000000000),
                        static_cast<long>(left % 1000000000)};
    pollfd fds[2] = {{interrupt_fd(), POLLIN, 0}, {core_.wake_fd, POLLIN, 0}};
    if (ppoll(fds, 2, &timeout, nullptr) > 0 && (fds[1].revents & POLLIN) != 0) core_.clear_wake();
  }
}

inline void ReplayController::Session::account(const Slot& slot, Clock::time_point started) {
  ReplayStats& stats = core_.stats;
  ++stats.increments;
  ++pass_increments_;
  ++frame_increments_;
  last_index_ = slot.index;
  last_target_ = slot.target;
  last_ts_ = slot.timestamp_ns;
  if (pass_ == 1) recorded_span_ns_ = std::max(recorded_span_ns_, slot.timestamp_ns - pass_t0_);
  clock_ = std::max(clock_, slot.timestamp_ns);
  clock_moved_ = false;
  if (goal_.kind == RunGoal::Kind::kSteps && goal_.n > 0) --goal_.n;
  if (slot.ends_frame) account_frame(slot, started);
}

void ReplayController::Session::account_frame(const Slot& slot, Clock::time_point started) {
  ReplayStats& stats = core_.stats;
  if (goal_.kind == RunGoal::Kind::kFrames && goal_.n > 0) --goal_.n;
  FrameTiming timing;
  timing.pass = pass_;
  timing.frame = frame_;
  timing.index = slot.index;
  timing.timed = timed();
  ++stats.frames;
  if (timing.timed) {
    timing.lateness_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(started - deadline(slot.timestamp_ns))
            .count();
    if (stats.timed_frames == 0 || timing.lateness_ns > stats.max_lateness_ns) {
      stats.max_lateness_ns = timing.lateness_ns;
      stats.max_lateness_frame = frame_;
    }
    ++stats.timed_frames;
    lateness_sum_ns_ += static_cast<double>(timing.lateness_ns);
  }
  ++frame_;
  frame_increments_ = 0;
  if (options_.on_frame) options_.on_frame(timing);
}

void ReplayController::Session::consume_press() {
  if (watch_ && watch_->pending() > 0) {
    watch_->consume();
    // The counts are the truth, the pipe only wakes: drain it, and every
    // wait checks the counts before blocking.
    watch_->drain();
  } else if (core_.interrupts.load() > core_.interrupts_consumed) {
    ++core_.interrupts_consumed;
  }
}

void ReplayController::Session::clock_from_wall() {
  if (!timed() || pending_.empty() || !pass_started_) return;
  int64_t now_ts =
      base_ts_ +
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - base_wall_).count();
  int64_t at = std::clamp(now_ts, clock_, std::max(clock_, pending_.front()->timestamp_ns));
  if (at > clock_) {
    clock_ = at;
    clock_moved_ = true;
  }
}

std::string ReplayController::Session::where() const {
  if (!pending_.empty()) return "before " + call_text(pending_.front()->index);
  if (last_index_) return "after " + call_text(*last_index_);
  return "at the start";
}

RunResult ReplayController::Session::execute_failure() {
  engine_->drain();  // increments started before the failure report theirs too
  uint64_t index = 0;
  std::string message;
  engine_->failure(&index, &message);
  return over(ReplayResult::kExecuteError, call_text(index) + ": execute failed: " + message,
              index);
}

Position ReplayController::Session::position() const {
  Position at;
  at.last = last_index_;
  at.last_target = last_target_;
  at.last_ns = last_ts_;
  if (!pending_.empty()) {
    const Slot& next = *pending_.front();
    at.next = next.index;
    at.next_target = next.target;
    at.next_ns = next.timestamp_ns;
  }
  at.frame = frame_;
  at.frame_increments = frame_increments_;
  at.pass = pass_;
  at.pass_start_ns = pass_t0_;
  at.clock_ns = clock_;
  at.clock_moved = clock_moved_;
  return at;
}

bool ReplayController::Session::run_on_target(uint32_t target, const std::function<void()>& task,
                                              std::string* error) {
  if (!engine_ || over_) {
    *error = engine_ ? "the replay is over" : "nothing has run yet";
    return false;
  }
  engine_->run_on_target(target, task);
  return true;
}

bool ReplayController::Session::restart(std::string* error) {
  RunResult bad;
  if (!begin(&bad)) {
    *error = bad.status.message;
    return false;
  }
  // The target threads end (each releases what it holds), and start again
  // at the targets' next increments.
  engine_->stop(pending_);
  pending_.clear();
  engine_ = std::make_unique<Engine>(core_.executor, options_, core_.wake_fd);
  over_ = false;
  source_error_.reset();
  pass_ = 1;
  reset_pass();
  clock_ = 0;
  clock_moved_ = false;
  if (!guarded([&] { return core_.executor.restart(error); }, error)) return false;
  if (!guarded([&] { return core_.source.rewind(error); }, error)) {
    over_ = true;  // nothing to read: only another restart may follow
    return false;
  }
  return true;
}

void ReplayController::Session::close() {
  if (!engine_) return;
  engine_->stop(pending_);
  pending_.clear();
  engine_.reset();
  watch_.reset();  // the caller's SIGINT handler is back
  ReplayStats& stats = core_.stats;
  stats.seconds = std::chrono::duration<double>(active_total_).count();
  stats.recorded_seconds = static_cast<double>(recorded_span_ns_) / 1e9;
  if (stats.timed_frames > 0)
    stats.mean_lateness_ns = lateness_sum_ns_ / static_cast<double>(stats.timed_frames);
}

// --- ReplayController ----------------------------------------------------------------

ReplayController::ReplayController(IncrementSource& source, Executor& executor,
                                   const ReplayOptions& options)
    : owned_(std::make_unique<ControlCore>(source, executor, options)),
      core_(owned_.get()),
      session_(std::make_unique<Session>(*core_)) {}

ReplayController::ReplayController(ControlCore& core)
    : core_(&core), session_(std::make_unique<Session>(core)) {}

ReplayController::~ReplayController() { close(); }

void ReplayController::close() { session_->close(); }

namespace {

// running_ for the length of a run.
class Running {
 public:
  explicit Running(std::atomic<bool>& flag) : flag_(flag) { flag_ = true; }
  ~Running() { flag_ = false; }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;

 private:
  std::atomic<bool>& flag_;
};

}  // namespace

RunResult ReplayController::run(const RunGoal& goal) {
  if (running_)
    return {RunStop::kOver, {ReplayResult::kBadOptions, "run() is already running", std::nullopt}};
  Running running(running_);
  return session_->run(goal);
}

RunResult ReplayController::run_to(uint64_t call, bool* restarted) {
  if (restarted != nullptr) *restarted = false;
  if (running_)
    return {RunStop::kOver, {ReplayResult::kBadOptions, "run() is already running", std::nullopt}};
  Position at = session_->position();
  if (at.last && call < *at.last) {
    std::string error;
    if (!restart(&error))
      return {RunStop::kOver,
              {ReplayResult::kRestartError, "cannot restart: " + error, std::nullopt}};
    if (restarted != nullptr) *restarted = true;
  }
  RunGoal goal;
  goal.kind =
      call == std::numeric_limits<uint64_t>::max() ? RunGoal::Kind::kEnd : RunGoal::Kind::kCall;
  goal.n = call + 1;
  goal.timed = false;
  return run(goal);
}

bool ReplayController::restart(std::string* error) {
  if (running_) {
    *error = "the replay is running";
    return false;
  }
  Running running(running_);
  return session_->restart(error);
}

Position ReplayController::position() const { return session_->position(); }

bool ReplayController::run_on_target(uint32_t target, const std::function<void()>& task,
                                     std::string* error) {
  // A task while increments run would race them on their own thread.
  if (running_) {
    *error = "the replay is running: a task runs only while it is parked";
    return false;
  }
  Running running(running_);
  return session_->run_on_target(target, task, error);
}

Executor& ReplayController::executor() { return core_->executor; }
const ReplayOptions& ReplayController::options() const { return core_->options; }
const ReplayStats& ReplayController::stats() const { return core_->stats; }

void ReplayController::interrupt() {
  core_->interrupts.fetch_add(1);
  core_->wake();
}

void ReplayController::stop() {
  core_->stop_requested = true;
  core_->wake();
}

int ReplayController::interrupt_fd() const { return session_->interrupt_fd(); }
int ReplayController::wake_fd() const { return core_->wake_fd; }
void ReplayController::clear_wake() { core_->clear_wake(); }
uint64_t ReplayController::presses_pending() const { return session_->presses_pending(); }
bool ReplayController::stop_requested() const { return core_->stop_requested.load(); }

}  // namespace gltrace::replay
