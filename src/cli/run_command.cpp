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
#include "common/process.h"

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
};

int run(RunOptions& options, const CommandLine& line) {
  if (int status = take_app(line, &options.launch); status != kExitOk) return status;
  if (!options.traceable.empty())
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
  app.footer("The bundled layers directory is prepended to GLTRACE_LAYER_PATH.");
}

}  // namespace gltrace::cli
