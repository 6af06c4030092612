#include "replay/replayer.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <deque>
#include <optional>
#include <utility>

#include "replay/console.h"
#include "replay/engine.h"
#include "replay/sigint.h"

namespace gltrace::replay {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxThreads = 256;

std::string offset_text(int64_t ns) {
  char text[64];
  std::snprintf(text, sizeof text, "%+.6f s", static_cast<double>(ns) / 1e9);
  return text;
}

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

namespace {

// What a Replayer holds across its replay() (interrupt() and stop() may come
// before it starts); Replayer::Impl is this.
struct Core {
  Core(IncrementSource& source_in, Executor& executor_in, ReplayOptions options_in)
      : source(source_in),
        executor(executor_in),
        options(std::move(options_in)),
        wake_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~Core() {
    if (wake_fd >= 0) close(wake_fd);
  }
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

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
  bool used = false;
  // interrupt() and stop() come from other threads; the eventfd wakes the
  // main thread wherever it waits.
  std::atomic<uint64_t> interrupts{0};
  uint64_t interrupts_consumed = 0;  // main thread
  std::atomic<bool> stop_requested{false};
  const int wake_fd;
};

// One run of replay(): the main loop, the position in the trace, the manual console.
class Session {
 public:
  explicit Session(Core& impl)
      : impl_(impl), options_(impl.options), reader_(impl.options.console_in) {}

  ReplayStatus run();

 private:
  enum class GoalKind {
    kNone,    // to the end (c, or no manual mode)
    kPause,   // stop before the next increment (-m)
    kSteps,   // ni: n increments
    kFrames,  // n: n frame ends
    kFrame,   // f: the start of frame n
    kCall,    // call: before increment index n
    kTime,    // s, c MS, -s: before the first increment at or after time
  };
  struct Goal {
    GoalKind kind = GoalKind::kNone;
    uint64_t n = 0;
    TimeSpec time;
    bool timed = true;         // sleeps to the recorded times (when options.wait)
    bool from_prompt = false;  // the user is stepping: the end of the trace shows the prompt
  };

  ReplayStatus loop();
  void fill();
  // Done with pending_.front(): its slot goes to spare_ when it can.
  void retire_front();
  bool stops_before(const Slot& slot);
  bool sleep_until(Clock::time_point when);
  void account(const Slot& slot, Clock::time_point started);

  std::optional<ReplayStatus> manual(const std::string& headline, const ReplayStatus* end);
  bool set_goal(const Command& command);
  void snap(const std::string& path);
  std::string stop_line() const;
  std::string end_line() const;
  std::string list_text() const;
  std::string info_text();

  ReplayStatus at_end(ReplayStatus status);
  ReplayStatus execute_failure();
  ReplayStatus finish(ReplayResult result, std::string message,
                      std::optional<uint64_t> index = std::nullopt);

  uint64_t presses_pending() const;
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
  void pause_timer();
  void resume_timer();
  std::string where() const;
  void say(const std::string& text) const { write_all(options_.console_out, text); }

  Core& impl_;
  const ReplayOptions& options_;
  std::optional<SigintWatch> watch_;
  std::unique_ptr<Engine> engine_;
  LineReader reader_;
  std::optional<Command> last_command_;
  Goal goal_;

  // Read ahead of the increment due next, which is the front.
  std::deque<SlotPtr> pending_;
  // Slots to use again: a slot (with its Event) made per increment cost more
  // than many a GL call.
  static constexpr size_t kSpareSlots = 64;
  std::vector<SlotPtr> spare_;
  // What a wait checks, made once rather than per increment.
  const Event::GiveUp give_up_ = [this] {
    return presses_pending() > 0 || impl_.stop_requested.load() || engine_->failed();
  };
  uint64_t next_seq_ = 0;
  size_t lookahead_ = 1;
  bool source_done_ = false;
  std::optional<std::string> source_error_;

  // Position.
  uint64_t pass_ = 1;
  bool pass_started_ = false;
  uint64_t pass_increments_ = 0;
  int64_t pass_t0_ = 0;  // the pass's first timestamp: time 0
  uint64_t frame_ = 0;   // frames ended in this pass: the frame of the next increment
  uint64_t frame_increments_ = 0;
  std::optional<uint64_t> last_index_;
  uint32_t last_target_ = 0;
  int64_t last_ts_ = 0;
  int64_t clock_ = 0;         // the trace time the replay stands at
  bool clock_moved_ = false;  // past the last increment (a time goal or Ctrl-C)

  // Deadlines are absolute: base_wall_ is when trace time base_ts_ was due.
  Clock::time_point base_wall_;
  int64_t base_ts_ = 0;

  Clock::time_point active_since_;
  bool active_ = false;
  Clock::duration active_total_{};
  double lateness_sum_ns_ = 0;
  int64_t recorded_span_ns_ = 0;  // of pass 1, so far
};

ReplayStatus Session::run() {
  if (impl_.used) return finish(ReplayResult::kBadOptions, "replay() runs once per Replayer");
  impl_.used = true;
  if (options_.threads < 0 || options_.threads > kMaxThreads)
    return finish(ReplayResult::kBadOptions, "threads must be 0 to " + std::to_string(kMaxThreads) +
                                                 ", not " + std::to_string(options_.threads));
  if (options_.execute_on == ExecuteOn::kWorker && options_.threads < 1)
    return finish(ReplayResult::kBadOptions,
                  "executing on the workers needs at least one worker thread");
  if (impl_.wake_fd < 0) return finish(ReplayResult::kBadOptions, "eventfd failed");
  lookahead_ =
      options_.lookahead > 0 ? options_.lookahead : 4 * static_cast<size_t>(options_.threads) + 4;
  if (options_.manual)
    goal_ = {GoalKind::kPause, 0, {}, true, false};
  else if (options_.stop_at)
    goal_ = {GoalKind::kTime, 0, *options_.stop_at, true, false};

  if (options_.handle_sigint) watch_.emplace();
  engine_ = std::make_unique<Engine>(impl_.executor, options_, impl_.wake_fd);
  resume_timer();
  ReplayStatus status = loop();
  pause_timer();
  engine_->stop(pending_);
  pending_.clear();
  engine_.reset();
  watch_.reset();  // the caller's SIGINT handler is back
  ReplayStats& stats = impl_.stats;
  stats.seconds = std::chrono::duration<double>(active_total_).count();
  stats.recorded_seconds = static_cast<double>(recorded_span_ns_) / 1e9;
  if (stats.timed_frames > 0)
    stats.mean_lateness_ns = lateness_sum_ns_ / static_cast<double>(stats.timed_frames);
  return status;
}

ReplayStatus Session::loop() {
  for (;;) {
    if (impl_.stop_requested) return finish(ReplayResult::kQuit, "stopped " + where());
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
      return finish(ReplayResult::kInterrupted, "interrupted (Ctrl-C twice) " + where());
    if (presses == 1) {
      consume_press();
      clock_from_wall();
      if (auto end = manual("\ninterrupted: " + stop_line(), nullptr)) return *end;
      continue;
    }

    if (pending_.empty()) {
      engine_->drain();
      if (engine_->failed()) continue;  // reported at the top
      if (source_error_) {
        std::string message = last_index_ ? "trace error after " + call_text(*last_index_)
                                          : std::string("trace error before the first increment");
        return at_end({ReplayResult::kSourceError, message + ": " + *source_error_, last_index_});
      }
      if (pass_increments_ == 0 || !pass_started_)
        return at_end({ReplayResult::kFinished, "the trace has no increments", std::nullopt});
      ++impl_.stats.passes;
      if (options_.loops != 0 && pass_ >= options_.loops)
        return at_end({ReplayResult::kFinished,
                       "replayed " + std::to_string(impl_.stats.increments) + " increments, " +
                           std::to_string(impl_.stats.frames) + " frames",
                       std::nullopt});
      std::string error;
      if (!guarded([&] { return impl_.executor.restart(&error); }, &error))
        return finish(ReplayResult::kRestartError,
                      "cannot start pass " + std::to_string(pass_ + 1) + ": " + error);
      if (!guarded([&] { return impl_.source.rewind(&error); }, &error))
        return finish(ReplayResult::kSourceError, "cannot loop: " + error);
      ++pass_;
      pass_started_ = false;
      pass_increments_ = 0;
      frame_ = 0;
      frame_increments_ = 0;
      last_index_.reset();
      source_done_ = false;
      continue;
    }

    const SlotPtr& slot = pending_.front();
    if (stops_before(*slot)) {
      if (auto end = manual(stop_line(), nullptr)) return *end;
      continue;
    }
    if (timed() && !sleep_until(deadline(slot->timestamp_ns))) continue;
    // Only a timed frame's lateness needs the start time (a clock read per
    // call is a measurable share of a replay's own cost).
    Clock::time_point started;
    Event::Wait wait =
        engine_->start(slot, give_up_, timed() && slot->ends_frame ? &started : nullptr);
    if (wait == Event::Wait::kFailed) {
      engine_->drain();  // an earlier increment's failure comes first
      if (engine_->failed()) return execute_failure();
      return finish(ReplayResult::kPrepareError,
                    call_text(slot->index) + ": prepare failed: " + slot->event.message(),
                    slot->index);
    }
    if (wait != Event::Wait::kOk || engine_->failed()) continue;
    account(*slot, started);
    retire_front();
  }
}

void Session::retire_front() {
  SlotPtr slot = std::move(pending_.front());
  pending_.pop_front();
  // Only a slot no other thread ever saw: another may still run it
  // (ExecuteOn::kTargetThread), and that case pays a thread handshake anyway.
  if (!engine_->runs_inline(slot->target) || spare_.size() >= kSpareSlots) return;
  slot->increment.payload.reset();
  spare_.push_back(std::move(slot));
}

void Session::fill() {
  // A deque's size() is a dozen instructions: asked once.
  for (size_t pending = pending_.size(); !source_done_ && pending < lookahead_; ++pending) {
    Increment increment;
    std::string error;
    SourceResult result = SourceResult::kError;
    guarded(
        [&] {
          result = impl_.source.next(&increment, &error);
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

bool Session::stops_before(const Slot& slot) {
  switch (goal_.kind) {
    case GoalKind::kNone:
      return false;
    case GoalKind::kPause:
      return true;
    case GoalKind::kSteps:
    case GoalKind::kFrames:
      return goal_.n == 0;
    case GoalKind::kFrame:
      return frame_ >= goal_.n;
    case GoalKind::kCall:
      return slot.index >= goal_.n;
    case GoalKind::kTime: {
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

bool Session::sleep_until(Clock::time_point when) {
  for (;;) {
    if (presses_pending() > 0 || impl_.stop_requested || engine_->failed()) return false;
    Clock::time_point now = Clock::now();
    if (now >= when) return true;
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(when - now).count();
    timespec timeout = {static_cast<time_t>(left / 1000000000),
                        static_cast<long>(left % 1000000000)};
    pollfd fds[2] = {{watch_ ? watch_->fd() : -1, POLLIN, 0}, {impl_.wake_fd, POLLIN, 0}};
    if (ppoll(fds, 2, &timeout, nullptr) > 0 && (fds[1].revents & POLLIN) != 0) impl_.clear_wake();
  }
}

void Session::account(const Slot& slot, Clock::time_point started) {
  ReplayStats& stats = impl_.stats;
  ++stats.increments;
  ++pass_increments_;
  ++frame_increments_;
  last_index_ = slot.index;
  last_target_ = slot.target;
  last_ts_ = slot.timestamp_ns;
  if (pass_ == 1) recorded_span_ns_ = std::max(recorded_span_ns_, slot.timestamp_ns - pass_t0_);
  clock_ = std::max(clock_, slot.timestamp_ns);
  clock_moved_ = false;
  if (goal_.kind == GoalKind::kSteps && goal_.n > 0) --goal_.n;
  if (!slot.ends_frame) return;
  if (goal_.kind == GoalKind::kFrames && goal_.n > 0) --goal_.n;
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

uint64_t Session::presses_pending() const {
  return (watch_ ? watch_->pending() : 0) + (impl_.interrupts.load() - impl_.interrupts_consumed);
}

void Session::consume_press() {
  if (watch_ && watch_->pending() > 0) {
    watch_->consume();
    // The counts are the truth, the pipe only wakes: drain it, and every
    // wait checks the counts before blocking.
    watch_->drain();
  } else if (impl_.interrupts.load() > impl_.interrupts_consumed) {
    ++impl_.interrupts_consumed;
  }
}

void Session::clock_from_wall() {
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

void Session::pause_timer() {
  if (!active_) return;
  active_total_ += Clock::now() - active_since_;
  active_ = false;
}

void Session::resume_timer() {
  active_since_ = Clock::now();
  active_ = true;
}

std::string Session::where() const {
  if (!pending_.empty()) return "before " + call_text(pending_.front()->index);
  if (last_index_) return "after " + call_text(*last_index_);
  return "at the start";
}

std::string Session::stop_line() const {
  std::string pass = options_.loops == 1 ? "" : ", pass " + std::to_string(pass_);
  if (pending_.empty())
    return "stopped " + where() + " (end of pass " + std::to_string(pass_) + ")";
  const Slot& next = *pending_.front();
  std::string line = "stopped ";
  if (clock_moved_) line += "at " + offset_text(clock_ - pass_t0_) + ", ";
  return line + "before " + call_text(next.index) + " (frame " + std::to_string(frame_) + ", " +
         offset_text(next.timestamp_ns - pass_t0_) + pass + ")";
}

std::string Session::end_line() const {
  if (!last_index_) return "end of trace";
  return "end of trace after " + call_text(*last_index_) + " (" + std::to_string(frame_) +
         " frames)";
}

std::string Session::list_text() const {
  std::string text =
      "time " + offset_text(clock_ - pass_t0_) + " (" + std::to_string(clock_) + " ns); ";
  if (pending_.empty()) return text + "end of the trace\n";
  const Slot& next = *pending_.front();
  return text + "next: " + call_text(next.index) + " (frame " + std::to_string(frame_) + ") at " +
         offset_text(next.timestamp_ns - pass_t0_) + " (" + std::to_string(next.timestamp_ns) +
         " ns)\n";
}

std::string Session::info_text() {
  std::string text;
  std::optional<uint32_t> target;
  if (!pending_.empty()) {
    const Slot& next = *pending_.front();
    text += "next: " + call_text(next.index) + ", frame " + std::to_string(frame_) + ", target " +
            std::to_string(next.target) + ", at " + offset_text(next.timestamp_ns - pass_t0_) +
            " (" + std::to_string(next.timestamp_ns) + " ns)\n";
    target = next.target;
  } else {
    text += "next: none, end of the trace\n";
  }
  if (last_index_) {
    text += "last: " + call_text(*last_index_) + ", target " + std::to_string(last_target_) +
            ", at " + offset_text(last_ts_ - pass_t0_) + "\n";
    target = last_target_;  // what the last call left is what a snapshot shows
  }
  text += "pass " + std::to_string(pass_) +
          (options_.loops == 0 ? " (looping)" : " of " + std::to_string(options_.loops)) + ", " +
          std::to_string(impl_.stats.increments) + " increments and " +
          std::to_string(impl_.stats.frames) + " frames run\n";
  if (target) {
    std::string described;
    engine_->run_on_target(*target, [&] {
      std::string error;
      if (!guarded(
              [&] {
                described = impl_.executor.describe(*target);
                return true;
              },
              &error))
        described = "describe failed: " + error;
    });
    if (!described.empty()) {
      if (described.back() != '\n') described += '\n';
      text += "target " + std::to_string(*target) + ": " + described;
    }
  }
  return text;
}

void Session::snap(const std::string& path) {
  uint32_t target = last_index_ ? last_target_ : pending_.empty() ? 0 : pending_.front()->target;
  std::string error;
  bool ok = false;
  engine_->run_on_target(target, [&] {
    ok = guarded([&] { return impl_.executor.snapshot(target, path, &error); }, &error);
  });
  if (ok)
    say("saved " + path + " (target " + std::to_string(target) + ")\n");
  else
    say("snap failed: " + (error.empty() ? std::string("no reason given") : error) + "\n");
}

bool Session::set_goal(const Command& command) {
  const Slot* next = pending_.empty() ? nullptr : pending_.front().get();
  Goal goal;
  goal.from_prompt = true;
  switch (command.kind) {
    case Command::Kind::kNext:
      goal = {GoalKind::kFrames, command.count, {}, false, true};
      break;
    case Command::Kind::kNextI:
      goal = {GoalKind::kSteps, command.count, {}, false, true};
      break;
    case Command::Kind::kContinue:
      if (!command.ms) {
        goal = {GoalKind::kNone, 0, {}, true, true};
        break;
      }
      goal = {GoalKind::kTime,
              0,
              {clock_ + static_cast<int64_t>(*command.ms * 1e6), false},
              true,
              true};
      break;
    case Command::Kind::kUntil: {
      goal = {GoalKind::kTime, 0, command.time, true, true};
      int64_t at = resolve(command.time);
      if (at < clock_) {
        say("already past " + offset_text(at - pass_t0_) + " (at " +
            offset_text(clock_ - pass_t0_) + ")\n");
        return false;
      }
      if (at == clock_ && next != nullptr && next->timestamp_ns >= at) {
        say("already at " + offset_text(at - pass_t0_) + "\n");
        return false;
      }
      break;
    }
    case Command::Kind::kFrame:
      goal = {GoalKind::kFrame, command.count, {}, true, true};
      if (frame_ > command.count || (frame_ == command.count && frame_increments_ > 0)) {
        say("already past the start of frame " + std::to_string(command.count) + " (in frame " +
            std::to_string(frame_) + ")\n");
        return false;
      }
      if (frame_ == command.count) {
        say("already at the start of frame " + std::to_string(command.count) + "\n");
        return false;
      }
      break;
    case Command::Kind::kCall:
      goal = {GoalKind::kCall, command.count, {}, true, true};
      if (next != nullptr && next->index >= command.count) {
        say(std::string(next->index == command.count ? "already at " : "already past ") +
            call_text(command.count) + "\n");
        return false;
      }
      break;
    default:
      return false;
  }
  goal_ = goal;
  return true;
}

std::optional<ReplayStatus> Session::manual(const std::string& headline, const ReplayStatus* end) {
  engine_->drain();                            // everything before the position has finished
  if (engine_->failed()) return std::nullopt;  // the main loop reports it
  pause_timer();
  say(headline + "\n");
  bool show_prompt = true;
  for (;;) {
    if (show_prompt) say("(replay) ");
    show_prompt = true;
    if (presses_pending() > 0)
      return finish(ReplayResult::kInterrupted, "interrupted (Ctrl-C at the prompt) " + where());
    std::string line;
    LineReader::Result read = reader_.read_line(&line, watch_ ? watch_->fd() : -1, impl_.wake_fd);
    if (read == LineReader::Result::kInterrupt) {
      say("\n");
      return finish(ReplayResult::kInterrupted, "interrupted (Ctrl-C at the prompt) " + where());
    }
    if (read == LineReader::Result::kWake) {
      impl_.clear_wake();
      if (impl_.stop_requested) return finish(ReplayResult::kQuit, "stopped " + where());
      show_prompt = false;  // interrupt() is checked at the top, as a Ctrl-C
      continue;
    }
    if (read == LineReader::Result::kEof) {
      say("\n");
      if (end != nullptr) return *end;
      return finish(ReplayResult::kQuit, "end of console input " + where());
    }
    Command command;
    if (line.find_first_not_of(" \t") == std::string::npos) {
      if (!last_command_) continue;
      command = *last_command_;  // Enter repeats the last command, as in gdb
    } else {
      std::string error;
      if (!parse_command(line, &command, &error)) {
        say(error + "\n");
        continue;
      }
      last_command_ = command;
    }
    switch (command.kind) {
      case Command::Kind::kHelp:
        say(manual_help_text());
        continue;
      case Command::Kind::kList:
        say(list_text());
        continue;
      case Command::Kind::kInfo:
        say(info_text());
        continue;
      case Command::Kind::kSnap:
        snap(command.path);
        continue;
      case Command::Kind::kQuit:
        if (end != nullptr) return *end;
        return finish(ReplayResult::kQuit, "quit " + where());
      default:
        break;
    }
    if (end != nullptr) return *end;  // nothing left to run
    if (!set_goal(command)) continue;
    resume_timer();
    rebase();
    return std::nullopt;
  }
}

ReplayStatus Session::execute_failure() {
  engine_->drain();  // increments started before the failure report theirs too
  uint64_t index = 0;
  std::string message;
  engine_->failure(&index, &message);
  return finish(ReplayResult::kExecuteError, call_text(index) + ": execute failed: " + message,
                index);
}

ReplayStatus Session::at_end(ReplayStatus status) {
  // Someone stepping through the trace gets the prompt at its end, to look
  // at (or snap) the last state; a plain replay just ends.
  if (!goal_.from_prompt || goal_.kind == GoalKind::kNone) return status;
  std::string headline =
      status.result == ReplayResult::kFinished ? end_line() : "trace error: " + status.message;
  if (auto end = manual(headline + " (q ends the replay)", &status)) return *end;
  return status;
}

ReplayStatus Session::finish(ReplayResult result, std::string message,
                             std::optional<uint64_t> index) {
  return {result, std::move(message), index};
}

}  // namespace

struct Replayer::Impl : Core {
  using Core::Core;
};

Replayer::Replayer(IncrementSource& source, Executor& executor, bool replay_manually,
                   int num_threads, bool wait, uint64_t stop_here_ns, bool loop) {
  ReplayOptions options;
  options.manual = replay_manually;
  options.threads = num_threads;
  options.wait = wait;
  if (stop_here_ns != 0) options.stop_at = TimeSpec{static_cast<int64_t>(stop_here_ns), false};
  options.loops = loop ? 0 : 1;
  impl_ = std::make_unique<Impl>(source, executor, std::move(options));
}

Replayer::Replayer(IncrementSource& source, Executor& executor, const ReplayOptions& options)
    : impl_(std::make_unique<Impl>(source, executor, options)) {}

Replayer::~Replayer() = default;

ReplayStatus Replayer::replay() { return Session(*impl_).run(); }

const ReplayStats& Replayer::stats() const { return impl_->stats; }

void Replayer::interrupt() {
  impl_->interrupts.fetch_add(1);
  impl_->wake();
}

void Replayer::stop() {
  impl_->stop_requested = true;
  impl_->wake();
}

}  // namespace gltrace::replay
