// `gltrace export`: a full trace as a timeline for trace viewers, in
// Perfetto's protobuf format (default) or Chrome's JSON trace events.
#include <unistd.h>

#include <cstdio>
#include <unordered_map>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/trace_events.h"
#include "gltrace/api/functions.h"

namespace gltrace::cli {

const char kUsage_export[] =
    "usage: gltrace export [--perfetto] [--format perfetto|json] [--compression zstd|none]\n"
    "                      [-o OUT] TRACE\n"
    "\n"
    "Writes TRACE as a timeline for trace viewers (docs/outputs.md). A progress\n"
    "line goes to stderr when it is a terminal.\n"
    "\n"
    "options:\n"
    "  --format perfetto  Perfetto's protobuf format (default; OUT.perfetto-trace):\n"
    "                     a track per thread with a slice per call and its\n"
    "                     arguments, a frame track with a slice per frame,\n"
    "                     counters of calls and data bytes per frame. Opens in\n"
    "                     ui.perfetto.dev and trace_processor.\n"
    "  --format json      Chrome's JSON trace events (OUT.json): a slice per call\n"
    "                     and an instant event per frame, without arguments. Opens\n"
    "                     in ui.perfetto.dev, chrome://tracing and speedscope.\n"
    "  --compression zstd the Perfetto packets zstd-compressed (default; Perfetto\n"
    "                     v58 and later read them)\n"
    "  --compression none plain packets, for older readers and for\n"
    "                     protoc --decode=perfetto.protos.Trace proto/perfetto_subset.proto\n"
    "  --perfetto         the same as --format perfetto (before the protobuf\n"
    "                     format, it wrote the JSON: use --format json for that)\n"
    "  --chrome           the same as --format json\n"
    "  -o, --output OUT   the file to write (default: standard output, not a\n"
    "                     terminal for the protobuf format)\n";

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
  }
  void on_thread(const format::Thread& t) override { writer_.thread(t.index, t.tid, t.name); }
  void on_call(const format::Call& call) override { writer_.call(call); }
  void on_blob(const format::Blob& blob) override { writer_.blob(blob); }
  void on_frame(const format::Frame& frame) override { writer_.frame(frame); }
  bool finish(std::string* error) { return writer_.finish(error); }

 private:
  consumers::PerfettoWriter writer_;
};

}  // namespace

int cmd_export(const std::vector<std::string>& args) {
  std::string path, output, format_name = "perfetto", compression_name = "zstd";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      fputs(kUsage_export, stdout);
      return kExitOk;
    } else if (args[i] == "--perfetto") {
      format_name = "perfetto";
    } else if (args[i] == "--chrome") {
      format_name = "json";
    } else if (args[i] == "--format" && i + 1 < args.size()) {
      format_name = args[++i];
    } else if (args[i] == "--compression" && i + 1 < args.size()) {
      compression_name = args[++i];
    } else if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size()) {
      output = args[++i];
    } else if (args[i][0] == '-' && args[i] != "-") {
      return usage_error(kName, "unknown option '" + args[i] + "'");
    } else if (path.empty()) {
      path = args[i];
    } else {
      return usage_error(kName, "more than one TRACE");
    }
  }
  if (format_name != "perfetto" && format_name != "json")
    return usage_error(kName, "--format is perfetto or json, not '" + format_name + "'");
  if (compression_name != "zstd" && compression_name != "none")
    return usage_error(kName, "--compression is zstd or none, not '" + compression_name + "'");
  if (path.empty()) return usage_error(kName, "missing TRACE");
  bool perfetto = format_name == "perfetto";
  if (perfetto && output.empty() && isatty(STDOUT_FILENO) == 1) {
    fprintf(stderr,
            "gltrace export: the Perfetto format is binary: not written to a terminal (-o OUT, "
            "or --format json)\n");
    return kExitUsage;
  }
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

}  // namespace gltrace::cli
