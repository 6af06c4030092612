// Timelines of a trace for trace viewers:
// - PerfettoWriter: Perfetto's native protobuf format (a Trace of
//   TracePackets, proto/perfetto_subset.proto): a track per thread with a
//   slice per call and its arguments as debug annotations, a frame track with
//   a slice per frame, counters of calls and data bytes per frame. Opens in
//   ui.perfetto.dev and trace_processor.
// - TraceEventWriter (textformat/trace_event_writer.h, which the trace
//   layer's systrace mode writes with too): Chrome's JSON "Trace Event
//   Format".
// Both write as a stream, in memory bounded by the functions and strings
// interned, not by the trace's length.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "format/records.h"
#include "textformat/trace_event_writer.h"

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

using textformat::append_json_string;
using textformat::TraceEventWriter;

}  // namespace gltrace::consumers
