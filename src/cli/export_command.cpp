// `gltrace export --perfetto`: a full trace as a Chrome/Perfetto JSON timeline.
#include <cstdio>
#include <unordered_map>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/trace_events.h"
#include "gltrace/api/functions.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "export";

class Exporter : public format::Consumer {
 public:
  explicit Exporter(FILE* out) : events_(out) {}
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
                  call.duration_ns, call.seq, call.context);
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

}  // namespace

namespace {

struct ExportOptions {
  bool perfetto = false;
  std::string output;
  std::string path;
};

int export_trace(const ExportOptions& o, const CommandLine& line) {
  const std::string& path = o.path;
  const std::string& output = o.output;
  if (!o.perfetto) return line.usage_error("say which format: --perfetto");
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  FILE* out = output.empty() ? stdout : fopen(output.c_str(), "w");
  if (out == nullptr) {
    perror(("gltrace export: " + output).c_str());
    return kExitFailure;
  }
  Exporter exporter(out);
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, exporter, &status);
  exporter.finish();
  if (out != stdout) fclose(out);
  return finish_reading(kName, path, ok, status);
}

}  // namespace

void register_export(Commands& commands) {
  auto options = std::make_shared<ExportOptions>();
  CommandLine& line =
      commands.add(kName, "a trace as a Chrome/Perfetto JSON timeline",
                   [options](const CommandLine& line) { return export_trace(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Writes TRACE as Chrome/Perfetto trace events (the systrace mode's format):\n"
      "one slice per call on its thread's track, an instant event per frame.\n"
      "Open it in ui.perfetto.dev or chrome://tracing.");
  app.add_flag("--perfetto,--chrome", options->perfetto,
               "the Chrome/Perfetto JSON format (the only one; it must be named)");
  app.add_option("-o,--output", options->output, "where to write (default: standard output)")
      ->type_name("OUT.json");
  app.add_option("TRACE", options->path, "the trace")->required();
}

}  // namespace gltrace::cli
