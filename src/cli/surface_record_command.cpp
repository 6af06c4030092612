// `gltrace surface record` and `gltrace surface from-gl`.
#include "cli/surface_record_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "surface/from_gl/from_gl.h"
#include "surface/record/record.h"
#include "surface/trace_io.h"

namespace gltrace::cli {

const char kUsage_surface_record[] =
    "usage: gltrace surface record -o FILE [--contents] [--size WxH] [--renderer R]\n"
    "                              [--] CLIENT [ARGS...]\n"
    "\n"
    "Runs the Wayland client CLIENT (and every client it starts) under a headless\n"
    "weston started for the purpose, with gltrace's recorder module loaded, and\n"
    "records what weston showed as a surface trace: its outputs as displays, each\n"
    "surface's creation (role, app id, title) and deletion, where weston placed it\n"
    "and in which order, sizes, crops, scales and transforms, subsurfaces, every\n"
    "buffer commit, and a VSync at each repaint. Stops weston when the clients\n"
    "have ended. Ctrl-C goes to the client, not to weston.\n"
    "\n"
    "  -o FILE      the trace: a plain gltrace.surface.Trace at the end (protoc\n"
    "               --decode=gltrace.surface.Trace proto/surface.proto < FILE), a\n"
    "               stream of increments while recording and when cut short\n"
    "  --contents   keep the pixels of each shm buffer update\n"
    "  --size WxH   the headless output's size (weston's default otherwise)\n"
    "  --renderer R how weston composites: pixman (default) or gl (llvmpipe\n"
    "               here: slower)\n"
    "\n"
    "WAYLAND_DISPLAY must not be set: a running compositor cannot be recorded from\n"
    "outside (docs/surface.md says how to load the module into your own weston).\n"
    "Exit status: the client's (128+N when signal N ended it), 1 when the\n"
    "recording failed or weston died, 127 when CLIENT cannot be run.\n";

const char kUsage_surface_from_gl[] =
    "usage: gltrace surface from-gl -o OUT TRACE.gltrace\n"
    "\n"
    "Converts a GL trace to a surface trace: each EGL window surface becomes a\n"
    "surface, each eglSwapBuffers a buffer update at the size the frame was drawn\n"
    "at followed by a VSync, on one display as large as the largest frame. The\n"
    "framebuffers captured at swaps (gltrace trace --framebuffer swap) become the\n"
    "updates' contents. OUT is a plain gltrace.surface.Trace.\n";

namespace {

// One line and where the subcommand's help is, as every usage error.
int usage(const char* subcommand, const std::string& message) {
  fprintf(stderr, "gltrace surface %s: %s\nsee 'gltrace surface %s --help'\n", subcommand,
          message.c_str(), subcommand);
  return kExitUsage;
}

}  // namespace

int surface_record_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  surface::RecordOptions options;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage_surface_record, stdout);
      return kExitOk;
    } else if ((arg == "-o" || arg == "--output") && i + 1 < args.size()) {
      options.output = args[++i];
    } else if (arg == "--contents") {
      options.contents = true;
    } else if (arg == "--size" && i + 1 < args.size()) {
      options.size = args[++i];
    } else if (arg == "--renderer" && i + 1 < args.size()) {
      options.renderer = args[++i];
    } else {
      return usage("record", "unknown option or missing value '" + arg + "'");
    }
  }
  options.client.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (options.output.empty()) return usage("record", "need -o FILE");
  if (options.client.empty()) return usage("record", "need a CLIENT to run");
  return surface::record(options);
}

int surface_from_gl_main(int argc, char** argv) {
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage_surface_from_gl, stdout);
      return kExitOk;
    } else if ((arg == "-o" || arg == "--output") && i + 1 < argc) {
      output = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("from-gl", "unknown option or missing value '" + arg + "'");
    } else if (input.empty()) {
      input = arg;
    } else {
      return usage("from-gl", "one TRACE only");
    }
  }
  if (input.empty() || output.empty()) return usage("from-gl", "need -o OUT and TRACE");
  surface::Trace trace;
  surface::FromGlSummary summary;
  std::string error, warning;
  if (!surface::convert_gl_trace(input, trace, summary, error, warning)) {
    fprintf(stderr, "gltrace surface from-gl: %s\n", error.c_str());
    return kExitFailure;
  }
  if (!warning.empty()) fprintf(stderr, "gltrace surface from-gl: warning: %s\n", warning.c_str());
  if (summary.surfaces == 0) return kExitFailure;
  // Private as the GL trace it comes from (it may hold its framebuffers).
  const mode_t old_umask = umask(077);
  const bool written = surface::write_trace(output, trace, error);
  umask(old_umask);
  if (!written) {
    fprintf(stderr, "gltrace surface from-gl: %s\n", error.c_str());
    return kExitFailure;
  }
  printf("%s: %llu surfaces, %llu buffer updates (%llu with contents), %d increments\n",
         output.c_str(), static_cast<unsigned long long>(summary.surfaces),
         static_cast<unsigned long long>(summary.swaps),
         static_cast<unsigned long long>(summary.with_contents), trace.increment_size());
  return kExitOk;
}

}  // namespace gltrace::cli
