// `gltrace stats`: where the time goes, per function and per frame.
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/stats.h"

namespace gltrace::cli {

const char kUsage_stats[] =
    "usage: gltrace stats [--frames-max N] TRACE\n"
    "\n"
    "Per function: calls, total, share, mean and max wall time, thread time.\n"
    "Per frame: calls, time spent in calls, frame time (first N frames, default 50).\n";

namespace {
constexpr char kName[] = "stats";
}

int cmd_stats(const std::vector<std::string>& args) {
  std::string path;
  size_t max_frames = 50;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      fputs(kUsage_stats, stdout);
      return kExitOk;
    } else if (args[i] == "--frames-max" && i + 1 < args.size()) {
      max_frames = strtoull(args[++i].c_str(), nullptr, 10);
    } else if (args[i][0] == '-' && args[i] != "-") {
      return usage_error(kName, "unknown option '" + args[i] + "'");
    } else {
      path = args[i];
    }
  }
  if (path.empty()) return usage_error(kName, "missing TRACE");
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  consumers::StatsCollector stats(max_frames);
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, stats, &status);
  int exit_status = finish_reading(kName, path, ok, status);
  stats.print(stdout);
  return exit_status;
}

}  // namespace gltrace::cli
