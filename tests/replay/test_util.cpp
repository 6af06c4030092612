#include "test_util.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <future>
#include <sstream>
#include <thread>

namespace gltrace::replay::test {

void within(std::chrono::seconds limit, const char* what, const std::function<void()>& fn) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread runner([&] {
    fn();
    done.set_value();
  });
  if (finished.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "HUNG: %s did not finish within %lld s\n", what,
                 static_cast<long long>(limit.count()));
    std::abort();
  }
  runner.join();
}

ConsoleRun run_with_console(IncrementSource& source, Executor& executor, ReplayOptions options,
                            const std::string& script) {
  int in[2];
  if (pipe(in) != 0) std::abort();
  // The script is small: it fits in the pipe, so writing it first cannot block.
  if (write(in[1], script.data(), script.size()) != static_cast<ssize_t>(script.size()))
    std::abort();
  close(in[1]);
  int out = memfd_create("replay-transcript", MFD_CLOEXEC);
  if (out < 0) std::abort();
  options.console_in = in[0];
  options.console_out = out;
  ConsoleRun run;
  within(std::chrono::seconds(20), "replay with a scripted console", [&] {
    Replayer replayer(source, executor, options);
    run.status = replayer.replay();
    run.stats = replayer.stats();
  });
  close(in[0]);
  off_t size = lseek(out, 0, SEEK_END);
  run.transcript.resize(static_cast<size_t>(size));
  if (pread(out, run.transcript.data(), run.transcript.size(), 0) != size) std::abort();
  close(out);
  return run;
}

std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  return lines;
}

}  // namespace gltrace::replay::test
