// The trace layer's modes (Android's debug.egl.trace values):
//   full      every call to the binary trace (the default)
//   log       every call as a readable line, to a text file or stderr
//   error     after every GL call, glGetError; an error is reported with the
//             call and a call stack, and still returned to the app's own
//             glGetError
//   systrace  a timeline: Chrome/Perfetto JSON, one slice per call, frames
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace gltrace::textformat {
struct CallText;
}

namespace gltrace::trace {

struct ThreadState;

enum class Mode { kFull, kLog, kError, kSystrace };

extern Mode g_mode;  // set before a session records, read by every call
inline Mode mode() { return g_mode; }
void set_mode(Mode mode);
// Parses GLTRACE_TRACE_MODE; false (and full) for an unknown name.
bool parse_mode(const char* name, Mode* mode);
const char* mode_name(Mode mode);

// Opens the text output of a text mode ("" or "-": stderr). Returns false on failure.
bool open_text_output(Mode mode, const char* path, uint32_t pid, const char* process_name);
// The same on a file descriptor (owned from here on).
bool open_text_output_fd(Mode mode, int fd, uint32_t pid, const char* process_name);
void close_text_output();

// A call's line in the log and error modes, formatted straight from the
// values the wrapper records (recorder.cpp: arguments in parameter order,
// then the result): nothing is encoded to be decoded again.
struct CallLine {
  // The function's names and formats; nullptr: the line takes no values.
  const textformat::CallText* text = nullptr;
  std::string line;    // "seq glName(a = 1, b = 2"
  std::string result;  // the result's text
  uint32_t args = 0;   // arguments written so far
  bool has_result = false;
};

// Starts the line of call `seq` of `function`.
void begin_call_line(CallLine& line, uint32_t function, uint64_t seq);
// Ends the line: log mode writes it out, error mode reports the thread's
// pending GL error with it.
void end_call_line(ThreadState* thread, CallLine& line);

// Error mode, after a GL call: whether it raised an error (then pending on
// the thread for the app's own glGetError). glGetError itself raises none.
bool gl_error_raised(ThreadState* thread, uint32_t function);

// Systrace mode: a call's slice (names and times only).
void systrace_slice(ThreadState* thread, uint32_t function, uint64_t seq, uint64_t start_ns,
                    uint64_t duration_ns);

// The end of a frame in a text mode.
void text_mode_frame(ThreadState* thread, uint64_t number, uint64_t time_ns);

}  // namespace gltrace::trace
