// The output of `gltrace trace` and `attach`: checked before the app runs,
// found and summarised (with warnings) after it.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <string>
#include <vector>

namespace gltrace::cli {

// Checks that the trace layer will be able to create `path` (absolute; %p and
// %n may appear in its file name, not in its directories): its directory
// exists and is writable, and the file is no directory or read-only file.
// False after printing why; nothing is created.
bool check_output(const char* command, const std::string& path);

// A file that matches an output pattern, as it was when listed.
struct OutputFile {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  timespec mtime{};
  off_t size = 0;
};

// The files that `pattern` (%p: a process id, %n: a process name) names now.
std::vector<OutputFile> list_outputs(const std::string& pattern);

// The files `pattern` names now that are new or changed since `before`.
std::vector<std::string> written_outputs(const std::string& pattern,
                                         const std::vector<OutputFile>& before);

// The desktop OpenGL libraries (libGL.so.1, libGLX*, libOpenGL.so.0) that the
// executable `app` (found on PATH as execvp would) links directly, space-
// separated; "" when none, or when it is no 64-bit ELF file (a script).
std::string linked_desktop_gl_libraries(const std::string& app);

// What report_trace found.
struct TraceSummary {
  uint64_t calls = 0;
  uint64_t frames = 0;
  uint64_t file_bytes = 0;
  bool desktop_gl_through_egl = false;  // eglBindAPI(EGL_OPENGL_API) recorded
  std::string desktop_gl_libraries;     // from the Stats record
  bool complete = false;                // closed cleanly
};

// Reads the trace at `path` and prints "gltrace COMMAND: wrote N calls,
// M frames, X MB to FILE", then a warning for no EGL/GLES calls, no frames,
// desktop GL through EGL, desktop GL libraries in the process, or a trace cut
// short. False after printing an error when it is no readable trace.
bool report_trace(const char* command, const std::string& path, TraceSummary* summary = nullptr);

}  // namespace gltrace::cli
