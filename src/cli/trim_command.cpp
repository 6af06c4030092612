// `gltrace trim`: frames A-B of a trace as a trace of their own, beginning
// with a state snapshot taken from a replay (src/glreplay/trim.h).
#include "cli/commands.h"
#include "cli/trace_input.h"
#include "glreplay/driver_choice.h"
#include "glreplay/trim.h"

namespace gltrace::cli {

namespace {

struct TrimCommandOptions {
  std::string trace, output, frames, calls, driver;
};

int trim(const TrimCommandOptions& o, const CommandLine& line) {
  glreplay::TrimOptions options;
  if (o.frames.empty() == o.calls.empty())
    return line.usage_error("give --frames A-B or --calls C-D");
  if (!o.calls.empty()) {
    uint64_t first = 0, last = 0;
    if (!parse_range(o.calls, &first, &last) || last == UINT64_MAX)
      return line.usage_error("--calls needs a range like 100-900, not '" + o.calls + "'");
    options.calls = std::make_pair(first, last);
  } else if (!parse_range(o.frames, &options.first_frame, &options.last_frame) ||
             options.last_frame == UINT64_MAX) {
    return line.usage_error("--frames needs a range like 2-5, not '" + o.frames + "'");
  }
  options.trace = o.trace;
  options.output = o.output;
  if (!glreplay::choose_driver_for(line.program(), o.driver, &options.driver_dir))
    return kExitFailure;
  return glreplay::run_trim(options);
}

}  // namespace

void register_trim(Commands& commands) {
  auto options = std::make_shared<TrimCommandOptions>();
  CommandLine& line =
      commands.add("trim", "keep frames A-B of a trace, replayable on their own",
                   [options](const CommandLine& line) { return trim(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Writes frames A to B (or calls C to D) of TRACE as a trace of their own. It replays TRACE "
      "headless to the\n"
      "start of frame A, takes a snapshot of the GL and EGL state there (every object with its\n"
      "contents, every binding and setting) and writes it as the new trace's first calls, then\n"
      "frames A-B. OUT replays frame for frame as A-B of TRACE do; its header says what it was\n"
      "cut from. What the snapshot cannot recreate exactly is listed as a warning.");
  app.add_option("--frames", options->frames, "the frames to keep, A-B (0 is the first)")
      ->type_name("A-B");
  app.add_option("--calls", options->calls,
                 "the calls to keep instead, C-D (by number, as dump shows them): a cut inside a "
                 "frame too")
      ->type_name("C-D");
  app.add_option("-o,--output", options->output, "the trimmed trace")->type_name("OUT")->required();
  app.add_option("--driver", options->driver, glreplay::kDriverOptionHelp)->type_name("DRIVER");
  app.add_option("TRACE", options->trace, "the trace")->required();
}

}  // namespace gltrace::cli
