// Chrome/Perfetto JSON trace events ("Trace Event Format"): one complete
// ("X") slice per call, per thread, and an instant event per frame. Opens in
// ui.perfetto.dev and chrome://tracing. Written as a stream: a trace cut short
// (no closing bracket) still loads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace gltrace::consumers {

class TraceEventWriter {
 public:
  // Writes to `out` (not closed by the writer).
  explicit TraceEventWriter(FILE* out) : out_(out) {}
  void begin(uint32_t pid, std::string_view process_name);
  void thread_name(uint32_t pid, uint64_t tid, std::string_view name);
  // A call: times in ns on the trace's clock.
  void slice(uint32_t pid, uint64_t tid, std::string_view name, uint64_t start_ns,
             uint64_t duration_ns, uint64_t seq, uint32_t context);
  void frame(uint32_t pid, uint64_t tid, uint64_t number, uint64_t time_ns);
  void end();

 private:
  void event_prefix();
  FILE* out_;
  bool first_ = true;
  std::string line_;
};

}  // namespace gltrace::consumers
