// `gltrace run`: start an app with the gltrace loader active. gltrace sets up
// the environment and then becomes the app (execvp), so signals, the exit
// status and the process id are the app's own. (`gltrace trace` runs it as a
// child instead, to report on the trace when it exits: run_app_and_wait.)
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/trace_output.h"
#include "common/process.h"
#include "settings/known.h"
#include "settings/live_config.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "run";

std::string canonical(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

// <dir of our executable>/../lib/gltrace, the same in the build tree and an install.
std::string find_lib_dir(std::string* error) {
  const std::string& exe = executable_path();
  if (exe.empty()) {
    *error = "cannot find the gltrace executable's own path (/proc/self/exe)";
    return "";
  }
  std::string prefix = canonical(dirname_of(exe) + "/..");
  if (prefix.empty()) prefix = dirname_of(exe) + "/..";
  std::string expected = prefix + "/lib/gltrace";
  std::string lib_dir = canonical(expected);
  if (lib_dir.empty() || access((lib_dir + "/libgltrace.so").c_str(), F_OK) != 0) {
    *error = "interposer library not found: " + (lib_dir.empty() ? expected : lib_dir) +
             "/libgltrace.so (is gltrace fully built or installed?)";
    return "";
  }
  return lib_dir;
}

// Ours first, so it wins over whatever the caller already had.
void prepend_env(const char* name, const std::string& value, bool verbose) {
  const char* old = getenv(name);
  std::string combined = value;
  if (old != nullptr && old[0] != '\0') combined += std::string(":") + old;
  setenv(name, combined.c_str(), 1);
  if (verbose) fprintf(stderr, "gltrace run: %s=%s\n", name, combined.c_str());
}

void set_env(const char* name, const std::string& value, bool verbose) {
  setenv(name, value.c_str(), 1);
  if (verbose) fprintf(stderr, "gltrace run: %s=%s\n", name, value.c_str());
}

}  // namespace

void add_launch_options(CommandLine& line, LaunchOptions* options) {
  CLI::App& app = line.app();
  app.add_option("--layers", options->layers,
                 "layers to load, top (nearest the app) first, by file name such as "
                 "libGLLayer.so, ':'-separated; sets DEBUG_GLES_LAYERS, the analogue of "
                 "Android's `setprop debug.gles.layers`")
      ->type_name("LAYERS");
  app.add_flag("--dropin", options->dropin,
               "put the drop-in libEGL.so.1/libGLESv2.so.2 on LD_LIBRARY_PATH instead of "
               "preloading libgltrace.so");
  app.add_flag("--loader-debug", options->loader_debug,
               "log every loader decision to stderr (GLTRACE_LOADER_DEBUG=1)");
  line.set_operands({"[--] APP [ARGS...]"});
  line.pass_operands_through();
}

int take_app(const CommandLine& line, LaunchOptions* options) {
  if (line.operands().empty()) return line.usage_error("missing APP");
  options->app = line.operands();
  return kExitOk;
}

namespace {

// Puts the loader (and the options' variables) in this process's environment,
// for the app to inherit; kExitOk or kExitFailure after printing why.
int set_up_environment(const char* command, const LaunchOptions& options) {
  std::string error;
  std::string lib_dir = find_lib_dir(&error);
  if (lib_dir.empty()) {
    fprintf(stderr, "gltrace %s: %s\n", command, error.c_str());
    return kExitFailure;
  }
  bool verbose = options.loader_debug;
  if (options.dropin) {
    std::string dropin_dir = lib_dir + "/dropin";
    if (access((dropin_dir + "/libEGL.so.1").c_str(), F_OK) != 0) {
      fprintf(stderr, "gltrace %s: drop-in libraries not found: %s/libEGL.so.1\n", command,
              dropin_dir.c_str());
      return kExitFailure;
    }
    prepend_env("LD_LIBRARY_PATH", dropin_dir, verbose);
  } else {
    prepend_env("LD_PRELOAD", lib_dir + "/libgltrace.so", verbose);
  }
  if (options.layers) set_env("DEBUG_GLES_LAYERS", *options.layers, verbose);
  prepend_env("GLTRACE_LAYER_PATH", lib_dir + "/layers", verbose);
  if (options.loader_debug) set_env("GLTRACE_LOADER_DEBUG", "1", verbose);
  for (const auto& [name, value] : options.env) set_env(name.c_str(), value, verbose);
  return kExitOk;
}

std::vector<char*> app_argv(const LaunchOptions& options) {
  std::vector<char*> argv;
  for (const auto& arg : options.app) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  return argv;
}

volatile sig_atomic_t g_app_pid = 0;

// Passes a signal on to the app, but for a Ctrl-C or Ctrl-\ typed at the
// terminal (si_code SI_KERNEL): the terminal sent that to the app's process
// group already, and a second one would look like a second keypress. A kill()
// aimed at us alone (a script stopping `gltrace trace`) must reach the app.
void forward_signal(int signal, siginfo_t* info, void*) {
  bool from_terminal =
      (signal == SIGINT || signal == SIGQUIT) && info != nullptr && info->si_code == SI_KERNEL;
  if (g_app_pid > 0 && !from_terminal) kill(static_cast<pid_t>(g_app_pid), signal);
}

}  // namespace

int launch_app(const char* command, const LaunchOptions& options) {
  if (int status = set_up_environment(command, options); status != kExitOk) return status;
  std::vector<char*> argv = app_argv(options);
  fflush(stdout);
  execvp(argv[0], argv.data());
  int err = errno;
  fprintf(stderr, "gltrace %s: cannot execute %s: %s\n", command, argv[0], strerror(err));
  return 127;
}

int run_app_and_wait(const char* command, const LaunchOptions& options, bool* started) {
  *started = false;
  if (int status = set_up_environment(command, options); status != kExitOk) return status;
  std::vector<char*> argv = app_argv(options);
  // The child reports a failed exec through this pipe (closed on a successful one).
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    fprintf(stderr, "gltrace %s: pipe: %s\n", command, strerror(errno));
    return kExitFailure;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "gltrace %s: fork: %s\n", command, strerror(errno));
    close(exec_error[0]);
    close(exec_error[1]);
    return kExitFailure;
  }
  if (pid == 0) {
    close(exec_error[0]);
    execvp(argv[0], argv.data());
    int err = errno;
    (void)!write(exec_error[1], &err, sizeof err);
    _exit(127);
  }
  close(exec_error[1]);
  // Like a shell running a command: Ctrl-C and Ctrl-\ reach the app from the
  // terminal, and we stay to report; a signal sent to us alone is passed on.
  g_app_pid = pid;
  constexpr int kSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
  struct sigaction old_actions[std::size(kSignals)];
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction action {};
    action.sa_sigaction = &forward_signal;
    action.sa_flags = SA_SIGINFO;
    sigaction(kSignals[i], &action, &old_actions[i]);
  }
  int err = 0;
  ssize_t n;
  while ((n = read(exec_error[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(exec_error[0]);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  g_app_pid = 0;
  for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_actions[i], nullptr);
  if (n == static_cast<ssize_t>(sizeof err)) {
    fprintf(stderr, "gltrace %s: cannot execute %s: %s\n", command, argv[0], strerror(err));
    return 127;
  }
  *started = true;
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WEXITSTATUS(wait_status);
}

namespace {

struct RunOptions {
  LaunchOptions launch;
  std::string traceable;  // GLTRACE_LIVE
  std::string control_socket;
  std::string control_tcp;
  uint64_t flight_frames = 0;   // GLTRACE_FLIGHT
  uint64_t flight_mb = 0;       // GLTRACE_FLIGHT_MB (0: the default)
  std::string flight_watchdog;  // seconds, as the setting takes them
  std::string flight_signal;    // USR1, USR2
  std::string output;           // GLTRACE_TRACE_FILE
};

// The flight recorder's variables; kExitOk or the usage error.
int set_flight_env(RunOptions& options, const CommandLine& line) {
  std::vector<std::pair<std::string, std::string>>& env = options.launch.env;
  if (options.flight_frames == 0) {
    const char* needs = options.flight_mb != 0             ? "--flight-mb"
                        : !options.flight_watchdog.empty() ? "--flight-watchdog"
                        : !options.flight_signal.empty()   ? "--flight-signal"
                        : !options.output.empty()          ? "--output"
                                                           : nullptr;
    if (needs != nullptr)
      return line.usage_error(std::string(needs) + " goes with --flight-recorder");
    return kExitOk;
  }
  // It keeps whole calls to replay: a text mode has none.
  if (!options.traceable.empty() && options.traceable != "full")
    return line.usage_error("--flight-recorder needs the full mode, not --traceable=" +
                            options.traceable);
  env.emplace_back("GLTRACE_LIVE", "full");
  env.emplace_back("GLTRACE_FLIGHT", std::to_string(options.flight_frames));
  if (options.flight_mb != 0)
    env.emplace_back("GLTRACE_FLIGHT_MB", std::to_string(options.flight_mb));
  if (!options.flight_watchdog.empty())
    env.emplace_back("GLTRACE_FLIGHT_WATCHDOG", options.flight_watchdog);
  // In flight mode the start signal writes a flight trace.
  if (!options.flight_signal.empty())
    env.emplace_back("GLTRACE_LIVE_START", "signal:" + options.flight_signal);
  if (!options.output.empty()) {
    // The app may change its working directory: make it absolute.
    std::string output = absolute_path(options.output);
    if (!check_output(kName, output)) return kExitFailure;
    env.emplace_back("GLTRACE_TRACE_FILE", output);
  }
  return kExitOk;
}

int run(RunOptions& options, const CommandLine& line) {
  if (int status = take_app(line, &options.launch); status != kExitOk) return status;
  if (int status = set_flight_env(options, line); status != kExitOk) return status;
  if (!options.traceable.empty() && options.flight_frames == 0)
    options.launch.env.emplace_back("GLTRACE_LIVE", options.traceable);
  if (!options.control_socket.empty())
    options.launch.env.emplace_back("GLTRACE_CONTROL_SOCKET", options.control_socket);
  if (!options.control_tcp.empty())
    options.launch.env.emplace_back("GLTRACE_CONTROL_TCP", options.control_tcp);
  return launch_app(kName, options.launch);
}

}  // namespace

void register_run(Commands& commands) {
  auto options = std::make_shared<RunOptions>();
  CommandLine& line =
      commands.add(kName, "run an app with the gltrace loader (and any layers) active",
                   [options](const CommandLine& line) { return run(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Runs APP with the gltrace loader active. gltrace replaces itself with APP,\n"
      "so the exit status is APP's (127 when APP cannot be executed).");
  add_launch_options(line, &options->launch);
  app.add_flag("--traceable{full}", options->traceable,
               "make APP traceable: it runs untraced until a host attaches (gltrace ps, "
               "attach); MODE (full, log, error, systrace; default full) is what an attach "
               "records unless it says otherwise. Sets GLTRACE_LIVE; the settings "
               "debug.gltrace.trace / .proc / .start do the same persistently")
      ->type_name("MODE")
      ->check(one_of(trace_modes()));
  app.add_option("--control-socket", options->control_socket,
                 "the control socket's file name (GLTRACE_CONTROL_SOCKET)")
      ->type_name("NAME");
  app.add_option("--control-tcp", options->control_tcp,
                 "also listen on 127.0.0.1:PORT (0: any), with a token printed at start "
                 "(GLTRACE_CONTROL_TCP)")
      ->type_name("PORT")
      ->check(in_range(0, 65535));
  app.add_option("--flight-recorder", options->flight_frames,
                 "keep at least the last FRAMES frames in memory and write them as a trace "
                 "when APP crashes, hangs (--flight-watchdog), gets --flight-signal or "
                 "`gltrace flight` asks; the trace begins with a snapshot and replays. "
                 "Makes APP traceable in full mode (GLTRACE_FLIGHT)")
      ->type_name("FRAMES")
      ->check(in_range(uint64_t{1}, uint64_t{1'000'000'000}));
  app.add_option("--flight-mb", options->flight_mb,
                 "the memory the kept frames may take, in MiB (default 256; GLTRACE_FLIGHT_MB)")
      ->type_name("MB")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--flight-watchdog", options->flight_watchdog,
                 "a frame longer than SECONDS writes the trace (default 10, 0: no watchdog; "
                 "GLTRACE_FLIGHT_WATCHDOG)")
      ->type_name("SECONDS")
      ->check(CLI::Validator(
          [](std::string& value) {
            return settings::check_setting_value(settings::kFlightWatchdog, value);
          },
          ""));
  app.add_option("--flight-signal", options->flight_signal,
                 "this signal writes the trace (kill -USR1 PID; GLTRACE_LIVE_START=signal:SIG)")
      ->type_name("USR1|USR2")
      ->check(one_of({"USR1", "USR2"}));
  app.add_option("-o,--output", options->output,
                 "where flight traces go: a directory (default the current one) or a file "
                 "pattern with %p (pid) and %n (process name) (GLTRACE_TRACE_FILE)")
      ->type_name("DIR|PATTERN");
  app.footer("The bundled layers directory is prepended to GLTRACE_LAYER_PATH.");
}

}  // namespace gltrace::cli
