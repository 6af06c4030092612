// Timelines of a trace for trace viewers:
// - PerfettoWriter: Perfetto's native protobuf format (a Trace of
//   TracePackets, proto/perfetto_subset.proto): a track per thread with a
//   slice per call and its arguments as debug annotations, a frame track with
//   a slice per frame, counters of calls and data bytes per frame. Opens in
//   ui.perfetto.dev and trace_processor.
// - TraceEventWriter: Chrome's JSON "Trace Event Format": one complete ("X")
//   slice per call, per thread, and an instant event per frame. Opens in
//   ui.perfetto.dev, chrome://tracing and speedscope.
// Both write as a stream, in memory bounded by the functions and strings
// interned, not by the trace's length.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "format/records.h"

namespace gltrace::consumers {

class PerfettoWriter {
 public:
  enum class Compression {
    kZstd,  // packets in zstd_compressed_packets (Perfetto v58 and later read them)
    kNone,  // plain packets, for older readers and protoc --decode
  };
  // Writes to `out` (not closed by the writer).
  PerfettoWriter(FILE* out, Compression compression);
  ~PerfettoWriter();
  PerfettoWriter(const PerfettoWriter&) = delete;
  PerfettoWriter& operator=(const PerfettoWriter&) = delete;

  void process(uint32_t pid, std::string_view name, std::string_view command_line);
  // A thread's track, by its index in the trace.
  void thread(uint32_t index, uint64_t tid, std::string_view name);
  // A call's slice on its thread's track (described on first use if no
  // thread() came first).
  void call(const format::Call& call);
  // Bytes of pointer data the current frame's calls passed as a blob.
  void blob(const format::Blob& blob);
  void frame(const format::Frame& frame);
  // Writes what is buffered; false with *error set when writing failed.
  bool finish(std::string* error);

  // Bytes written to `out` (after finish()).
  uint64_t bytes_written() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class TraceEventWriter {
 public:
  // Writes to `out` (not closed by the writer).
  explicit TraceEventWriter(FILE* out) : out_(out) {}
  void begin(uint32_t pid, std::string_view process_name);
  void thread_name(uint32_t pid, uint64_t tid, std::string_view name);
  // A call: times in ns on the trace's clock. Without arguments: viewers
  // that aggregate by function (speedscope) key a slice by name and
  // arguments, so a call number made every call a function of its own.
  void slice(uint32_t pid, uint64_t tid, std::string_view name, uint64_t start_ns,
             uint64_t duration_ns);
  // The same with the call's number and context as its arguments (the
  // trace layer's systrace mode, read in chrome://tracing and Perfetto).
  void slice(uint32_t pid, uint64_t tid, std::string_view name, uint64_t start_ns,
             uint64_t duration_ns, uint64_t seq, uint32_t context);
  void frame(uint32_t pid, uint64_t tid, uint64_t number, uint64_t time_ns);
  void end();

 private:
  void event_prefix();
  void slice_start(uint32_t pid, uint64_t tid, std::string_view name, uint64_t start_ns,
                   uint64_t duration_ns);
  FILE* out_;
  bool first_ = true;
  std::string line_;
};

// Appends s as a JSON string (quoted): quotes, backslashes and control
// characters escaped, bytes that are not UTF-8 as \u00XX of their value.
void append_json_string(std::string& out, std::string_view s);

}  // namespace gltrace::consumers
