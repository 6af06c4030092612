#include "surface/replay_cli.h"

#include <cstdio>
#include <cstdlib>

#include "gltrace/surface_replayer.h"
#include "replay/options.h"

namespace gltrace::surface {

std::string replay_usage(const std::string& program) {
  return "usage: " + program +
         " [-m] [-t N] [-s TS] [-n] [-l] [-h] [--x11] [-o DIR]\n"
         "       [--buffer-memory MIB] TRACE\n" +
         "\n"
         "Replays a surface trace (proto/surface.proto, plain or a stream of increments):\n"
         "surfaces, displays, transactions, buffer updates and VSyncs at their recorded\n"
         "times, composited with GLES (headless by default). Each surface shows its\n"
         "recorded contents, or its own colour, changed at each buffer update.\n"
         "\n"
         "  -o DIR        write each VSync's composited display as\n"
         "                DIR/display-<D>-vsync-<K>.png (K counts display D's VSyncs from 0)\n"
         "  --x11         composite into X11 windows on $DISPLAY, one per display\n"
         "  --buffer-memory MIB  buffers alive at once stay below MIB (default 1024);\n"
         "                a trace that needs more fails\n"
         "  -m            start paused, in manual mode\n"
         "  -t N          N worker threads prepare buffers ahead of time (default 3)\n"
         "  -s TS         switch to manual mode at TS: trace nanoseconds, or an offset\n"
         "                from the start with a unit (1.5s, 200ms)\n"
         "  -n            ignore timestamps: replay as fast as possible\n"
         "  -l            loop forever\n"
         "  -h            this help\n"
         "Ctrl-C while replaying enters manual mode; a second Ctrl-C exits. Manual mode:\n"
         "n (next VSync), ni (next increment), c, c MS, s TS, l, h, Enter repeats, q.\n";
}

int run_replay(const std::vector<std::string>& args, const std::string& program) {
  std::vector<const char*> argv{program.c_str()};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  std::string error;
  replay::ReplayOptions options =
      replay::parse_replay_options(static_cast<int>(argv.size()), argv.data(), &error);
  // One line and where the help is, as gltrace's own usage errors.
  auto usage_error = [&](const std::string& message) {
    std::fprintf(stderr, "%s: %s\nsee '%s -h'\n", program.c_str(), message.c_str(),
                 program.c_str());
    return 2;
  };
  if (!error.empty()) return usage_error(error);
  if (options.help) {
    std::fputs(replay_usage(program).c_str(), stdout);
    return 0;
  }
  ReplayerSettings settings;
  std::string trace;
  for (size_t i = 0; i < options.args.size(); ++i) {
    const std::string& arg = options.args[i];
    if (arg == "--x11") {
      settings.x11 = true;
    } else if (arg == "-o" || arg == "--output") {
      if (i + 1 >= options.args.size()) return usage_error(arg + " needs a directory");
      settings.output_dir = options.args[++i];
    } else if (arg == "--buffer-memory") {
      if (i + 1 >= options.args.size()) return usage_error(arg + " needs a size in MiB");
      const std::string& value = options.args[++i];
      char* end = nullptr;
      const unsigned long long mib = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || mib == 0 || mib > (1ull << 20))
        return usage_error("--buffer-memory wants MiB from 1 to 1048576, not '" + value + "'");
      settings.buffer_memory_bytes = mib << 20;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage_error("unknown option '" + arg + "'");
    } else if (trace.empty()) {
      trace = arg;
    } else {
      return usage_error("one TRACE only ('" + trace + "', then '" + arg + "')");
    }
  }
  if (trace.empty()) return usage_error("missing TRACE");
  if (options.threads < 1) return usage_error("-t wants at least 1 worker thread");
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
