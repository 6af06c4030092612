// `gltrace export`: a full trace as a timeline for trace viewers, in
// Perfetto's protobuf format (default) or Chrome's JSON trace events.
#include <unistd.h>

#include <cstdio>
#include <unordered_map>
#include <vector>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/frame_end.h"
#include "consumers/gpu_time_join.h"
#include "consumers/trace_events.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "export";

class JsonExporter : public format::Consumer {
 public:
  explicit JsonExporter(FILE* out) : events_(out) {}
  void on_header(const format::Header& h) override {
    pid_ = h.pid;
    events_.begin(pid_, h.process_name);
  }
  void on_thread(const format::Thread& t) override {
    tids_[t.index] = t.tid;
    events_.thread_name(pid_, t.tid, t.name);
  }
  void on_call(const format::Call& call) override {
    const char* name =
        call.function < api::kFunctionIdLimit ? api::kFunctionInfo[call.function].name : nullptr;
    events_.slice(pid_, tids_[call.thread], name != nullptr ? name : "?", call.start_ns,
                  call.duration_ns);
  }
  void on_frame(const format::Frame& frame) override {
    events_.frame(pid_, tids_[frame.thread], frame.number, frame.time_ns);
  }
  void finish() { events_.end(); }

 private:
  consumers::TraceEventWriter events_;
  uint32_t pid_ = 0;
  std::unordered_map<uint32_t, uint64_t> tids_;
};

class PerfettoExporter : public format::Consumer {
 public:
  PerfettoExporter(FILE* out, consumers::PerfettoWriter::Compression compression)
      : writer_(out, compression) {}
  void on_header(const format::Header& h) override {
    writer_.process(h.pid, h.process_name, h.command_line);
    // GPU times (trace --gpu-time) name their calls: the calls say their numbers.
    gpu_time_ = h.capture_options.find("gpu-time=on") != std::string_view::npos;
    writer_.call_numbers(gpu_time_);
  }
  void on_thread(const format::Thread& t) override { writer_.thread(t.index, t.tid, t.name); }
  void on_call(const format::Call& call) override {
    writer_.call(call);
    if (gpu_time_) gpu_time_join_.on_call(call, frame_);
    if (consumers::ends_frame(call)) ++frame_;
  }
  void on_blob(const format::Blob& blob) override { writer_.blob(blob); }
  void on_frame(const format::Frame& frame) override { writer_.frame(frame); }
  void on_gpu_clock(const format::GpuClock& clock) override {
    writer_.gpu_clock(clock.time_ns, clock.gpu_ns);
  }
  void on_gpu_time(const format::GpuTime& g) override {
    std::optional<consumers::TimedCall> taken = gpu_time_join_.take(g.seq);
    if (!taken) return;
    const consumers::TimedCall& call = *taken;
    const char* name = api::kFunctionInfo[call.function].name;
    extra_.clear();
    extra_.emplace_back("call", std::to_string(g.seq));
    extra_.emplace_back("function", name);
    if (g.disjoint) extra_.emplace_back("disjoint", "the GPU's clock may have jumped");
    using Writer = consumers::PerfettoWriter;
    writer_.gpu_stage({Writer::kGpuWork, name, Writer::kGpuCallStage,
                       api::has_role(call.function, api::kRoleDispatch), g.gpu_start_ns,
                       g.duration_ns, call.context, 0, call.frame, extra_});
  }
  bool finish(std::string* error) { return writer_.finish(error); }

 private:
  consumers::PerfettoWriter writer_;
  bool gpu_time_ = false;
  uint64_t frame_ = 0;
  consumers::GpuTimeJoin gpu_time_join_;  // the calls whose GPU time is still to come
  std::vector<std::pair<std::string_view, std::string>> extra_;
};

}  // namespace

namespace {

struct ExportOptions {
  std::string format = "perfetto";
  std::string compression = "zstd";
  bool perfetto = false;
  bool chrome = false;
  std::string output;
  std::string path;
};

int export_trace(const ExportOptions& o, const CommandLine& line) {
  const std::string& path = o.path;
  const std::string& output = o.output;
  const std::string& compression_name = o.compression;
  // --perfetto and --chrome exclude --format: with --perfetto it is the default.
  bool perfetto = !o.chrome && o.format == "perfetto";
  if (perfetto && output.empty() && isatty(STDOUT_FILENO) == 1)
    return line.usage_error(
        "the Perfetto format is binary: not written to a terminal (-o OUT, or --format json)");
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  FILE* out = output.empty() ? stdout : fopen(output.c_str(), "wb");
  if (out == nullptr) {
    perror(("gltrace export: " + output).c_str());
    return kExitFailure;
  }
  format::ReadStatus status;
  bool ok = false, written = true;
  std::string error;
  if (perfetto) {
    PerfettoExporter exporter(out, compression_name == "none"
                                       ? consumers::PerfettoWriter::Compression::kNone
                                       : consumers::PerfettoWriter::Compression::kZstd);
    ok = read_trace_showing_progress(kName, path, reader, exporter, &status);
    written = exporter.finish(&error);
  } else {
    JsonExporter exporter(out);
    ok = read_trace_showing_progress(kName, path, reader, exporter, &status);
    exporter.finish();
    written = fflush(out) == 0 && ferror(out) == 0;
  }
  if (out != stdout && fclose(out) != 0) written = false;
  int exit_status = finish_reading(kName, path, ok, status);
  if (!written) {
    fprintf(stderr, "gltrace export: writing %s failed\n",
            output.empty() ? "standard output" : output.c_str());
    return kExitFailure;
  }
  return exit_status;
}

}  // namespace

void register_export(Commands& commands) {
  auto options = std::make_shared<ExportOptions>();
  CommandLine& line =
      commands.add(kName, "a trace as a Perfetto or Chrome JSON timeline",
                   [options](const CommandLine& line) { return export_trace(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Writes TRACE as a timeline for trace viewers (docs/outputs.md). A progress\n"
      "line goes to stderr when it is a terminal.");
  CLI::Option* format =
      app.add_option("--format", options->format,
                     "perfetto: Perfetto's protobuf format (default; OUT.perfetto-trace): a "
                     "track per thread with a slice per call and its arguments, a frame track "
                     "with a slice per frame, counters of calls and data bytes per frame; opens "
                     "in ui.perfetto.dev and trace_processor. json: Chrome's JSON trace events "
                     "(OUT.json): a slice per call and an instant event per frame, without "
                     "arguments; opens in ui.perfetto.dev, chrome://tracing and speedscope")
          ->type_name("perfetto|json")
          ->check(one_of({"perfetto", "json"}));
  app.add_option("--compression", options->compression,
                 "zstd: the Perfetto packets zstd-compressed (default; Perfetto v58 and later "
                 "read them); none: plain packets, for older readers and for protoc "
                 "--decode=perfetto.protos.Trace proto/perfetto_subset.proto")
      ->type_name("zstd|none")
      ->check(one_of({"zstd", "none"}));
  CLI::Option* perfetto = app.add_flag("--perfetto", options->perfetto,
                                       "the same as --format perfetto (before the protobuf "
                                       "format, it wrote the JSON: use --format json for that)");
  app.add_flag("--chrome", options->chrome, "the same as --format json")
      ->excludes(perfetto)
      ->excludes(format);
  perfetto->excludes(format);
  app.add_option("-o,--output", options->output,
                 "the file to write (default: standard output, not a terminal for the protobuf "
                 "format)")
      ->type_name("OUT");
  app.add_option("TRACE", options->path, "the trace")->required();
}

}  // namespace gltrace::cli
