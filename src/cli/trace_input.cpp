#include "cli/trace_input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "common/progress.h"
#include "consumers/frame_end.h"

namespace gltrace::cli {

bool open_trace(const char* command, const std::string& path, format::ChunkReader* reader) {
  bool ok = path == "-" ? reader->open_fd(dup(STDIN_FILENO)) : reader->open(path);
  if (!ok)
    fprintf(stderr, "gltrace %s: %s: %s\n", command, path.c_str(),
            reader->status().message.c_str());
  else if (!reader->index_error().empty())  // costs only seeking: said, not fatal
    fprintf(stderr,
            "gltrace %s: warning: %s: the index is damaged (%s); reading the chunks in order\n",
            command, path.c_str(), reader->index_error().c_str());
  return ok;
}

int finish_reading(const char* command, const std::string& path, bool ok,
                   const format::ReadStatus& status) {
  if (!ok) {
    fprintf(stderr, "gltrace %s: %s: %s\n", command, path.c_str(), status.message.c_str());
    return kExitFailure;
  }
  if (status.state == format::ReadState::kCutShort)
    fprintf(stderr, "gltrace %s: warning: %s: %s\n", command, path.c_str(), status.message.c_str());
  return kExitOk;
}

namespace {

// Passes every record on to `inner`, counting calls and frames for the line.
class ProgressConsumer final : public format::Consumer {
 public:
  ProgressConsumer(format::Consumer& inner, Progress& progress)
      : inner_(inner), progress_(progress) {}
  void on_chunk(uint64_t offset, uint32_t records) override {
    progress_.at(offset);
    inner_.on_chunk(offset, records);
    pass_stop();
  }
  void on_header(const format::Header& r) override { inner_.on_header(r), pass_stop(); }
  void on_thread(const format::Thread& r) override { inner_.on_thread(r), pass_stop(); }
  void on_context(const format::Context& r) override { inner_.on_context(r), pass_stop(); }
  void on_call(const format::Call& r) override {
    progress_.add_call();
    if (consumers::ends_frame(r)) progress_.add_frame();
    inner_.on_call(r);
    pass_stop();
  }
  bool wants_values(uint32_t function) const override { return inner_.wants_values(function); }
  void on_blob(const format::Blob& r) override { inner_.on_blob(r), pass_stop(); }
  void on_frame(const format::Frame& r) override { inner_.on_frame(r), pass_stop(); }
  void on_image(const format::Image& r) override { inner_.on_image(r), pass_stop(); }
  void on_stats(const format::Stats& r) override { inner_.on_stats(r), pass_stop(); }
  void on_calls_complete(const format::CallsComplete& r) override {
    inner_.on_calls_complete(r), pass_stop();
  }
  void on_desktop_gl(const format::DesktopGl& r) override { inner_.on_desktop_gl(r), pass_stop(); }

 private:
  void pass_stop() {
    if (inner_.stop_requested()) request_stop();
  }
  format::Consumer& inner_;
  Progress& progress_;
};

}  // namespace

bool read_trace_showing_progress(const char* command, const std::string& path,
                                 format::ChunkReader& reader, format::Consumer& consumer,
                                 format::ReadStatus* status, ReadAhead read_ahead) {
  struct stat st {};
  uint64_t size = path != "-" && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)
                      ? static_cast<uint64_t>(st.st_size)
                      : 0;
  Progress progress(std::string("gltrace ") + command, size);
  auto read = read_ahead == ReadAhead::kDecode ? format::read_trace_prefetched
              : read_ahead == ReadAhead::kRead ? format::read_trace_read_ahead
                                               : format::read_trace;
  if (!progress.active()) return read(reader, consumer, status);
  ProgressConsumer counting(consumer, progress);
  bool ok = read(reader, counting, status);
  progress.finish();
  return ok;
}

bool parse_range(const std::string& text, uint64_t* first, uint64_t* last) {
  auto number = [](const std::string& s, uint64_t* out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = strtoull(s.c_str(), nullptr, 10);
    return true;
  };
  size_t dash = text.find('-');
  if (dash == std::string::npos) return number(text, first) && number(text, last);
  std::string a = text.substr(0, dash), b = text.substr(dash + 1);
  *first = 0;
  *last = UINT64_MAX;
  return (a.empty() || number(a, first)) && (b.empty() || number(b, last)) &&
         !(a.empty() && b.empty()) && *first <= *last;
}

}  // namespace gltrace::cli
