// `gltrace diverge`: where two replays of a trace part ways, or one replay
// from what the trace recorded (src/diverge).
#include "cli/commands.h"
#include "common/process.h"
#include "diverge/diverge.h"
#include "glreplay/driver_choice.h"
#include "glreplay/image_tolerance.h"

namespace gltrace::cli {

namespace {

int diverge_command(diverge::DivergeOptions& o, const CommandLine& line) {
  o.program = line.program();
  if (o.drivers.size() > 2) return line.usage_error("give --driver once or twice");
  for (const std::string& driver : o.drivers) {
    std::string dir;  // said now, before minutes of replay; each side chooses it again
    if (!glreplay::choose_driver_for(o.program, driver, &dir)) return kExitFailure;
  }
  o.replayer = executable_path();
  if (o.replayer.empty()) {
    fprintf(stderr, "%s: cannot find its own executable to replay with\n", o.program.c_str());
    return kExitFailure;
  }
  return diverge::run_diverge(o);
}

}  // namespace

void register_diverge(Commands& commands) {
  auto options = std::make_shared<diverge::DivergeOptions>();
  CommandLine& line = commands.add(
      "diverge",
      "find the first call where replays on two drivers (or a replay and the trace) part",
      [options](const CommandLine& line) { return diverge_command(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Replays TRACE on two drivers (--driver A --driver B), or on one against what the trace\n"
      "recorded, and reports where they part ways, each place with its call and the `gltrace\n"
      "view` command that opens it there:\n"
      "  results  the first calls whose answer differs: a result, an output the app read\n"
      "           (glGet*, glReadPixels, a framebuffer or shader status, a query) or the GL\n"
      "           error the call raised; timer queries and info logs are not compared;\n"
      "  state    the first call after which the GL state differs (the viewer's state table;\n"
      "           two drivers: two state workers step together, frame ends first);\n"
      "  frames   the first frame whose image differs beyond the tolerance, and the first draw\n"
      "           in it whose framebuffer does (two drivers: read after every draw of that\n"
      "           frame; one: the trace's images after draws, when it holds them).\n"
      "A side that crashes or hangs is said so; what it replayed before is compared.");
  app.add_option("--driver", options->drivers,
                 std::string("a side's driver (once or twice): ") + glreplay::kDriverOptionHelp)
      ->type_name("DRIVER");
  app.add_option("--tolerance", options->tolerance,
                 std::string("how far images may differ (gltrace replay --tolerance; default ") +
                     glreplay::kDefaultCiTolerance + ")")
      ->type_name("SPEC");
  app.add_option("-o,--output", options->output,
                 "keep each side's replay log, answers and frames there, and the first "
                 "differing draw's images (draw-a.png, draw-b.png, draw-difference.png)")
      ->type_name("DIR");
  app.add_option("--json", options->json, "write the findings to FILE as JSON")->type_name("FILE");
  app.add_option("--timeout", options->timeout, "seconds a side's replay may take (default 1800)")
      ->type_name("S");
  app.add_option("--listed", options->listed, "differing answers listed (default 10)")
      ->type_name("N");
  app.add_option("TRACE", options->trace, "the trace")->required();
  app.footer(
      "Exit status: 0 nothing differs, 1 something does, 2 the run could not be made (the\n"
      "trace, a driver, a side's replay that could not start).");
}

}  // namespace gltrace::cli
