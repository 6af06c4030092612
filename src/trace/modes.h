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

#include "protowire/wire.h"

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

// A finished call (`call`: its whole Call message) in a text mode.
void text_mode_call(ThreadState* thread, const wire::Encoder& call, uint32_t function, uint64_t seq,
                    uint64_t start_ns, uint64_t duration_ns);
// The end of a frame in a text mode.
void text_mode_frame(ThreadState* thread, uint64_t number, uint64_t time_ns);

}  // namespace gltrace::trace
