// Chrome's JSON "Trace Event Format": one complete ("X") slice per call, per
// thread, and an instant event per frame. Opens in ui.perfetto.dev,
// chrome://tracing and speedscope. Written as a stream by `gltrace export`
// and by the trace layer's systrace mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace gltrace::textformat {

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

// The length of the UTF-8 sequence at p (at most `left` bytes), 0 when the
// bytes there are not one.
size_t utf8_sequence_length(const unsigned char* p, size_t left);

}  // namespace gltrace::textformat
