// `gltrace dump`: every call as readable text.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/dump.h"

namespace gltrace::cli {

namespace {
constexpr char kName[] = "dump";
}

namespace {

struct DumpOptions {
  consumers::DumpFilter filter;
  std::string calls, frames, function;
  std::optional<uint32_t> thread, context;
  std::string path, output;
};

int dump(DumpOptions& o, const CommandLine& line) {
  consumers::DumpFilter filter = std::move(o.filter);
  const std::string& path = o.path;
  const std::string& output = o.output;
  if (!o.calls.empty() && !parse_range(o.calls, &filter.first_call, &filter.last_call))
    return line.usage_error("--calls needs a range like 100-200, not '" + o.calls + "'");
  if (!o.frames.empty() && !parse_range(o.frames, &filter.first_frame, &filter.last_frame))
    return line.usage_error("--frames needs a range like 2-5, not '" + o.frames + "'");
  filter.thread = o.thread;
  filter.context = o.context;
  if (!o.function.empty()) {
    try {
      filter.function.emplace(o.function, std::regex::extended);
    } catch (const std::regex_error& e) {
      return line.usage_error("bad --function regular expression: " + std::string(e.what()));
    }
  }
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  FILE* out = output.empty() ? stdout : fopen(output.c_str(), "w");
  if (out == nullptr) {
    perror(("gltrace dump: " + output).c_str());
    return kExitFailure;
  }
  consumers::Dumper dumper(out, std::move(filter));
  format::ReadStatus status;
  // The dump on the terminal is its own progress: a line only when it goes
  // elsewhere. Chunks are decoded here, not ahead: the batch that carries
  // decoded records from one thread to the other cost an eighth of the
  // dump's instructions, and the dump took no longer without it.
  bool ok =
      out != stdout || isatty(STDOUT_FILENO) != 1
          ? read_trace_showing_progress(kName, path, reader, dumper, &status, ReadAhead::kRead)
          : format::read_trace_read_ahead(reader, dumper, &status);
  if (ok) dumper.finish();
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

}  // namespace

void register_dump(Commands& commands) {
  auto options = std::make_shared<DumpOptions>();
  CommandLine& line =
      commands.add(kName, "every call of a trace as readable text",
                   [options](const CommandLine& line) { return dump(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Prints every call of TRACE (\"-\" reads standard input): number, function,\n"
      "arguments with enums by name, pointer data summarised, return value.");
  app.add_option("--calls", options->calls,
                 "only calls N to M (by call number; N-, -M, N also work)")
      ->type_name("N-M");
  app.add_option("--frames", options->frames, "only frames N to M")->type_name("N-M");
  app.add_option("--thread", options->thread, "only calls of thread N")->type_name("N");
  app.add_option("--context", options->context, "only calls made with context N current")
      ->type_name("N");
  app.add_option("--function", options->function, "only functions whose name matches REGEX")
      ->type_name("REGEX");
  app.add_option("-o,--output", options->output,
                 "write to FILE instead of standard output (a progress line on stderr then, "
                 "when it is a terminal)")
      ->type_name("FILE");
  app.add_flag("--timing", options->filter.timing,
               "print each call's start time, duration, thread and context");
  app.add_option("TRACE", options->path, "the trace")->required();
  app.footer(
      "With --calls, --thread, --context or --function, a frame's `// end of frame`\n"
      "line is printed only when a call of that frame was; with --frames alone,\n"
      "every frame's in the range is.");
}

}  // namespace gltrace::cli
