// `gltrace trace`: run an app with the trace layer at the bottom of the chain.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/trace_output.h"
#include "gltrace/api/profiles.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "trace";

// A file the app's processes add the names of their outputs to
// (GLTRACE_TRACE_REPORT, one line each): every file of the run, with none of
// another run's, whatever names the files got.
class OutputReport {
 public:
  OutputReport() {
    const char* runtime = getenv("XDG_RUNTIME_DIR");
    std::string dir = runtime != nullptr && *runtime != '\0' ? runtime : "/tmp";
    std::string path = dir + "/gltrace-trace-report.XXXXXX";
    int fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return;
    close(fd);
    path_ = path;
  }
  ~OutputReport() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  OutputReport(const OutputReport&) = delete;
  OutputReport& operator=(const OutputReport&) = delete;

  const std::string& path() const { return path_; }

  // The files named so far, each once, in the order they were claimed.
  std::vector<std::string> files() const {
    std::vector<std::string> files;
    FILE* in = path_.empty() ? nullptr : fopen(path_.c_str(), "re");
    if (in == nullptr) return files;
    char* line = nullptr;
    size_t capacity = 0;
    for (ssize_t n; (n = getline(&line, &capacity, in)) > 0;) {
      std::string file(line, static_cast<size_t>(n));
      if (file.back() == '\n') file.pop_back();
      if (!file.empty() && std::find(files.begin(), files.end(), file) == files.end())
        files.push_back(file);
    }
    free(line);
    fclose(in);
    return files;
  }

 private:
  std::string path_;
};

// Runs the app, then says what it wrote for `output`: one line per file (each
// process that traced has its own), or why there is none. Returns the exit
// status (see the help's footer).
int run_and_report(LaunchOptions& options, const std::string& output, const std::string& mode) {
  OutputReport report;
  if (report.path().empty()) {
    fprintf(stderr, "gltrace trace: cannot make the report file in $XDG_RUNTIME_DIR or /tmp: %s\n",
            strerror(errno));
    return kExitFailure;
  }
  options.env.emplace_back("GLTRACE_TRACE_REPORT", report.path());
  fprintf(stderr, "gltrace trace: tracing to %s\n", output.c_str());
  bool started = false;
  int app_status = run_app_and_wait(kName, options, &started);
  if (!started) return app_status;
  std::vector<std::string> written = report.files();
  bool traced = !written.empty();
  if (written.empty()) {
    fprintf(stderr,
            "gltrace trace: no trace was written to %s: the app made no EGL, GLX or GL "
            "call, or the trace layer could not write the file (its message is above)\n",
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

namespace {

struct TraceOptions {
  LaunchOptions launch;
  std::string output;
  std::string mode = "full";
  std::string framebuffer;
  bool no_texture_data = false;
  bool thread_time = false;
  bool gpu_time = false;
  int zstd_level = 0;
  uint64_t start_frame = 0;
  double start_after = 0;
  uint64_t frames = 0;
  std::string portable;  // --portable[=PROFILE]
};

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const api::Profile& p : api::kProfiles) names.emplace_back(p.name);
  return names;
}

int trace(TraceOptions& o, const CommandLine& line) {
  LaunchOptions& options = o.launch;
  if (int status = take_app(line, &options); status != kExitOk) return status;
  std::string output = o.output;
  const std::string& mode = o.mode;
  if (output.empty() && (mode == "full" || mode == "systrace"))
    return line.usage_error("missing -o FILE (the " + mode + " mode writes a file)");
  if (!o.framebuffer.empty())
    options.env.emplace_back("GLTRACE_CAPTURE_FRAMEBUFFER", o.framebuffer);
  if (o.no_texture_data) options.env.emplace_back("GLTRACE_TEXTURE_DATA", "0");
  if (o.thread_time) options.env.emplace_back("GLTRACE_THREAD_TIME", "1");
  if (o.gpu_time) options.env.emplace_back("GLTRACE_GPU_TIME", "1");
  if (!o.portable.empty()) {
    if (o.start_frame != 0 || o.start_after > 0)
      return line.usage_error(
          "--portable shapes what the app sees from its start: it takes no "
          "--start-frame or --start-after");
    options.env.emplace_back("GLTRACE_CAPTURE_PORTABLE", o.portable);
  }
  if (o.zstd_level != 0)
    options.env.emplace_back("GLTRACE_ZSTD_LEVEL", std::to_string(o.zstd_level));
  // The app may change its working directory (piglit does): make it absolute.
  if (!output.empty()) output = absolute_path(output);
  // Checked before the app starts: the trace layer cannot report a failure to
  // open the file other than by a line in the app's stderr.
  if (!output.empty() && !check_output(kName, output)) return kExitFailure;
  if (!output.empty()) make_room_for_output(kName, output);
  options.env.emplace_back("GLTRACE_TRACE_FILE", output);
  options.env.emplace_back("GLTRACE_TRACE_MODE", mode);
  if (o.start_frame != 0 || o.start_after > 0) {
    // The trace layer loads as a live layer: the app runs untraced (but
    // traceable) until the start, then the trace begins with a snapshot.
    options.env.emplace_back("GLTRACE_LIVE", mode);
    char start[64];
    if (o.start_frame != 0)
      snprintf(start, sizeof start, "frame:%llu", static_cast<unsigned long long>(o.start_frame));
    else
      snprintf(start, sizeof start, "after:%.17g", o.start_after);
    options.env.emplace_back("GLTRACE_LIVE_START", start);
    if (o.frames != 0) options.env.emplace_back("GLTRACE_LIVE_FRAMES", std::to_string(o.frames));
  } else if (o.frames != 0) {
    return line.usage_error("--frames goes with --start-frame or --start-after");
  } else {
    options.layers = options.layers ? *options.layers + ":libGLES_trace.so" : "libGLES_trace.so";
  }
  if (output.empty()) return launch_app(kName, options);  // text on the app's stderr

  return run_and_report(options, output, mode);
}

}  // namespace

void register_trace(Commands& commands) {
  auto options = std::make_shared<TraceOptions>();
  CommandLine& line =
      commands.add(kName, "run an app and record every EGL/GLES call it makes to a trace file",
                   [options](const CommandLine& line) { return trace(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Runs APP with the trace layer below any other layers and records every EGL\n"
      "and GLES call to FILE. Each process that makes GL calls gets a file of its\n"
      "own: the first FILE, the others FILE's stem, their process name and pid\n"
      "(x.gltrace: x.NAME.PID.gltrace). A FILE that is a directory (or ends in /)\n"
      "holds NAME.PID.gltrace files. In FILE, %p is replaced by the process id\n"
      "and %n by the process name.");
  app.add_option("-o,--output", options->output,
                 "the output (required in full and systrace modes; the log and error modes "
                 "write to stderr without it)")
      ->type_name("FILE");
  app.add_option("--mode", options->mode,
                 "full: every call, binary trace (default);\n"
                 "log: every call as a readable line\n"
                 "error: glGetError after every GL call; errors reported with the call and a "
                 "call stack (the app still sees them);\n"
                 "systrace: Chrome/Perfetto JSON timeline, one slice per call")
      ->type_name("MODE")
      ->check(one_of(trace_modes()));
  app.add_option("--framebuffer", options->framebuffer,
                 "read the framebuffer back and store it in the trace (see `gltrace frames`): "
                 "swap (at every eglSwapBuffers), draw (after every draw call: slow), or "
                 "swap,draw")
      ->type_name("WHEN")
      ->check(one_of({"swap", "draw", "swap,draw"}));
  app.add_flag("--no-texture-data", options->no_texture_data,
               "record texture uploads without their pixels (smaller traces; such traces do "
               "not replay textures)");
  app.add_flag("--portable{es3.0}", options->portable,
               "show the app its driver through PROFILE (default es3.0), so that the trace "
               "replays on other GPUs: the GLES and GLSL versions at most the profile's, only "
               "its extensions, its limits (spec/portable_profiles.toml), no program binaries, "
               "no context of a higher version")
      ->type_name("PROFILE")
      ->check(one_of(profile_names()));
  app.add_flag("--thread-time", options->thread_time,
               "also record each call's thread CPU time (a system call per call)");
  app.add_flag("--gpu-time", options->gpu_time,
               "also record what each draw, clear, blit and dispatch cost the GPU: timer "
               "queries (GL_EXT_disjoint_timer_query) around it, read at later swaps without "
               "waiting for the GPU (`gltrace stats`, `dump`, `export` and `view` show them)");
  app.add_option("--zstd-level", options->zstd_level,
                 "zstd compression level of the trace's chunks, 1 (fastest) to 22 (smallest); "
                 "default 1 (GLTRACE_ZSTD_LEVEL)")
      ->type_name("N")
      ->check(in_range(1, 22));
  CLI::Option* start_frame =
      app.add_option("--start-frame", options->start_frame,
                     "trace from the app's frame N on (its Nth eglSwapBuffers, or an off-screen "
                     "program's glFinish frame end): the trace begins with a snapshot of what the "
                     "app made before, and replays from there")
          ->type_name("N")
          ->check(in_range(1, 1000000000));
  app.add_option("--start-after", options->start_after,
                 "trace from S seconds after the app loaded EGL on, as --start-frame")
      ->type_name("S")
      ->check(CLI::PositiveNumber)
      ->excludes(start_frame);
  app.add_option("--frames", options->frames,
                 "with --start-frame or --start-after: stop after N frames (the app runs on "
                 "untraced)")
      ->type_name("N")
      ->check(in_range(1, 1000000000));
  add_launch_options(line, &options->launch);
  app.footer(
      "With -o, gltrace checks that FILE can be written before it starts APP,\n"
      "runs APP as its child, and then reads what was written: `wrote N calls,\n"
      "M frames, X MB to FILE (NAME, pid PID)` per file, with a warning for a trace\n"
      "with no EGL, GLX or GL call or no frame, and for one cut short, however\n"
      "APP ended. A FILE left by an earlier run is replaced; one that\n"
      "another process is writing now is left alone (this run's first process\n"
      "then gets a derived name too). Ctrl-C reaches APP.\n"
      "--layers adds layers above the trace layer.\n"
      "\n"
      "Exit status: APP's own when it fails (128+N when signal N ended it, 127\n"
      "when it cannot be executed); otherwise 1 when FILE cannot be written (APP\n"
      "is then not started) or a file written is no readable trace or none was\n"
      "written, 0 otherwise;\n"
      "2 for bad usage. Without -o, gltrace becomes APP as `gltrace run` does.");
}

}  // namespace gltrace::cli
