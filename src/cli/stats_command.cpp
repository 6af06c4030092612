// `gltrace stats`: where the time goes, per function and per frame.
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/stats.h"

namespace gltrace::cli {

const char kUsage_stats[] =
    "usage: gltrace stats [--format text|csv|json] [--table functions|frames]\n"
    "                     [--frames-max N] TRACE\n"
    "\n"
    "Per function: calls; total, mean, p50, p95 and max wall time; the same of\n"
    "thread time when the trace recorded it (trace --thread-time), else n/a\n"
    "(null in JSON). Per frame: calls, time spent in calls, frame time (first N\n"
    "frames, default 50), and p50/p95/max frame time of all frames. GPU-side\n"
    "time is not recorded by traces: n/a (null).\n"
    "Percentiles come from a log-linear histogram: exact below 64 ns, else\n"
    "within 0.8%, in bounded memory.\n"
    "\n"
    "options:\n"
    "  --format text      a table to read (default)\n"
    "  --format csv       one table as CSV: per function, or per frame with\n"
    "                     --table frames\n"
    "  --format json      everything as one JSON object\n"
    "  --frames-max N     how many frames to list one by one\n";

namespace {
constexpr char kName[] = "stats";
}

int cmd_stats(const std::vector<std::string>& args) {
  std::string path;
  size_t max_frames = 50;
  std::string format_name = "text", table = "functions";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      fputs(kUsage_stats, stdout);
      return kExitOk;
    } else if (args[i] == "--frames-max" && i + 1 < args.size()) {
      uint64_t n = 0, last = 0;
      if (!parse_range(args[++i], &n, &last) || n != last)
        return usage_error(kName, "--frames-max needs a number");
      max_frames = static_cast<size_t>(n);
    } else if (args[i] == "--format" && i + 1 < args.size()) {
      format_name = args[++i];
    } else if (args[i] == "--table" && i + 1 < args.size()) {
      table = args[++i];
    } else if (args[i][0] == '-' && args[i] != "-") {
      return usage_error(kName, "unknown option '" + args[i] + "'");
    } else {
      path = args[i];
    }
  }
  if (path.empty()) return usage_error(kName, "missing TRACE");
  using Format = consumers::StatsCollector::Format;
  Format format = Format::kText;
  if (format_name == "csv")
    format = Format::kCsv;
  else if (format_name == "json")
    format = Format::kJson;
  else if (format_name != "text")
    return usage_error(kName, "--format is text, csv or json, not '" + format_name + "'");
  if (table != "functions" && table != "frames")
    return usage_error(kName, "--table is functions or frames, not '" + table + "'");
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  consumers::StatsCollector stats(max_frames);
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, stats, &status);
  int exit_status = finish_reading(kName, path, ok, status);
  stats.print(stdout, format, table == "frames");
  return exit_status;
}

}  // namespace gltrace::cli
