// `gltrace stats`: where the time goes, per function and per frame.
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/stats.h"

namespace gltrace::cli {

namespace {
constexpr char kName[] = "stats";
}

namespace {

struct StatsOptions {
  std::string path;
  size_t max_frames = 50;
};

int stats_command(const StatsOptions& o) {
  const std::string& path = o.path;
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  consumers::StatsCollector stats(o.max_frames);
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, stats, &status);
  int exit_status = finish_reading(kName, path, ok, status);
  stats.print(stdout);
  return exit_status;
}

}  // namespace

void register_stats(Commands& commands) {
  auto options = std::make_shared<StatsOptions>();
  CommandLine& line =
      commands.add(kName, "time per function and per frame",
                   [options](const CommandLine&) { return stats_command(*options); });
  CLI::App& app = line.app();
  app.description(
      "Per function: calls, total, share, mean and max wall time, thread time.\n"
      "Per frame: calls, time spent in calls, frame time (the first N frames).");
  app.add_option("--frames-max", options->max_frames, "frames listed (default 50)")->type_name("N");
  app.add_option("TRACE", options->path, "the trace")->required();
}

}  // namespace gltrace::cli
