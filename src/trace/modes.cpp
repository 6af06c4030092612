#include "trace/modes.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <string>

#include "common/log.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"
#include "textformat/trace_event_writer.h"
#include "textformat/value_text.h"
#include "trace/next.h"
#include "trace/recorder.h"
#include "trace/session.h"
#include "trace/symbolize.h"

namespace gltrace::trace {

Mode g_mode = Mode::kFull;

namespace {

std::mutex g_text_mutex;
FILE* g_text = nullptr;
textformat::TraceEventWriter* g_events = nullptr;
uint32_t g_pid = 0;

}  // namespace

void set_mode(Mode mode) { g_mode = mode; }

bool parse_mode(const char* name, Mode* mode) {
  static const struct {
    const char* name;
    Mode mode;
  } kModes[] = {{"full", Mode::kFull},
                {"1", Mode::kFull},
                {"log", Mode::kLog},
                {"error", Mode::kError},
                {"systrace", Mode::kSystrace}};
  for (const auto& m : kModes)
    if (strcmp(name, m.name) == 0) return *mode = m.mode, true;
  *mode = Mode::kFull;
  return false;
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kFull:
      return "full";
    case Mode::kLog:
      return "log";
    case Mode::kError:
      return "error";
    case Mode::kSystrace:
      return "systrace";
  }
  return "?";
}

namespace {
bool start_text_output(Mode mode, FILE* out, uint32_t pid, const char* process_name) {
  std::lock_guard<std::mutex> lock(g_text_mutex);
  g_mode = mode;
  g_pid = pid;
  g_text = out;
  if (out != stderr) setvbuf(g_text, nullptr, _IOFBF, 1 << 16);
  delete g_events;
  g_events = nullptr;
  if (mode == Mode::kSystrace) {
    g_events = new textformat::TraceEventWriter(g_text);
    g_events->begin(pid, process_name);
  }
  return true;
}
}  // namespace

bool open_text_output(Mode mode, const char* path, uint32_t pid, const char* process_name) {
  FILE* out =
      path == nullptr || *path == '\0' || strcmp(path, "-") == 0 ? stderr : fopen(path, "w");
  return out != nullptr && start_text_output(mode, out, pid, process_name);
}

bool open_text_output_fd(Mode mode, int fd, uint32_t pid, const char* process_name) {
  FILE* out = fdopen(fd, "w");
  if (out == nullptr) {
    close(fd);
    return false;
  }
  return start_text_output(mode, out, pid, process_name);
}

void close_text_output() {
  std::lock_guard<std::mutex> lock(g_text_mutex);
  if (g_text == nullptr) return;
  if (g_events != nullptr) g_events->end();
  if (g_text != stderr)
    fclose(g_text);
  else
    fflush(stderr);
  g_text = nullptr;
}

void begin_call_line(CallLine& line, uint32_t function, uint64_t seq) {
  line.text = textformat::find_call_text(function);
  line.line.clear();
  line.args = 0;
  line.has_result = false;
  textformat::Text out(line.line);
  textformat::append_number(out, seq);
  out += ' ';
  out += line.text->open;
}

void end_call_line(ThreadState* thread, CallLine& line) {
  line.line += ')';
  if (line.has_result) {
    line.line += " = ";
    line.line += line.result;
  }
  if (g_mode == Mode::kError) {
    uint32_t error = thread->pending_gl_error;
    const char* name = api::enum_name(error, "ErrorCode");
    std::string message = "GL error ";
    message += name != nullptr ? name : std::to_string(error);
    message += " after call " + line.line;
    // Symbolized here, lazily: errors are rare, and the stack is the
    // erroring thread's.
    message += describe_call_stack();
    std::lock_guard<std::mutex> lock(g_text_mutex);
    GLTRACE_LOG_ERROR("%s", message.c_str());
    return;
  }
  std::lock_guard<std::mutex> lock(g_text_mutex);
  if (g_text == nullptr) return;
  line.line += '\n';
  fwrite(line.line.data(), 1, line.line.size(), g_text);
}

bool gl_error_raised(ThreadState* thread, uint32_t function) {
  if (api::kFunctionInfo[function].api != api::Api::kGles || function == api::kFn_glGetError ||
      thread->context == 0 || thread->pending_gl_error != 0)
    return false;
  auto get_error = NEXT(glGetError);
  uint32_t error = get_error();
  // The app's own glGetError still gets it (see trace_glGetError).
  thread->pending_gl_error = error;
  return error != 0;
}

void systrace_slice(ThreadState* thread, uint32_t function, uint64_t seq, uint64_t start_ns,
                    uint64_t duration_ns) {
  static thread_local uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  std::lock_guard<std::mutex> lock(g_text_mutex);
  if (g_events == nullptr) return;
  g_events->slice(g_pid, tid, api::kFunctionInfo[function].name, start_ns, duration_ns, seq,
                  thread->context);
}

void text_mode_frame(ThreadState* /*thread*/, uint64_t number, uint64_t time_ns) {
  std::lock_guard<std::mutex> lock(g_text_mutex);
  if (g_mode == Mode::kSystrace && g_events != nullptr)
    g_events->frame(g_pid, static_cast<uint64_t>(syscall(SYS_gettid)), number, time_ns);
  else if (g_mode == Mode::kLog && g_text != nullptr)
    fprintf(g_text, "// end of frame %llu\n", static_cast<unsigned long long>(number));
}

}  // namespace gltrace::trace
