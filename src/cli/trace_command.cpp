// `gltrace trace`: run an app with the trace layer at the bottom of the chain.
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/trace_output.h"

namespace gltrace::cli {

const char kUsage_trace[] =
    "usage: gltrace trace [-o FILE] [--mode MODE] [--layers L1:L2:...] [--dropin]\n"
    "                     [--loader-debug] [--] APP [ARGS...]\n"
    "\n"
    "Runs APP with the trace layer below any other layers and records every EGL\n"
    "and GLES call to FILE. In FILE, %p is replaced by the process id and %n by\n"
    "the process name (useful when APP starts several GL processes).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  the output (required in full and systrace modes; the\n"
    "                     log and error modes write to stderr without it)\n"
    "  --mode MODE        full: every call, binary trace (default)\n"
    "                     log: every call as a readable line\n"
    "                     error: glGetError after every GL call; errors reported\n"
    "                            with the call and a call stack (the app still sees them)\n"
    "                     systrace: Chrome/Perfetto JSON timeline, one slice per call\n"
    "  --framebuffer WHEN read the framebuffer back and store it in the trace\n"
    "                     (see `gltrace frames`): swap (at every eglSwapBuffers),\n"
    "                     draw (after every draw call: slow), or swap,draw\n"
    "  --no-texture-data  record texture uploads without their pixels (smaller\n"
    "                     traces; such traces do not replay textures)\n"
    "  --thread-time      also record each call's thread CPU time (a system call\n"
    "                     per call)\n"
    "  --layers L1:L2     more layers, above the trace layer\n"
    "  --dropin, --loader-debug  as for `gltrace run`\n"
    "\n"
    "With -o, gltrace checks that FILE can be written before it starts APP,\n"
    "runs APP as its child, and then reads what was written: `wrote N calls,\n"
    "M frames, X MB to FILE` per file, with a warning for a trace with no\n"
    "EGL/GLES call or no frame, and for GLX or desktop OpenGL use seen in the\n"
    "process (gltrace traces EGL and OpenGL ES only). Ctrl-C reaches APP.\n"
    "\n"
    "Exit status: APP's own when it fails (128+N when signal N ended it, 127\n"
    "when it cannot be executed); otherwise 1 when FILE cannot be written (APP\n"
    "is then not started) or no readable trace was written, 0 when it was;\n"
    "2 for bad usage. Without -o, gltrace becomes APP as `gltrace run` does.\n";

namespace {

constexpr char kName[] = "trace";

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// Runs the app, then says what it wrote to `output` (a pattern): one line per
// file, or why there is none. Returns the exit status (see kUsage_trace).
int run_and_report(const LaunchOptions& options, const std::string& output,
                   const std::string& mode) {
  std::vector<OutputFile> before = list_outputs(output);
  fprintf(stderr, "gltrace trace: tracing to %s\n", output.c_str());
  bool started = false;
  int app_status = run_app_and_wait(kName, options, &started);
  if (!started) return app_status;
  std::vector<std::string> written = written_outputs(output, before);
  bool traced = !written.empty();
  if (written.empty()) {
    std::string desktop_gl = linked_desktop_gl_libraries(options.app[0]);
    if (!desktop_gl.empty())
      fprintf(stderr,
              "gltrace trace: no trace was written to %s: %s links %s: it uses GLX or desktop "
              "OpenGL, which gltrace does not trace (EGL and OpenGL ES only)\n",
              output.c_str(), options.app[0].c_str(), desktop_gl.c_str());
    else
      fprintf(stderr,
              "gltrace trace: no trace was written to %s: the app made no EGL/GLES call "
              "(gltrace traces EGL and OpenGL ES, not GLX or desktop OpenGL), or the trace "
              "layer could not write the file (its message is above)\n",
              output.c_str());
  }
  for (const std::string& file : written) {
    if (mode == "full") {
      traced = report_trace(kName, file) && traced;
    } else {
      struct stat st {};
      if (stat(file.c_str(), &st) == 0)
        fprintf(stderr, "gltrace trace: wrote %.2f MB to %s\n",
                static_cast<double>(st.st_size) / 1e6, file.c_str());
    }
  }
  // The app's own failure is passed on first: scripts that ran it without
  // gltrace see the same status; a trace that failed fails a successful run.
  if (app_status != kExitOk) return app_status;
  return traced ? kExitOk : kExitFailure;
}

}  // namespace

int cmd_trace(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage_trace, stdout);
      return kExitOk;
    }
  }
  std::string output;
  std::string mode = "full";
  LaunchOptions options;
  int status = parse_launch_options(
      kName, args, &options, [&](const std::vector<std::string>& a, size_t* i) {
        const std::string& arg = a[*i];
        if (arg == "-o" || arg == "--output") {
          if (*i + 1 >= a.size()) return usage_error(kName, arg + " needs a file name");
          output = a[++*i];
          return kExitOk;
        }
        if (arg == "--framebuffer") {
          if (*i + 1 >= a.size() ||
              (a[*i + 1] != "swap" && a[*i + 1] != "draw" && a[*i + 1] != "swap,draw"))
            return usage_error(kName, "--framebuffer takes swap, draw or swap,draw");
          options.env.emplace_back("GLTRACE_CAPTURE_FRAMEBUFFER", a[++*i]);
          return kExitOk;
        }
        if (arg == "--no-texture-data" || arg == "--thread-time") {
          options.env.emplace_back(
              arg == "--thread-time" ? "GLTRACE_THREAD_TIME" : "GLTRACE_TEXTURE_DATA",
              arg == "--thread-time" ? "1" : "0");
          return kExitOk;
        }
        if (arg == "--mode") {
          if (*i + 1 >= a.size()) return usage_error(kName, "--mode needs a value");
          mode = a[++*i];
          return kExitOk;
        }
        if (arg.compare(0, 9, "--output=") == 0) {
          output = arg.substr(9);
          return kExitOk;
        }
        return -1;
      });
  if (status != kExitOk) return status;
  if (mode != "full" && mode != "log" && mode != "error" && mode != "systrace")
    return usage_error(kName, "unknown --mode '" + mode + "' (full, log, error, systrace)");
  if (output.empty() && (mode == "full" || mode == "systrace"))
    return usage_error(kName, "missing -o FILE");
  // The app may change its working directory (piglit does): make it absolute.
  if (!output.empty()) output = absolute(output);
  // Checked before the app starts: the trace layer cannot report a failure to
  // open the file other than by a line in the app's stderr.
  if (!output.empty() && !check_output(kName, output)) return kExitFailure;
  options.env.emplace_back("GLTRACE_TRACE_FILE", output);
  options.env.emplace_back("GLTRACE_TRACE_MODE", mode);
  options.layers = options.layers ? *options.layers + ":libGLES_trace.so" : "libGLES_trace.so";
  if (output.empty()) return launch_app(kName, options);  // text on the app's stderr

  return run_and_report(options, output, mode);
}

}  // namespace gltrace::cli
