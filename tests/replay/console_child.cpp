// A replay of a synthetic trace on this process's terminal, for the tests
// that drive manual mode and Ctrl-C through a pseudo-terminal.
//   replay_console_child [replay options] [--count N] [--interval-us U]
//                        [--frame-every K] [--print-frames] [--hang-at I]
// Prints "first frame" once the replay runs (its SIGINT handler is in
// place), then "status: RESULT: MESSAGE"; exits 0 (finished, quit), 130
// (interrupted) or 1.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "replay/options.h"
#include "replay/replayer.h"
#include "synthetic.h"

using gltrace::replay::FrameTiming;
using gltrace::replay::Replayer;
using gltrace::replay::ReplayOptions;
using gltrace::replay::ReplayResult;
using gltrace::replay::ReplayStatus;
namespace test = gltrace::replay::test;

int main(int argc, char** argv) {
  std::string error;
  ReplayOptions options = gltrace::replay::parse_replay_options(argc, argv, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  size_t count = 200;
  uint64_t interval_us = 5000;
  size_t frame_every = 10;
  bool print_frames = false;
  long hang_at = -1;
  for (size_t i = 0; i < options.args.size(); ++i) {
    const std::string& arg = options.args[i];
    auto value = [&] { return i + 1 < options.args.size() ? options.args[++i] : std::string("0"); };
    if (arg == "--count") {
      count = std::stoul(value());
    } else if (arg == "--interval-us") {
      interval_us = std::stoull(value());
    } else if (arg == "--frame-every") {
      frame_every = std::stoul(value());
    } else if (arg == "--print-frames") {
      print_frames = true;
    } else if (arg == "--hang-at") {
      hang_at = std::stol(value());
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (options.help) {
    std::printf("%s%s", gltrace::replay::replay_options_help(),
                gltrace::replay::manual_help_text());
    return 0;
  }
  std::vector<test::Spec> specs = test::uniform_trace(count, interval_us * 1000, frame_every);
  if (hang_at >= 0 && static_cast<size_t>(hang_at) < specs.size())
    specs[static_cast<size_t>(hang_at)].hang_execute = true;
  test::SyntheticSource source(specs);
  test::SyntheticExecutor executor;
  bool first = true;
  options.on_frame = [&](const FrameTiming& timing) {
    if (first || print_frames) {
      std::printf(first ? "first frame\n" : "frame %llu\n",
                  static_cast<unsigned long long>(timing.frame));
      std::fflush(stdout);
    }
    first = false;
  };
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  Replayer replayer(source, executor, options);
  ReplayStatus status = replayer.replay();
  std::printf("status: %s: %s\n", gltrace::replay::to_string(status.result),
              status.message.c_str());
  if (status.result == ReplayResult::kInterrupted) return 130;
  return status.ok() ? 0 : 1;
}
