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

const char kUsage_run[] =
    "usage: gltrace run [--layers L1:L2:...] [--dropin] [--loader-debug]\n"
    "                   [--traceable[=MODE]] [--control-socket NAME] [--control-tcp PORT]\n"
    "                   [--] APP [ARGS...]\n"
    "\n"
    "Runs APP with the gltrace loader active. gltrace replaces itself with APP,\n"
    "so the exit status is APP's (127 when APP cannot be executed).\n"
    "\n"
    "options:\n"
    "  --layers L1:L2   layers to load, top (nearest the app) first, by file name\n"
    "                   such as libGLLayer.so; sets DEBUG_GLES_LAYERS, the analogue\n"
    "                   of Android's `setprop debug.gles.layers`\n"
    "  --dropin         put the drop-in libEGL.so.1/libGLESv2.so.2 on LD_LIBRARY_PATH\n"
    "                   instead of preloading libgltrace.so\n"
    "  --loader-debug   log every loader decision to stderr (GLTRACE_LOADER_DEBUG=1)\n"
    "  --traceable[=MODE]  make APP traceable: it runs untraced until a host\n"
    "                   attaches (gltrace ps, attach); MODE (full, log, error,\n"
    "                   systrace; default full) is what an attach records unless it\n"
    "                   says otherwise. Sets GLTRACE_LIVE; the settings\n"
    "                   debug.gltrace.trace / .proc / .start do the same persistently\n"
    "  --control-socket NAME  the control socket's file name (GLTRACE_CONTROL_SOCKET)\n"
    "  --control-tcp PORT     also listen on 127.0.0.1:PORT (0: any), with a token\n"
    "                   printed at start (GLTRACE_CONTROL_TCP)\n"
    "\n"
    "The bundled layers directory is prepended to GLTRACE_LAYER_PATH.\n";

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

int parse_launch_options(const char* command, const std::vector<std::string>& args,
                         LaunchOptions* options, const ExtraOption& extra) {
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;  // APP: everything after it is the app's
    if (arg == "--dropin") {
      options->dropin = true;
    } else if (arg == "--loader-debug") {
      options->loader_debug = true;
    } else if (arg == "--layers") {
      if (i + 1 >= args.size()) return usage_error(command, "--layers needs a value");
      options->layers = args[++i];
    } else if (arg.compare(0, 9, "--layers=") == 0) {
      options->layers = arg.substr(9);
    } else {
      int status = extra ? extra(args, &i) : -1;
      if (status == -1) return usage_error(command, "unknown option '" + arg + "'");
      if (status != kExitOk) return status;
    }
  }
  if (i >= args.size()) return usage_error(command, "missing APP");
  options->app.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
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

int cmd_run(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage_run, stdout);
      return kExitOk;
    }
  }
  LaunchOptions options;
  int status = parse_launch_options(
      kName, args, &options, [&](const std::vector<std::string>& a, size_t* i) {
        const std::string& arg = a[*i];
        if (arg == "--traceable" || arg.compare(0, 12, "--traceable=") == 0) {
          std::string mode = arg.size() > 12 ? arg.substr(12) : "full";
          if (mode != "full" && mode != "log" && mode != "error" && mode != "systrace")
            return usage_error(kName, "unknown mode '" + mode + "' (full, log, error, systrace)");
          options.env.emplace_back("GLTRACE_LIVE", mode);
          return kExitOk;
        }
        if (arg == "--control-socket" || arg == "--control-tcp") {
          if (*i + 1 >= a.size()) return usage_error(kName, arg + " needs a value");
          options.env.emplace_back(
              arg == "--control-tcp" ? "GLTRACE_CONTROL_TCP" : "GLTRACE_CONTROL_SOCKET", a[++*i]);
          return kExitOk;
        }
        return -1;
      });
  return status != kExitOk ? status : launch_app(kName, options);
}

}  // namespace gltrace::cli
