#include "surface/replay_cli.h"

#include <cstdio>

#include "command_line/command_line.h"
#include "gltrace/surface_replayer.h"
#include "replay/options.h"

namespace gltrace::surface {

int run_replay(const std::vector<std::string>& args, const std::string& program) {
  cli::CommandLine line(program, program + " --help");
  CLI::App& app = line.app();
  app.description(
      "Replays a surface trace (proto/surface.proto, plain or a stream of increments):\n"
      "surfaces, displays, transactions, buffer updates and VSyncs at their recorded\n"
      "times, composited with GLES (headless by default). Each surface shows its\n"
      "recorded contents, or its own colour, changed at each buffer update.");
  ReplayerSettings settings;
  std::string trace;
  uint64_t buffer_memory_mib = settings.buffer_memory_bytes >> 20;
  app.add_option("-o,--output", settings.output_dir,
                 "write each VSync's composited display as DIR/display-<D>-vsync-<K>.png (K "
                 "counts display D's VSyncs from 0)")
      ->type_name("DIR");
  app.add_flag("--x11", settings.x11, "composite into X11 windows on $DISPLAY, one per display");
  app.add_option("--buffer-memory", buffer_memory_mib,
                 "buffers alive at once stay below MIB (default " +
                     std::to_string(buffer_memory_mib) + "); a trace that needs more fails")
      ->type_name("MIB")
      ->check(cli::in_range(uint64_t{1}, uint64_t{1} << 20));
  app.add_option("TRACE", trace, "the surface trace")->required();
  replay::ReplayOptions options;
  replay::add_replay_options(app, &options);
  app.footer(
      "Ctrl-C while replaying enters manual mode; a second Ctrl-C exits. Manual mode:\n"
      "n (next VSync), ni (next increment), c, c MS, s TS, l, h, Enter repeats, q.\n"
      "Exit status: 0 replayed, 1 the trace could not be replayed, 2 bad usage.");
  if (std::optional<int> status = line.parse(args)) return *status;
  if (options.threads < 1) return line.usage_error("-t wants at least 1 worker thread");
  settings.buffer_memory_bytes = buffer_memory_mib << 20;
  settings.loop = options.loops == 0;
  int64_t stop_here = -1;
  if (options.stop_at) {
    // An offset needs the trace's first time stamp: the library takes
    // absolute ones, as the seed's stopHere.
    stop_here = options.stop_at->ns;
    settings.stop_from_start = options.stop_at->from_start;
  }
  Replayer replayer(trace, options.manual, options.threads, options.wait, stop_here, settings);
  ReplayResult result = replayer.replay();
  std::fprintf(result.ok ? stdout : stderr, "%s%s\n", result.ok ? "" : (program + ": ").c_str(),
               result.message.c_str());
  if (result.ok && result.vsyncs_without_display > 0)
    std::printf("%llu VSyncs came while there was no display: nothing composited for them\n",
                static_cast<unsigned long long>(result.vsyncs_without_display));
  if (result.ok && result.timed_vsyncs > 0)
    std::printf("VSync lateness (%llu timed VSyncs): mean %.3f ms, max %.3f ms\n",
                static_cast<unsigned long long>(result.timed_vsyncs), result.mean_lateness_ns / 1e6,
                static_cast<double>(result.max_lateness_ns) / 1e6);
  return result.ok ? 0 : 1;
}

}  // namespace gltrace::surface
