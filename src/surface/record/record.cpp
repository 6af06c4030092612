#include "surface/record/record.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "common/process.h"
#include "surface/trace_io.h"

namespace gltrace::surface {
namespace {

constexpr char kPrefix[] = "gltrace surface record: ";
constexpr auto kStartTimeout = std::chrono::seconds(30);
constexpr auto kStopTimeout = std::chrono::seconds(10);

// The weston.ini of the compositor we start: a desktop shell with nothing of
// its own in the way (no panel, no on-screen keyboard) and no animations, so that what is recorded
// is where and how the clients' surfaces were shown, not a fade in progress.
constexpr char kWestonIni[] =
    "[core]\n"
    "idle-time=0\n"
    "[input-method]\n"
    "path=\n"
    "[shell]\n"
    "panel-position=none\n"
    "background-color=0xff202020\n"
    "animation=none\n"
    "close-animation=none\n"
    "startup-animation=none\n"
    "focus-animation=none\n";

volatile sig_atomic_t g_client = 0;

// Ctrl-C and termination are the client's to handle: it ends, then we stop
// the compositor and finish the trace. A Ctrl-C or Ctrl-\ typed at the
// terminal (si_code SI_KERNEL) reached the client's process group already; a
// signal sent to us alone is passed on.
void forward_signal(int sig, siginfo_t* info, void*) {
  const bool from_terminal =
      (sig == SIGINT || sig == SIGQUIT) && info != nullptr && info->si_code == SI_KERNEL;
  if (g_client > 0 && !from_terminal) kill(static_cast<pid_t>(g_client), sig);
}

void message(const std::string& text) { fprintf(stderr, "%s%s\n", kPrefix, text.c_str()); }

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "stopped";
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// A temporary directory removed with everything in it (one level: all we
// put there are files).
class TempDir {
 public:
  bool create(std::string& error) {
    std::string pattern = "/tmp/gltrace-surface-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      error = std::string("cannot create a temporary directory: ") + strerror(errno);
      return false;
    }
    path_ = pattern;
    return true;
  }
  const std::string& path() const { return path_; }
  ~TempDir() {
    if (path_.empty()) return;
    if (DIR* dir = opendir(path_.c_str())) {
      while (dirent* entry = readdir(dir)) {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
          unlink((path_ + "/" + entry->d_name).c_str());
      }
      closedir(dir);
    }
    rmdir(path_.c_str());
  }

 private:
  std::string path_;
};

bool can_connect(const std::string& socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_path.c_str());
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

std::string log_tail(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string tail;
  for (size_t i = lines.size() > 15 ? lines.size() - 15 : 0; i < lines.size(); ++i)
    tail += "  " + lines[i] + "\n";
  return tail;
}

// The module's line saying it stopped recording ("" if none).
std::string module_stopped(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("gltrace-surface-recorder: ");
    if (at != std::string::npos && line.find("recording stopped") != std::string::npos)
      return line.substr(at);
  }
  return "";
}

// Children of this process other than `except` (clients the client started
// and left behind become ours: we are their subreaper).
bool has_children_besides(pid_t except) {
  const std::string self = std::to_string(getpid());
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return false;
  bool found = false;
  while (dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(atoi(entry->d_name));
    if (pid <= 0 || pid == except) continue;
    std::ifstream stat("/proc/" + std::string(entry->d_name) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    const size_t close_paren = line.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(line.substr(close_paren + 1));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == self) {
      found = true;
      break;
    }
  }
  closedir(proc);
  return found;
}

// `compositor`: out of the terminal's process group, so that a Ctrl-C meant
// for the client does not stop it mid-recording; its files (the trace the
// module writes) private to the user, as gltrace's traces are.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env_set,
            const char* unset, const std::string& output_file, bool compositor) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (compositor) {
    setpgid(0, 0);
    umask(077);
  }
  // If the recorder is killed, what it started goes with it.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
  for (const std::string& kv : env_set) putenv(const_cast<char*>(kv.c_str()));
  if (unset != nullptr) unsetenv(unset);
  if (!output_file.empty()) {
    int fd = open(output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  fprintf(stderr, "%scannot run %s: %s\n", kPrefix, args[0], strerror(errno));
  _exit(127);
}

// Waits for `pid` up to `timeout`; false if it is still running.
bool wait_for(pid_t pid, int* status, std::chrono::steady_clock::duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

struct Counts {
  int surfaces = 0, buffers = 0, vsyncs = 0, displays = 0, transactions = 0;
};

Counts count(const Trace& trace) {
  Counts c;
  for (const Increment& inc : trace.increment()) {
    c.surfaces += inc.has_surface_creation();
    c.buffers += inc.has_buffer_update();
    c.vsyncs += inc.has_vsync_event();
    c.displays += inc.has_display_creation();
    c.transactions += inc.has_transaction();
  }
  return c;
}

// The stream the module wrote becomes a plain Trace that protoc decodes
// directly; a stream too large for one message stays a stream.
bool finish_trace(const std::string& path) {
  Trace trace;
  std::string error, warning;
  if (!read_trace(path, trace, error, &warning)) {
    message(error);
    return false;
  }
  if (!warning.empty()) message(warning);
  const Counts c = count(trace);
  std::string as_plain = path + ".tmp";
  const mode_t old_umask = umask(077);
  const bool written =
      trace.ByteSizeLong() < size_t{INT32_MAX} && write_trace(as_plain, trace, error);
  umask(old_umask);
  if (written) {
    if (rename(as_plain.c_str(), path.c_str()) != 0) {
      message("cannot replace " + path + ": " + strerror(errno) + "; it stays a stream");
      unlink(as_plain.c_str());
    }
  } else {
    unlink(as_plain.c_str());
    message(path + " stays a stream of increments (too large for one Trace message)");
  }
  fprintf(stderr,
          "%s%s: %d increments: %d displays, %d surfaces, %d buffer updates, %d transactions, "
          "%d vsyncs\n",
          kPrefix, path.c_str(), trace.increment_size(), c.displays, c.surfaces, c.buffers,
          c.transactions, c.vsyncs);
  return true;
}

}  // namespace

std::string find_recorder_module(std::string& error) {
  const std::string& exe = executable_path();
  if (exe.empty()) {
    error = "cannot find the gltrace executable's own path (/proc/self/exe)";
    return "";
  }
  const std::string expected =
      dirname_of(exe) + "/../lib/gltrace/weston/gltrace-surface-recorder.so";
  char resolved[PATH_MAX];
  if (realpath(expected.c_str(), resolved) == nullptr) {
    error = "the weston recorder module is not there: " + expected +
            " (gltrace was built without libweston-10-dev; tools/deps.sh installs it)";
    return "";
  }
  return resolved;
}

int record(const RecordOptions& options) {
  if (const char* display = getenv("WAYLAND_DISPLAY"); display != nullptr && display[0] != '\0') {
    message(std::string("WAYLAND_DISPLAY is set (") + display +
            "): a running compositor cannot be recorded from outside it. Recording needs "
            "gltrace's module inside weston; unset WAYLAND_DISPLAY to record under a headless "
            "weston started for the purpose, or start your own weston with "
            "GLTRACE_SURFACE_RECORD_FILE=FILE weston --modules=" +
            (options.module.empty() ? "PATH/gltrace-surface-recorder.so" : options.module) +
            " (see docs/surface.md)");
    return 1;
  }
  unsigned width = 0, height = 0;
  if (char tail = 0; !options.size.empty() &&
                     (sscanf(options.size.c_str(), "%ux%u%c", &width, &height, &tail) != 2 ||
                      width == 0 || height == 0)) {
    message("--size needs WIDTHxHEIGHT, not '" + options.size + "'");
    return 2;
  }
  if (options.renderer != "pixman" && options.renderer != "gl") {
    message("--renderer is pixman or gl, not '" + options.renderer + "'");
    return 2;
  }
  const std::string output = absolute(options.output);
  // FILE is removed first and rewritten at the end: only a regular file will do.
  if (struct stat st{}; lstat(output.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    message(output + " exists and is not a regular file");
    return 1;
  }
  std::string error;
  std::string module = options.module;
  if (module.empty()) module = find_recorder_module(error);
  if (module.empty()) {
    message(error);
    return 1;
  }
  TempDir work;
  if (!work.create(error)) {
    message(error);
    return 1;
  }
  // weston and its clients meet in XDG_RUNTIME_DIR; give them a private one
  // when the caller has none.
  const char* runtime = getenv("XDG_RUNTIME_DIR");
  std::string runtime_dir = runtime != nullptr && runtime[0] != '\0' ? runtime : "";
  if (runtime_dir.empty()) {
    runtime_dir = work.path();
    chmod(runtime_dir.c_str(), 0700);
    setenv("XDG_RUNTIME_DIR", runtime_dir.c_str(), 1);
  }
  const std::string ini = work.path() + "/weston.ini";
  {
    std::ofstream out(ini);
    out << kWestonIni;
    if (!out) {
      message("cannot write " + ini);
      return 1;
    }
  }
  // Remove what a previous recording left, so that a module that fails to
  // start cannot leave an old trace looking like this one.
  unlink(output.c_str());
  const std::string socket_name = "gltrace-surface-" + std::to_string(getpid());
  const std::string weston_log = work.path() + "/weston.log";
  std::vector<std::string> weston_argv = {"weston",
                                          "--backend=headless-backend.so",
                                          options.renderer == "gl" ? "--use-gl" : "--use-pixman",
                                          "--socket=" + socket_name,
                                          "--config=" + ini,
                                          "--modules=" + module,
                                          "--log=" + weston_log};
  if (!options.size.empty()) {
    weston_argv.push_back("--width=" + std::to_string(width));
    weston_argv.push_back("--height=" + std::to_string(height));
  }
  // Clients the client starts and leaves behind come back to us to be
  // waited for.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::vector<std::string> weston_env = {
      "GLTRACE_SURFACE_RECORD_FILE=" + output,
      std::string("GLTRACE_SURFACE_RECORD_CONTENTS=") + (options.contents ? "1" : "0")};
  const pid_t weston = spawn(weston_argv, weston_env, "WAYLAND_DISPLAY", weston_log, true);
  if (weston < 0) {
    message(std::string("cannot start weston: ") + strerror(errno));
    return 1;
  }
  const std::string socket_path = runtime_dir + "/" + socket_name;
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  int weston_status = 0;
  // Ready when the module has opened the trace (modules load after the
  // socket is made) and the socket answers.
  while (access(output.c_str(), F_OK) != 0 || !can_connect(socket_path)) {
    if (waitpid(weston, &weston_status, WNOHANG) == weston) {
      message("weston " + status_text(weston_status) + " before it was ready; its log:\n" +
              log_tail(weston_log));
      return 1;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(weston, SIGKILL);
      waitpid(weston, &weston_status, 0);
      message("weston did not start recording (" + output + ") and open its socket " + socket_path +
              " in 30 s; its log:\n" + log_tail(weston_log));
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  constexpr int kForwarded[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
  struct sigaction old_actions[std::size(kForwarded)];
  for (size_t i = 0; i < std::size(kForwarded); ++i) {
    struct sigaction action {};
    action.sa_sigaction = forward_signal;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(kForwarded[i], &action, &old_actions[i]);
  }
  const pid_t client =
      spawn(options.client, {"WAYLAND_DISPLAY=" + socket_name}, nullptr, "", false);
  g_client = client;
  int client_status = 0;
  bool client_done = client < 0;
  bool weston_failed = false;
  if (client < 0) message(std::string("cannot start the client: ") + strerror(errno));
  // Until the client and everything it left behind have ended.
  while (!client_done || has_children_besides(weston)) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (pid == client) {
      client_status = status;
      client_done = true;
      g_client = 0;
    } else if (pid == weston) {
      weston_status = status;
      weston_failed = true;
      message("weston " + status_text(status) + " while the clients ran; its log:\n" +
              log_tail(weston_log));
    }
  }
  for (size_t i = 0; i < std::size(kForwarded); ++i)
    sigaction(kForwarded[i], &old_actions[i], nullptr);
  if (!weston_failed) {
    kill(weston, SIGTERM);
    if (!wait_for(weston, &weston_status, kStopTimeout)) {
      message("weston did not stop in 10 s after SIGTERM; killed");
      kill(weston, SIGKILL);
      waitpid(weston, &weston_status, 0);
    } else if (!(WIFEXITED(weston_status) && WEXITSTATUS(weston_status) == 0)) {
      message("weston " + status_text(weston_status) + " when stopped; its log:\n" +
              log_tail(weston_log));
      weston_failed = true;
    }
  }
  if (access(output.c_str(), F_OK) != 0) {
    message("weston's recorder module wrote no trace; weston's log:\n" + log_tail(weston_log));
    return 1;
  }
  if (!finish_trace(output)) return 1;
  // The module could not write (a full disk): the trace stops there.
  const std::string stopped = module_stopped(weston_log);
  if (!stopped.empty()) message("the trace is incomplete: " + stopped);
  if (client < 0 || !stopped.empty()) return 1;
  if (!WIFEXITED(client_status) || WEXITSTATUS(client_status) != 0)
    message(options.client[0] + " " + status_text(client_status));
  if (weston_failed) return 1;
  return exit_code(client_status);
}

}  // namespace gltrace::surface
