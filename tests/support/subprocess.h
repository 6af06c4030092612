// Runs a child process for integration tests and captures what it printed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gltrace::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal or the timeout
  int term_signal = 0;
  bool core_dumped = false;  // killed by a signal, with a core dump
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Environment changes for the child: a value sets the variable, nullopt unsets it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

ProcessResult run_process(const std::vector<std::string>& argv, const EnvChanges& env = {},
                          int timeout_seconds = 120, const std::string& cwd = "");

// A child running in the background, its output going to files (readable
// while it runs). The destructor kills it (and its process group) if needed.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, const EnvChanges& env,
                    const std::string& out_path, const std::string& err_path);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  int pid() const { return pid_; }
  void signal(int sig);
  bool running();
  // Waits for the exit (killing it after the timeout) and reads its output.
  ProcessResult wait(int timeout_seconds = 120);

 private:
  int pid_ = -1;
  bool done_ = false;
  int status_ = 0;
  std::string out_path_;
  std::string err_path_;
};

// Paths of the build tree, from compile definitions set by tests/CMakeLists.txt.
std::string build_bin(const std::string& name);        // build/bin/NAME
std::string build_lib(const std::string& relative);    // build/lib/gltrace/RELATIVE
std::string source_path(const std::string& relative);  // source tree

// A fresh private (0700) temporary directory, removed at process exit.
std::string make_temp_dir();

// Whole-file text I/O; write_text_file creates missing parent directories and
// throws on failure, read_text_file returns "" for a missing file.
void write_text_file(const std::string& path, const std::string& text);
std::string read_text_file(const std::string& path);

// Number of non-overlapping occurrences of needle in haystack.
size_t count_occurrences(const std::string& haystack, const std::string& needle);

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace gltrace::test
