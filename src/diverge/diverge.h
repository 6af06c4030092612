// `gltrace diverge TRACE --driver A [--driver B]`: where two replays of one
// trace part ways, or where one replay parts from what the trace recorded.
// Three findings, each with its call and the `gltrace view` command that
// opens the trace there:
//  1. results: the first call whose answer differs (its result, an output
//     such as glGet*, glReadPixels or a status, the GL error it raised):
//     each side is a `gltrace replay --outcomes` child (glreplay/outcomes.h);
//     with one driver, its answers against the trace's recorded ones;
//  2. state: the first call after which the GL state differs (the viewer's
//     state table), found by two state workers stepping in lockstep: frame
//     ends first, then call by call in the first frame that differs;
//  3. pixels: the first frame whose image differs beyond the tolerance,
//     then the first draw in it whose framebuffer does (two drivers: both
//     workers read it after each draw; one: the trace's own images).
#pragma once

#include <string>
#include <vector>

namespace gltrace::diverge {

struct DivergeOptions {
  std::string program = "gltrace diverge";
  std::string replayer;  // the gltrace executable whose `replay` runs each side
  std::string trace;
  std::vector<std::string> drivers;  // one or two (--driver); one: against the trace
  std::string tolerance;             // "" : glreplay::kDefaultCiTolerance
  std::string output;                // folder kept: logs, outcomes, images ("": none kept)
  std::string json;                  // the report as JSON ("": none)
  double timeout = 1800;             // seconds per side's replay
  size_t listed = 10;                // differing calls listed
};

// 0: no difference found; 1: something differs (printed on stdout); 2: the
// run could not be made (the trace, a driver, a side that crashed).
int run_diverge(const DivergeOptions& options);

}  // namespace gltrace::diverge
