// `gltrace dump`: every call as readable text.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/dump.h"

namespace gltrace::cli {

const char kUsage_dump[] =
    "usage: gltrace dump [options] TRACE\n"
    "\n"
    "Prints every call of TRACE (\"-\" reads standard input): number, function,\n"
    "arguments with enums by name, pointer data summarised, return value.\n"
    "\n"
    "options:\n"
    "  --calls N-M        only calls N to M (by call number; N-, -M, N also work)\n"
    "  --frames N-M       only frames N to M\n"
    "  --thread N         only calls of thread N\n"
    "  --context N        only calls made with context N current\n"
    "  --function REGEX   only functions whose name matches REGEX\n"
    "  --timing           print each call's start time, duration, thread and context\n"
    "  -o, --output FILE  write to FILE instead of standard output (a progress line\n"
    "                     on stderr then, when it is a terminal)\n"
    "\n"
    "With --calls, --thread, --context or --function, a frame's `// end of frame`\n"
    "line is printed only when a call of that frame was; with --frames alone,\n"
    "every frame's in the range is.\n";

namespace {
constexpr char kName[] = "dump";
}

int cmd_dump(const std::vector<std::string>& args) {
  consumers::DumpFilter filter;
  std::string path, output;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      fputs(kUsage_dump, stdout);
      return kExitOk;
    } else if (arg == "-o" || arg == "--output") {
      if (!value(&output)) return usage_error(kName, arg + " needs a FILE");
    } else if (arg == "--timing") {
      filter.timing = true;
    } else if (arg == "--calls") {
      if (!value(&v) || !parse_range(v, &filter.first_call, &filter.last_call))
        return usage_error(kName, "--calls needs a range like 100-200");
    } else if (arg == "--frames") {
      if (!value(&v) || !parse_range(v, &filter.first_frame, &filter.last_frame))
        return usage_error(kName, "--frames needs a range like 2-5");
    } else if (arg == "--thread" || arg == "--context") {
      uint64_t n, unused;
      if (!value(&v) || !parse_range(v, &n, &unused) || n != unused)
        return usage_error(kName, arg + " needs a number");
      (arg == "--thread" ? filter.thread : filter.context) = static_cast<uint32_t>(n);
    } else if (arg == "--function") {
      if (!value(&v)) return usage_error(kName, "--function needs a regular expression");
      try {
        filter.function.emplace(v, std::regex::extended);
      } catch (const std::regex_error& e) {
        return usage_error(kName, "bad --function regular expression: " + std::string(e.what()));
      }
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return usage_error(kName, "unknown option '" + arg + "'");
    } else if (path.empty()) {
      path = arg;
    } else {
      return usage_error(kName, "more than one TRACE");
    }
  }
  if (path.empty()) return usage_error(kName, "missing TRACE");
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  FILE* out = output.empty() ? stdout : fopen(output.c_str(), "w");
  if (out == nullptr) {
    perror(("gltrace dump: " + output).c_str());
    return kExitFailure;
  }
  consumers::Dumper dumper(out, std::move(filter));
  format::ReadStatus status;
  // The dump on the terminal is its own progress: a line only when it goes elsewhere.
  bool ok = out != stdout || isatty(STDOUT_FILENO) != 1
                ? read_trace_showing_progress(kName, path, reader, dumper, &status)
                : format::read_trace_prefetched(reader, dumper, &status);
  dumper.flush();
  bool written = fflush(out) == 0 && ferror(out) == 0;
  if (out != stdout && fclose(out) != 0) written = false;
  if (!written) {
    fprintf(stderr, "gltrace dump: writing %s failed\n",
            output.empty() ? "standard output" : output.c_str());
    return kExitFailure;
  }
  return finish_reading(kName, path, ok, status);
}

}  // namespace gltrace::cli
