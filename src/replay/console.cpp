#include "replay/console.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "replay/engine.h"

namespace gltrace::replay {
namespace {

bool parse_count(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) return false;
  *out = value;
  return true;
}

}  // namespace

bool parse_command(const std::string& line, Command* out, std::string* error) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  *out = Command{};
  if (words.empty()) {
    *error = "empty command";
    return false;
  }
  const std::string& name = words[0];
  auto args_must_be = [&](size_t low, size_t high) {
    if (words.size() - 1 >= low && words.size() - 1 <= high) return true;
    *error =
        "'" + name + "' takes " +
        (low == high ? std::to_string(low) : std::to_string(low) + " or " + std::to_string(high)) +
        " argument" + (high == 1 ? "" : "s") + "; h lists the commands";
    return false;
  };
  auto count_arg = [&](const char* what) {
    if (parse_count(words[1], &out->count)) return true;
    *error = "'" + name + "' wants " + what + ", not '" + words[1] + "'";
    return false;
  };

  using Kind = Command::Kind;
  if (name == "n" || name == "next" || name == "ni" || name == "nexti") {
    out->kind = name == "n" || name == "next" ? Kind::kNext : Kind::kNextI;
    if (!args_must_be(0, 1)) return false;
    if (words.size() == 2 && !count_arg("a count")) return false;
    if (out->count == 0) out->count = 1;
    return true;
  }
  if (name == "c" || name == "continue") {
    out->kind = Kind::kContinue;
    if (!args_must_be(0, 1)) return false;
    if (words.size() == 2) {
      char* end = nullptr;
      double ms = std::strtod(words[1].c_str(), &end);
      if (*end != '\0' || !std::isfinite(ms) || ms < 0 || ms > 1e12) {
        *error = "'c' wants milliseconds, not '" + words[1] + "'";
        return false;
      }
      out->ms = ms;
    }
    return true;
  }
  if (name == "s") {
    out->kind = Kind::kUntil;
    return args_must_be(1, 1) && parse_time_spec(words[1], &out->time, error);
  }
  if (name == "f" || name == "frame") {
    out->kind = Kind::kFrame;
    return args_must_be(1, 1) && count_arg("a frame number");
  }
  if (name == "call") {
    out->kind = Kind::kCall;
    return args_must_be(1, 1) && count_arg("a call number");
  }
  if (name == "snap") {
    out->kind = Kind::kSnap;
    if (!args_must_be(1, 1)) return false;
    out->path = words[1];
    return true;
  }
  struct Simple {
    const char* name;
    Kind kind;
  };
  static const Simple kSimple[] = {{"l", Kind::kList}, {"info", Kind::kInfo},
                                   {"h", Kind::kHelp}, {"help", Kind::kHelp},
                                   {"q", Kind::kQuit}, {"quit", Kind::kQuit}};
  for (const Simple& simple : kSimple) {
    if (name != simple.name) continue;
    out->kind = simple.kind;
    return args_must_be(0, 0);
  }
  *error = "unknown command '" + name + "'; h lists the commands";
  return false;
}

LineReader::Result LineReader::read_line(std::string* line, int interrupt_fd, int wake_fd) {
  for (;;) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      *line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return Result::kLine;
    }
    if (eof_) {
      if (buffer_.empty()) return Result::kEof;
      *line = std::move(buffer_);  // a last line without its newline
      buffer_.clear();
      return Result::kLine;
    }
    pollfd fds[3] = {{fd_, POLLIN, 0}, {interrupt_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return Result::kEof;
    }
    // Ctrl-C first: it must win over typed-ahead input.
    if (interrupt_fd >= 0 && (fds[1].revents & POLLIN) != 0) return Result::kInterrupt;
    if (wake_fd >= 0 && (fds[2].revents & POLLIN) != 0) return Result::kWake;
    if (fds[0].revents == 0) continue;
    char chunk[4096];
    ssize_t got = read(fd_, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0)
      eof_ = true;
    else
      buffer_.append(chunk, static_cast<size_t>(got));
  }
}

namespace {

std::string offset_text(int64_t ns) {
  char text[64];
  std::snprintf(text, sizeof text, "%+.6f s", static_cast<double>(ns) / 1e9);
  return text;
}

std::string call_text(uint64_t index) { return "call " + std::to_string(index); }

// The prompt over a controller: each command becomes a goal for
// ReplayController::run(), or a task on a target's thread (info, snap).
class Console {
 public:
  explicit Console(ReplayController& controller)
      : controller_(controller),
        options_(controller.options()),
        reader_(controller.options().console_in) {}

  ReplayStatus run();

 private:
  // The prompt until a command sets *goal (nullopt) or ends the replay.
  // end: the trace has ended with it; only q (or the end of input) remains.
  std::optional<ReplayStatus> manual(const std::string& headline, const ReplayStatus* end,
                                     RunGoal* goal);
  bool set_goal(const Command& command, RunGoal* goal);
  void snap(const std::string& path);
  std::string stop_line() const;
  std::string end_line() const;
  std::string list_text() const;
  std::string info_text();
  std::string where() const;
  int64_t resolve(const TimeSpec& time, const Position& at) const {
    return time.from_start ? at.pass_start_ns + time.ns : time.ns;
  }
  void say(const std::string& text) const { write_all(options_.console_out, text); }

  ReplayController& controller_;
  const ReplayOptions& options_;
  LineReader reader_;
  std::optional<Command> last_command_;
  // The user is stepping: the end of the trace shows the prompt.
  bool from_prompt_ = false;
};

ReplayStatus Console::run() {
  RunGoal goal;
  if (options_.manual)
    goal.kind = RunGoal::Kind::kPause;
  else if (options_.stop_at)
    goal = {RunGoal::Kind::kTime, 0, *options_.stop_at, true};
  for (;;) {
    RunResult result = controller_.run(goal);
    std::string headline;
    switch (result.stop) {
      case RunStop::kOver:
        return result.status;
      case RunStop::kEnd: {
        // Someone stepping through the trace gets the prompt at its end, to
        // look at (or snap) the last state; a plain replay just ends.
        if (!from_prompt_ || goal.kind == RunGoal::Kind::kEnd) return result.status;
        std::string line = result.status.result == ReplayResult::kFinished
                               ? end_line()
                               : "trace error: " + result.status.message;
        if (auto end = manual(line + " (q ends the replay)", &result.status, &goal)) return *end;
        return result.status;
      }
      case RunStop::kInterrupted:
        headline = "\ninterrupted: " + stop_line();
        break;
      case RunStop::kParked:
        headline = stop_line();
        break;
    }
    if (auto end = manual(headline, nullptr, &goal)) return *end;
  }
}

std::string Console::where() const {
  Position at = controller_.position();
  if (at.next) return "before " + call_text(*at.next);
  if (at.last) return "after " + call_text(*at.last);
  return "at the start";
}

std::string Console::stop_line() const {
  Position at = controller_.position();
  std::string pass = options_.loops == 1 ? "" : ", pass " + std::to_string(at.pass);
  if (!at.next) return "stopped " + where() + " (end of pass " + std::to_string(at.pass) + ")";
  std::string line = "stopped ";
  if (at.clock_moved) line += "at " + offset_text(at.clock_ns - at.pass_start_ns) + ", ";
  return line + "before " + call_text(*at.next) + " (frame " + std::to_string(at.frame) + ", " +
         offset_text(at.next_ns - at.pass_start_ns) + pass + ")";
}

std::string Console::end_line() const {
  Position at = controller_.position();
  if (!at.last) return "end of trace";
  return "end of trace after " + call_text(*at.last) + " (" + std::to_string(at.frame) + " frames)";
}

std::string Console::list_text() const {
  Position at = controller_.position();
  std::string text = "time " + offset_text(at.clock_ns - at.pass_start_ns) + " (" +
                     std::to_string(at.clock_ns) + " ns); ";
  if (!at.next) return text + "end of the trace\n";
  return text + "next: " + call_text(*at.next) + " (frame " + std::to_string(at.frame) + ") at " +
         offset_text(at.next_ns - at.pass_start_ns) + " (" + std::to_string(at.next_ns) + " ns)\n";
}

std::string Console::info_text() {
  Position at = controller_.position();
  const ReplayStats& stats = controller_.stats();
  std::string text;
  std::optional<uint32_t> target;
  if (at.next) {
    text += "next: " + call_text(*at.next) + ", frame " + std::to_string(at.frame) + ", target " +
            std::to_string(at.next_target) + ", at " + offset_text(at.next_ns - at.pass_start_ns) +
            " (" + std::to_string(at.next_ns) + " ns)\n";
    target = at.next_target;
  } else {
    text += "next: none, end of the trace\n";
  }
  if (at.last) {
    text += "last: " + call_text(*at.last) + ", target " + std::to_string(at.last_target) +
            ", at " + offset_text(at.last_ns - at.pass_start_ns) + "\n";
    target = at.last_target;  // what the last call left is what a snapshot shows
  }
  text += "pass " + std::to_string(at.pass) +
          (options_.loops == 0 ? " (looping)" : " of " + std::to_string(options_.loops)) + ", " +
          std::to_string(stats.increments) + " increments and " + std::to_string(stats.frames) +
          " frames run\n";
  if (target) {
    std::string described;
    std::string error;
    controller_.run_on_target(
        *target,
        [&] {
          if (!guarded(
                  [&] {
                    described = controller_.executor().describe(*target);
                    return true;
                  },
                  &error))
            described = "describe failed: " + error;
        },
        &error);
    if (!described.empty()) {
      if (described.back() != '\n') described += '\n';
      text += "target " + std::to_string(*target) + ": " + described;
    }
  }
  return text;
}

void Console::snap(const std::string& path) {
  Position at = controller_.position();
  uint32_t target = at.last ? at.last_target : at.next ? at.next_target : 0;
  std::string error;
  bool ok = false;
  controller_.run_on_target(
      target,
      [&] {
        ok = guarded([&] { return controller_.executor().snapshot(target, path, &error); }, &error);
      },
      &error);
  if (ok)
    say("saved " + path + " (target " + std::to_string(target) + ")\n");
  else
    say("snap failed: " + (error.empty() ? std::string("no reason given") : error) + "\n");
}

bool Console::set_goal(const Command& command, RunGoal* out) {
  using Kind = RunGoal::Kind;
  Position at = controller_.position();
  RunGoal goal;
  switch (command.kind) {
    case Command::Kind::kNext:
      goal = {Kind::kFrames, command.count, {}, false};
      break;
    case Command::Kind::kNextI:
      goal = {Kind::kSteps, command.count, {}, false};
      break;
    case Command::Kind::kContinue:
      if (!command.ms) {
        goal = {Kind::kEnd, 0, {}, true};
        break;
      }
      goal = {Kind::kTime, 0, {at.clock_ns + static_cast<int64_t>(*command.ms * 1e6), false}, true};
      break;
    case Command::Kind::kUntil: {
      goal = {Kind::kTime, 0, command.time, true};
      int64_t time = resolve(command.time, at);
      if (time < at.clock_ns) {
        say("already past " + offset_text(time - at.pass_start_ns) + " (at " +
            offset_text(at.clock_ns - at.pass_start_ns) + ")\n");
        return false;
      }
      if (time == at.clock_ns && at.next && at.next_ns >= time) {
        say("already at " + offset_text(time - at.pass_start_ns) + "\n");
        return false;
      }
      break;
    }
    case Command::Kind::kFrame:
      goal = {Kind::kFrame, command.count, {}, true};
      if (at.frame > command.count || (at.frame == command.count && at.frame_increments > 0)) {
        say("already past the start of frame " + std::to_string(command.count) + " (in frame " +
            std::to_string(at.frame) + ")\n");
        return false;
      }
      if (at.frame == command.count) {
        say("already at the start of frame " + std::to_string(command.count) + "\n");
        return false;
      }
      break;
    case Command::Kind::kCall:
      goal = {Kind::kCall, command.count, {}, true};
      if (at.next && *at.next >= command.count) {
        say(std::string(*at.next == command.count ? "already at " : "already past ") +
            call_text(command.count) + "\n");
        return false;
      }
      break;
    default:
      return false;
  }
  *out = goal;
  from_prompt_ = true;
  return true;
}

std::optional<ReplayStatus> Console::manual(const std::string& headline, const ReplayStatus* end,
                                            RunGoal* goal) {
  say(headline + "\n");
  bool show_prompt = true;
  for (;;) {
    if (show_prompt) say("(replay) ");
    show_prompt = true;
    if (controller_.presses_pending() > 0)
      return ReplayStatus{ReplayResult::kInterrupted,
                          "interrupted (Ctrl-C at the prompt) " + where(), std::nullopt};
    std::string line;
    LineReader::Result read =
        reader_.read_line(&line, controller_.interrupt_fd(), controller_.wake_fd());
    if (read == LineReader::Result::kInterrupt) {
      say("\n");
      return ReplayStatus{ReplayResult::kInterrupted,
                          "interrupted (Ctrl-C at the prompt) " + where(), std::nullopt};
    }
    if (read == LineReader::Result::kWake) {
      controller_.clear_wake();
      if (controller_.stop_requested())
        return ReplayStatus{ReplayResult::kQuit, "stopped " + where(), std::nullopt};
      show_prompt = false;  // interrupt() is checked at the top, as a Ctrl-C
      continue;
    }
    if (read == LineReader::Result::kEof) {
      say("\n");
      if (end != nullptr) return *end;
      return ReplayStatus{ReplayResult::kQuit, "end of console input " + where(), std::nullopt};
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
        return ReplayStatus{ReplayResult::kQuit, "quit " + where(), std::nullopt};
      default:
        break;
    }
    if (end != nullptr) return *end;  // nothing left to run
    if (!set_goal(command, goal)) continue;
    return std::nullopt;
  }
}

}  // namespace

ReplayStatus run_console(ReplayController& controller) { return Console(controller).run(); }

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;
    done += static_cast<size_t>(wrote);
  }
}

}  // namespace gltrace::replay
