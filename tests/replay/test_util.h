// Helpers for the replay engine's tests: a guard that turns a hang into a
// loud failure, and a replay with its console on a pipe (commands) and a
// memory file (transcript).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "replay/options.h"
#include "replay/replayer.h"
#include "synthetic.h"

namespace gltrace::replay::test {

// Runs fn on another thread; if it takes longer than limit the process
// aborts with what hung (a replay that hangs must fail the test, not the CI job).
void within(std::chrono::seconds limit, const char* what, const std::function<void()>& fn);

struct ConsoleRun {
  ReplayStatus status;
  ReplayStats stats;
  std::string transcript;
};

// Replays with the console reading script (all of it written up front, then
// end of input) and writing to a transcript, under a 20 s guard.
ConsoleRun run_with_console(IncrementSource& source, Executor& executor, ReplayOptions options,
                            const std::string& script);

// The lines of text that contain needle.
std::vector<std::string> lines_with(const std::string& text, const std::string& needle);

}  // namespace gltrace::replay::test
