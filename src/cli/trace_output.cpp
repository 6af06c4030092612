#include "cli/trace_output.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "cli/trace_input.h"
#include "common/process.h"
#include "format/reader.h"
#include "gltrace/api/functions.h"

namespace gltrace::cli {
namespace {

constexpr uint64_t kEglOpenGlApi = 0x30A2;  // EGL_OPENGL_API

bool has_pattern(const std::string& text) {
  return text.find("%p") != std::string::npos || text.find("%n") != std::string::npos;
}

// Whether `name` matches the file-name pattern: %p one or more digits, %n one
// or more characters (a process name), anything else itself.
bool matches(const char* pattern, const char* name) {
  if (pattern[0] == '%' && (pattern[1] == 'p' || pattern[1] == 'n')) {
    bool digits = pattern[1] == 'p';
    for (const char* end = name; *end != '\0'; ++end) {
      if (digits && (*end < '0' || *end > '9')) return false;
      if (matches(pattern + 2, end + 1)) return true;
    }
    return false;
  }
  if (*pattern == '\0') return *name == '\0';
  return *pattern == *name && matches(pattern + 1, name + 1);
}

bool same_file(const OutputFile& a, const OutputFile& b) {
  return a.device == b.device && a.inode == b.inode && a.size == b.size &&
         a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec;
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

  void on_call(const format::Call& call) override {
    ++summary.calls;
    if (call.function == api::kFn_eglBindAPI && !call.args.empty() &&
        call.args[0].uint == kEglOpenGlApi)
      summary.desktop_gl_through_egl = true;
  }
  void on_frame(const format::Frame&) override {
    ++summary.frames;
    if (stop_at_first_frame_) request_stop();
  }
  void on_stats(const format::Stats& stats) override {
    have_stats = true;
    totals = stats;
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
  summary->desktop_gl_through_egl =
      setup.summary.desktop_gl_through_egl || end.summary.desktop_gl_through_egl;
  summary->complete = true;
  return true;
}

}  // namespace

bool check_output(const char* command, const std::string& path) {
  std::string dir = dirname_of(path);
  std::string name = basename_of(path);
  auto fail = [&](const std::string& why) {
    fprintf(stderr, "gltrace %s: cannot write the trace %s: %s\n", command, path.c_str(),
            why.c_str());
    return false;
  };
  if (has_pattern(dir)) return fail("%p and %n may appear in the file name only");
  if (name.empty()) return fail("no file name");
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0)
    return fail("directory " + dir + ": " + strerror(errno) + " (it is not created)");
  if (!S_ISDIR(st.st_mode)) return fail(dir + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    return fail("directory " + dir + " is not writable: " + strerror(errno));
  if (!has_pattern(name) && stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return fail("it is a directory");
    if (access(path.c_str(), W_OK) != 0) return fail(strerror(errno));
  }
  return true;
}

std::vector<OutputFile> list_outputs(const std::string& pattern) {
  std::vector<OutputFile> files;
  std::string dir = dirname_of(pattern);
  std::string name_pattern = basename_of(pattern);
  auto add = [&](const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    files.push_back({path, st.st_dev, st.st_ino, st.st_mtim, st.st_size});
  };
  if (!has_pattern(name_pattern)) {
    add(pattern);
    return files;
  }
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (const dirent* entry = readdir(d))
    if (matches(name_pattern.c_str(), entry->d_name)) add(dir + "/" + entry->d_name);
  closedir(d);
  return files;
}

std::vector<std::string> written_outputs(const std::string& pattern,
                                         const std::vector<OutputFile>& before) {
  std::vector<std::string> written;
  for (const OutputFile& file : list_outputs(pattern)) {
    bool unchanged = false;
    for (const OutputFile& old : before)
      if (old.path == file.path && same_file(old, file)) unchanged = true;
    if (!unchanged) written.push_back(file.path);
  }
  return written;
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
  fprintf(stderr, "gltrace %s: wrote %" PRIu64 " calls, %" PRIu64 " frames, %.2f MB to %s\n",
          command, summary.calls, summary.frames, static_cast<double>(summary.file_bytes) / 1e6,
          path.c_str());
  if (summary.calls == 0)
    fprintf(stderr, "gltrace %s: warning: %s: no EGL/GLES call was recorded\n", command,
            path.c_str());
  else if (summary.frames == 0)
    fprintf(stderr,
            "gltrace %s: warning: %s: no frames (no eglSwapBuffers returned while tracing): "
            "the calls are all in one unfinished frame\n",
            command, path.c_str());
  if (summary.desktop_gl_through_egl)
    fprintf(stderr,
            "gltrace %s: warning: the app uses desktop OpenGL through EGL "
            "(eglBindAPI(EGL_OPENGL_API)): its GL calls are not traced\n",
            command);
  if (!summary.desktop_gl_libraries.empty())
    fprintf(stderr,
            "gltrace %s: warning: the process loaded %s (GLX or desktop OpenGL): gltrace "
            "traces EGL and OpenGL ES only, so GLX and desktop GL calls are not in the trace\n",
            command, summary.desktop_gl_libraries.c_str());
  if (out != nullptr) *out = summary;
  return true;
}

}  // namespace gltrace::cli
