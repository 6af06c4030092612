// `glreplay --check`: the replay's validation over every call of a trace,
// with no GL loaded: what a replay would refuse, and why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/increment.h"

namespace gltrace::glreplay {

struct CheckReport {
  uint64_t calls = 0;
  uint64_t refused = 0;
  // "call N: would refuse glX: reason", for the first `max_lines` refusals.
  std::vector<std::string> lines;
  std::string error;  // the source's, when the trace is damaged
};

// Reads every increment of `source` (glreplay Calls) and validates it against
// the GL state the trace's own calls set up (TrackedState). False when the
// source failed (report->error says why); refusals are in the report.
bool check_trace(replay::IncrementSource& source, CheckReport* report, size_t max_lines = 50);

}  // namespace gltrace::glreplay
