#include "cli/trace_output.h"

#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>

#include "cli/trace_input.h"
#include "common/process.h"
#include "consumers/frame_end.h"
#include "format/output_file.h"
#include "format/reader.h"
#include "gltrace/api/functions.h"

namespace gltrace::cli {
namespace {

bool has_pattern(const std::string& text) {
  return text.find("%p") != std::string::npos || text.find("%n") != std::string::npos;
}

class SummaryReader : public format::Consumer {
 public:
  // stop_at_first_frame: read the set-up only (see read_summary).
  explicit SummaryReader(bool stop_at_first_frame = false)
      : stop_at_first_frame_(stop_at_first_frame) {}

  void on_header(const format::Header& header) override {
    summary.pid = header.pid;
    summary.process_name = std::string(header.process_name);
  }
  void on_call(const format::Call& call) override {
    ++summary.calls;
    if (consumers::ends_frame(call)) ++summary.frames;
  }
  void on_frame(const format::Frame&) override {
    if (stop_at_first_frame_) request_stop();
  }
  void on_stats(const format::Stats& stats) override {
    have_stats = true;
    totals = stats;
  }

  TraceSummary summary;
  bool have_stats = false;
  format::Stats totals;  // its strings are not kept

 private:
  bool stop_at_first_frame_;
};

// A trace closed cleanly ends with its totals (the Stats record, in the
// chunks of its last frame, which the index locates), and an app binds its
// EGL API in its set-up, before the first frame: reading those two parts
// keeps the report to milliseconds for a trace of millions of calls (a full
// read would add a fifth of a microsecond per call to every traced run). False
// when the trace is not such a trace (cut short, no frame, no Stats).
bool read_summary_quickly(const std::string& path, TraceSummary* summary) {
  format::ChunkReader reader;
  if (!reader.open(path) || reader.index() == nullptr || reader.index()->entries.empty())
    return false;
  SummaryReader setup(/*stop_at_first_frame=*/true);
  format::ReadStatus status;
  if (!format::read_trace(reader, setup, &status) ||
      !reader.seek(reader.index()->entries.back().chunk_offset))
    return false;
  SummaryReader end;
  if (!format::read_trace(reader, end, &status) || !status.closed_cleanly || !end.have_stats)
    return false;
  *summary = end.summary;
  summary->calls = end.totals.calls;
  summary->frames = end.totals.frames;
  summary->pid = setup.summary.pid;
  summary->process_name = setup.summary.process_name;
  summary->complete = true;
  return true;
}

}  // namespace

std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

bool check_output(const char* command, const std::string& path) {
  auto fail = [&](const std::string& why) {
    fprintf(stderr, "gltrace %s: cannot write the trace %s: %s\n", command, path.c_str(),
            why.c_str());
    return false;
  };
  struct stat st {};
  // A directory (each process writes NAME.PID.EXT there).
  bool directory = path.back() == '/' || (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
  std::string dir = directory ? path : dirname_of(path);
  std::string name = directory ? "" : basename_of(path);
  if (has_pattern(dir)) return fail("%p and %n may appear in the file name only");
  if (!directory && name.empty()) return fail("no file name");
  if (stat(dir.c_str(), &st) != 0)
    return fail("directory " + dir + ": " + strerror(errno) + " (it is not created)");
  if (!S_ISDIR(st.st_mode)) return fail(dir + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    return fail("directory " + dir + " is not writable: " + strerror(errno));
  if (!directory && !has_pattern(name) && stat(path.c_str(), &st) == 0 &&
      access(path.c_str(), W_OK) != 0)
    return fail(strerror(errno));
  return true;
}

void make_room_for_output(const char* command, const std::string& path) {
  struct stat st {};
  if (path.back() == '/' || has_pattern(basename_of(path)) ||
      (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
    return;
  if (format::replace_finished(path) == format::Previous::kBeingWritten)
    fprintf(stderr,
            "gltrace %s: note: another process is writing %s now: it is left alone, and this "
            "run's traces get names of their own\n",
            command, path.c_str());
}

bool report_trace(const char* command, const std::string& path, TraceSummary* out) {
  TraceSummary summary;
  if (!read_summary_quickly(path, &summary)) {
    format::ChunkReader reader;
    if (!open_trace(command, path, &reader)) return false;
    SummaryReader consumer;
    format::ReadStatus status;
    bool ok = format::read_trace_prefetched(reader, consumer, &status);
    if (finish_reading(command, path, ok, status) != 0) return false;
    summary = consumer.summary;
    summary.complete = status.closed_cleanly;
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) summary.file_bytes = static_cast<uint64_t>(st.st_size);
  fprintf(stderr,
          "gltrace %s: wrote %" PRIu64 " calls, %" PRIu64 " frames, %.2f MB to %s (%s, pid %u)\n",
          command, summary.calls, summary.frames, static_cast<double>(summary.file_bytes) / 1e6,
          path.c_str(), summary.process_name.c_str(), summary.pid);
  if (summary.calls == 0)
    fprintf(stderr, "gltrace %s: warning: %s: no EGL, GLX or GL call was recorded\n", command,
            path.c_str());
  else if (summary.frames == 0)
    fprintf(stderr,
            "gltrace %s: warning: %s: no frames (no eglSwapBuffers, nor a glFinish or a "
            "framebuffer object's glReadPixels after draws in a program that never swaps, "
            "while tracing): "
            "the calls are all in one unfinished frame\n",
            command, path.c_str());
  if (!summary.complete)
    fprintf(stderr,
            "gltrace %s: warning: %s was cut short: its process ended without closing it "
            "(killed by a signal, or crashed); it holds what was recorded until then\n",
            command, path.c_str());
  if (out != nullptr) *out = summary;
  return true;
}

}  // namespace gltrace::cli
