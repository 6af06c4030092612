// `gltrace export --perfetto`: a full trace as a Chrome/Perfetto JSON timeline.
#include <cstdio>
#include <unordered_map>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/trace_events.h"
#include "gltrace/api/functions.h"

namespace gltrace::cli {

const char kUsage_export[] =
    "usage: gltrace export --perfetto [-o OUT.json] TRACE\n"
    "\n"
    "Writes TRACE as Chrome/Perfetto trace events (the systrace mode's format):\n"
    "one slice per call on its thread's track, an instant event per frame.\n"
    "Open it in ui.perfetto.dev or chrome://tracing. Without -o, to stdout.\n";

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

int cmd_export(const std::vector<std::string>& args) {
  std::string path, output;
  bool perfetto = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      fputs(kUsage_export, stdout);
      return kExitOk;
    } else if (args[i] == "--perfetto" || args[i] == "--chrome") {
      perfetto = true;
    } else if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size()) {
      output = args[++i];
    } else if (args[i][0] == '-' && args[i] != "-") {
      return usage_error(kName, "unknown option '" + args[i] + "'");
    } else {
      path = args[i];
    }
  }
  if (!perfetto) return usage_error(kName, "say which format: --perfetto");
  if (path.empty()) return usage_error(kName, "missing TRACE");
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

}  // namespace gltrace::cli
