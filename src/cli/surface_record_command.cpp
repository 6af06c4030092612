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

int surface_record(const std::vector<std::string>& args) {
  surface::RecordOptions options;
  CommandLine line("gltrace surface record", "gltrace surface record --help");
  CLI::App& app = line.app();
  app.description(
      "Runs the Wayland client CLIENT (and every client it starts) under a headless\n"
      "weston started for the purpose, with gltrace's recorder module loaded, and\n"
      "records what weston showed as a surface trace: its outputs as displays, each\n"
      "surface's creation (role, app id, title) and deletion, where weston placed it\n"
      "and in which order, sizes, crops, scales and transforms, subsurfaces, every\n"
      "buffer commit, and a VSync at each repaint. Stops weston when the clients\n"
      "have ended. Ctrl-C goes to the client, not to weston.");
  app.add_option("-o,--output", options.output,
                 "the trace: a plain gltrace.surface.Trace at the end (protoc "
                 "--decode=gltrace.surface.Trace proto/surface.proto < FILE), a stream of "
                 "increments while recording and when cut short")
      ->type_name("FILE")
      ->required();
  app.add_flag("--contents", options.contents, "keep the pixels of each shm buffer update");
  app.add_option("--size", options.size, "the headless output's size (weston's default otherwise)")
      ->type_name("WxH");
  app.add_option("--renderer", options.renderer,
                 "how weston composites: pixman (default) or gl (llvmpipe here: slower)")
      ->type_name("R")
      ->check(one_of({"pixman", "gl"}));
  app.footer(
      "WAYLAND_DISPLAY must not be set: a running compositor cannot be recorded from\n"
      "outside (docs/surface.md says how to load the module into your own weston).\n"
      "Exit status: the client's (128+N when signal N ended it), 1 when the\n"
      "recording failed or weston died, 127 when CLIENT cannot be run, 2 bad usage.");
  line.set_operands({"[--] CLIENT [ARGS...]"});
  line.pass_operands_through();
  if (std::optional<int> status = line.parse(args)) return *status;
  options.client = line.operands();
  if (options.client.empty()) return line.usage_error("missing CLIENT");
  return surface::record(options);
}

int surface_from_gl(const std::vector<std::string>& args) {
  std::string input, output;
  CommandLine line("gltrace surface from-gl", "gltrace surface from-gl --help");
  CLI::App& app = line.app();
  app.description(
      "Converts a GL trace to a surface trace: each EGL window surface becomes a\n"
      "surface, each eglSwapBuffers a buffer update at the size the frame was drawn\n"
      "at followed by a VSync, on one display as large as the largest frame. The\n"
      "framebuffers captured at swaps (gltrace trace --framebuffer swap) become the\n"
      "updates' contents.");
  app.add_option("-o,--output", output,
                 "the surface trace to write (a plain gltrace.surface.Trace)")
      ->type_name("OUT")
      ->required();
  app.add_option("TRACE", input, "the GL trace")->required();
  if (std::optional<int> status = line.parse(args)) return *status;
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
