#include "cli/trace_output.h"

#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <elf.h>
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

// `app` as execvp finds it: a name with a slash as it is, else the first
// executable of that name on PATH.
std::string find_executable(const std::string& app) {
  if (app.find('/') != std::string::npos) return app;
  const char* path = getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t begin = 0; begin <= dirs.size();) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(begin, end - begin);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + app;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return "";
}

// The DT_NEEDED names of a 64-bit ELF file, from its .dynamic section and the
// string table it links to; empty for anything else.
std::vector<std::string> needed_libraries(const std::string& path) {
  std::vector<std::string> needed;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return needed;
  auto read_at = [fd](void* out, size_t size, uint64_t offset) {
    return pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  };
  Elf64_Ehdr header{};
  if (read_at(&header, sizeof header, 0) && memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
      header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_shentsize == sizeof(Elf64_Shdr) &&
      header.e_shnum < 4096) {
    std::vector<Elf64_Shdr> sections(header.e_shnum);
    if (read_at(sections.data(), sections.size() * sizeof(Elf64_Shdr), header.e_shoff)) {
      for (const Elf64_Shdr& dynamic : sections) {
        if (dynamic.sh_type != SHT_DYNAMIC || dynamic.sh_link >= sections.size()) continue;
        const Elf64_Shdr& strings = sections[dynamic.sh_link];
        // Both are small (hundreds of bytes to a few KB); bound them anyway.
        if (dynamic.sh_size > (1u << 20) || strings.sh_size > (16u << 20)) break;
        std::vector<Elf64_Dyn> entries(dynamic.sh_size / sizeof(Elf64_Dyn));
        std::string table(strings.sh_size, '\0');
        if (!read_at(entries.data(), entries.size() * sizeof(Elf64_Dyn), dynamic.sh_offset) ||
            !read_at(table.data(), table.size(), strings.sh_offset))
          break;
        for (const Elf64_Dyn& entry : entries)
          if (entry.d_tag == DT_NEEDED && entry.d_un.d_val < table.size())
            needed.emplace_back(table.c_str() + entry.d_un.d_val);
        break;
      }
    }
  }
  close(fd);
  return needed;
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
  void on_desktop_gl(const format::DesktopGl& desktop_gl) override {
    summary.desktop_gl_libraries = std::string(desktop_gl.libraries);
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
    if (!stats.desktop_gl_libraries.empty())
      summary.desktop_gl_libraries = std::string(stats.desktop_gl_libraries);
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

std::string linked_desktop_gl_libraries(const std::string& app) {
  std::string path = find_executable(app);
  std::string names;
  if (path.empty()) return names;
  for (const std::string& name : needed_libraries(path)) {
    if (!is_desktop_gl_library(name)) continue;
    if (!names.empty()) names += ' ';
    names += name;
  }
  return names;
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
    fprintf(stderr, "gltrace %s: warning: %s: no EGL/GLES call was recorded\n", command,
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
  if (!summary.desktop_gl_libraries.empty())
    fprintf(stderr,
            "gltrace %s: warning: the process loaded %s (GLX): gltrace traces EGL with OpenGL "
            "ES and desktop OpenGL, not GLX yet, so GLX contexts' calls are not in the trace\n",
            command, summary.desktop_gl_libraries.c_str());
  if (out != nullptr) *out = summary;
  return true;
}

}  // namespace gltrace::cli
