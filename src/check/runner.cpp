#include "check/runner.h"

#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "check/expectations.h"
#include "check/report.h"
#include "common/child_process.h"
#include "consumers/png.h"
#include "format/reader.h"
#include "gl_loader/call.h"
#include "gl_loader/gl_loader.h"
#include "glreplay/driver_choice.h"
#include "glreplay/glreplay.h"
#include "glreplay/image_tolerance.h"

namespace gltrace::check {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kExitRunFailed = 1;
constexpr int kExitCannotRun = 2;

// ---- the driver ----

// The driver's strings, read in a child process: a driver that crashes or
// hangs at its start is reported, and this process loads no GL.
bool probe_driver(const std::string& dir, DriverIdentity* out, std::string* error) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + strerror(errno);
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    std::string text, why;
    gl_loader::Driver driver;
    gl_loader::Search search;
    search.dir = dir;
    search.flags = RTLD_NOW | RTLD_GLOBAL;  // as the replay loads it (an app links it)
    EGLDisplay display = EGL_NO_DISPLAY;
    if (driver.open(gl_loader::Library::kEgl, search, &why) &&
        driver.open(gl_loader::Library::kGles2, search, &why))
      display =
          gl_loader::platform_display(driver, gl_loader::Platform::kSurfaceless, nullptr, &why);
    if (display != EGL_NO_DISPLAY) {
      // Pbuffers: EGL_SURFACE_TYPE defaults to windows, which surfaceless has none of.
      const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_SURFACE_TYPE,
                                          EGL_PBUFFER_BIT, EGL_NONE};
      const EGLint context_attributes[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
      EGLConfig config = nullptr;
      EGLint configs = 0;
      GL_CALL(driver, eglBindAPI)(EGL_OPENGL_ES_API);
      EGLContext context = EGL_NO_CONTEXT;
      if (GL_CALL(driver, eglChooseConfig)(display, config_attributes, &config, 1, &configs) &&
          configs == 1)
        context =
            GL_CALL(driver, eglCreateContext)(display, config, EGL_NO_CONTEXT, context_attributes);
      if (context != EGL_NO_CONTEXT &&
          GL_CALL(driver, eglMakeCurrent)(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        for (GLenum name : {GL_VENDOR, GL_RENDERER, GL_VERSION}) {
          const GLubyte* s = GL_CALL(driver, glGetString)(name);
          text += std::string(s != nullptr ? reinterpret_cast<const char*>(s) : "") + "\n";
        }
      } else {
        char code[16];
        snprintf(code, sizeof code, "0x%x", GL_CALL(driver, eglGetError)());
        why = std::string(
                  "the driver makes no GLES 2 context current without a surface (EGL "
                  "error ") +
              code + ")";
      }
    }
    std::string message = text.empty() ? "!" + why : text;
    ssize_t written = write(fds[1], message.data(), message.size());
    _exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string text;
  char buffer[1024];
  auto deadline = Clock::now() + std::chrono::seconds(60);
  bool timed_out = false;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    if (left <= 0 || poll(&p, 1, left) == 0) {
      timed_out = true;
      break;
    }
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || text.size() > 4096) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    *error = "the driver did not start within 60 s";
    return false;
  }
  if (WIFSIGNALED(status)) {
    *error = std::string("the driver crashed at its start (") + strsignal(WTERMSIG(status)) + ")";
    return false;
  }
  if (text.empty() || text[0] == '!') {
    *error = text.empty() ? "the driver said nothing" : text.substr(1);
    return false;
  }
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  if (lines.size() != 3) {
    *error = "the driver's strings could not be read";
    return false;
  }
  *out = DriverIdentity{lines[0], lines[1], lines[2]};
  return true;
}

// ---- one replay ----

enum class Outcome : uint8_t { kPass, kFail, kCrash, kHang, kError };

struct Replayed {
  Outcome outcome = Outcome::kPass;
  std::string message;
  std::vector<FrameResult> frames;
  // The replayed images' checksums, for --update; empty when not all frames
  // were replayed.
  std::vector<std::string> checksums;
};

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

struct Run {
  const CheckOptions& options;
  Expectations& file;
  std::string device;  // "" when the file has none for this driver
  std::mutex update_lock;
  size_t updated = 0;      // traces whose images were recorded
  size_t hashes_only = 0;  // traces whose hash alone was (nothing replayed to record)
};

// Judges frame `frame` (its replayed image in work/frames) against the
// expectation's checksum and golden at position `i`, or against the trace's
// own image (the replay's compare report) when it has neither.
FrameResult judge_frame(const Run& run, const Expectation* e, size_t i, uint64_t frame,
                        const std::string& work, const nlohmann::json& report) {
  FrameResult f;
  f.frame = frame;
  std::string error;
  Image replayed;
  if (!consumers::read_png(glreplay::snapshot_png(work + "/frames", frame), &replayed.width,
                           &replayed.height, &replayed.rgba, &error)) {
    f.verdict = "missing";
    return f;
  }
  f.checksum = image_checksum(replayed.width, replayed.height, replayed.rgba);
  bool has_checksum = e != nullptr && !e->checksums.empty();
  bool has_golden = e != nullptr && !e->goldens.empty();
  if (has_checksum && e->checksums[i] == f.checksum) {
    f.verdict = "checksum";
    return f;
  }
  if (has_golden) {
    glreplay::Tolerance tolerance;
    std::string text = !e->tolerance.empty() ? e->tolerance : run.file.tolerance;
    if (!glreplay::parse_tolerance(text, &tolerance, &error)) {
      f.verdict = "differs";
      return f;  // the file was checked when read: unreachable
    }
    Image golden;
    f.expected = run.file.resolve(e->goldens[i]);
    if (!consumers::read_png(f.expected, &golden.width, &golden.height, &golden.rgba, &error)) {
      f.verdict = "missing_golden";
      return f;
    }
    if (golden.width != replayed.width || golden.height != replayed.height) {
      f.verdict = "size_differs";
      return f;
    }
    glreplay::ImageMetrics m = glreplay::measure_images(replayed.rgba.data(), golden.rgba.data(),
                                                        replayed.width, replayed.height, tolerance);
    f.pixels = m.pixels;
    f.max_channel_difference = m.max_channel_difference;
    f.psnr = m.psnr;
    f.ssim = m.ssim;
    if (m.max_channel_difference == 0) {
      f.verdict = "identical";
    } else if (glreplay::within_tolerance(m, tolerance,
                                          uint64_t{replayed.width} * replayed.height)) {
      f.verdict = "within_tolerance";
    } else {
      f.verdict = "differs";
      std::vector<uint8_t> difference = glreplay::difference_image(
          replayed.rgba.data(), golden.rgba.data(), replayed.width, replayed.height, tolerance);
      // difference_image keeps the rows' order: read_png's, top row first.
      std::string path = work + "/difference-" + std::to_string(frame) + ".png";
      if (consumers::write_png(path, replayed.width, replayed.height, difference.data(), &error,
                               false))
        f.difference = path;
    }
    return f;
  }
  if (has_checksum) {
    f.verdict = "differs";  // no golden to measure by
    return f;
  }
  // No expectation of this device: the trace's own image of the frame's end.
  const nlohmann::json* found = nullptr;
  if (report.contains("images") && report["images"].is_array())
    for (const nlohmann::json& im : report["images"])
      if (json_or(im, "frame", UINT64_MAX) == frame &&
          json_or<std::string>(im, "origin", "") == "swap")
        found = &im;
  if (found == nullptr) {
    f.verdict = "no_expectation";
    return f;
  }
  std::string verdict = json_or<std::string>(*found, "verdict", "");
  f.verdict = verdict == "within tolerance" ? "within_tolerance" : verdict;
  if (json_or(*found, "size_differs", false)) f.verdict = "size_differs";
  f.pixels = json_or(*found, "pixels", uint64_t{0});
  f.max_channel_difference = json_or(*found, "max_channel_difference", 0);
  f.psnr = json_or(*found, "psnr", std::numeric_limits<double>::infinity());
  f.ssim = json_or(*found, "ssim", 1.0);
  return f;
}

bool frame_passes(const FrameResult& f) {
  return f.verdict == "checksum" || f.verdict == "identical" || f.verdict == "within_tolerance";
}

std::string slug(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, 60))
    out += isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return out;
}

// The last frame the replay ended (the highest frame-N.png it wrote), or
// `fallback` when it wrote none.
uint64_t last_replayed_frame(const std::string& dir, uint64_t fallback) {
  uint64_t last = 0;
  bool any = false;
  std::error_code ec;
  for (const auto& file : fs::directory_iterator(dir, ec)) {
    std::string name = file.path().filename().string();
    uint64_t n = 0;
    if (sscanf(name.c_str(), "frame-%" SCNu64 ".png", &n) == 1 && (!any || n > last)) {
      last = n;
      any = true;
    }
  }
  return any ? last : fallback;
}

// `frames` holds frame numbers and kLastFrame; `count` is the trace's
// indexed frames. The last frame is the last the replay ends: the index's
// last entry may be calls after the last frame end (a thread's teardown),
// which end no frame.
Replayed replay_trace(Run& run, const Expectation* e, const std::string& trace,
                      std::vector<uint64_t> frames, uint64_t count, const std::string& work,
                      double timeout) {
  Replayed r;
  bool wants_last = std::find(frames.begin(), frames.end(), kLastFrame) != frames.end();
  // Without an index (a capture that was killed) every frame is a candidate.
  uint64_t first = wants_last ? (count >= 2 ? count - 2 : 0) : UINT64_MAX;
  uint64_t last = 0;
  for (uint64_t f : frames) {
    if (f == kLastFrame) continue;
    first = std::min(first, f);
    last = std::max(last, f);
  }
  std::vector<std::string> argv = {
      run.options.replayer,
      "replay",
      trace,
      "-n",
      "--snapshot",
      std::to_string(first) + "-" + (wants_last ? std::string() : std::to_string(last)),
      "-o",
      work + "/frames",
      "--compare-report",
      work + "/replay.json"};
  if (!run.options.driver.empty()) {
    argv.push_back("--driver");
    argv.push_back(run.options.driver);
  }
  // Against the trace's own images, when it has any: without, its frames
  // have nothing to be judged by (said per frame).
  bool against_trace = (e == nullptr || (e->checksums.empty() && e->goldens.empty())) &&
                       glreplay::trace_holds_images(trace);
  if (against_trace) {
    std::string tolerance =
        e != nullptr && !e->tolerance.empty() ? e->tolerance : run.file.tolerance;
    argv.push_back("--tolerance");
    argv.push_back(tolerance);
    argv.push_back("--diff-images");
    argv.push_back(work + "/difference");
  }
  std::string log = work + "/replay.log";
  ChildResult child = run_child(argv, log, timeout);
  if (!child.error.empty()) {
    r.outcome = Outcome::kError;
    r.message = child.error;
    return r;
  }
  if (child.timed_out) {
    r.outcome = Outcome::kHang;
    char text[96];
    snprintf(text, sizeof text, "the replay ran past its timeout of %g s and was killed", timeout);
    r.message = text;
    return r;
  }
  if (WIFSIGNALED(child.status)) {
    r.outcome = Outcome::kCrash;
    r.message = std::string("the replay died of ") + strsignal(WTERMSIG(child.status)) + ": " +
                log_tail(log);
    return r;
  }
  nlohmann::json report;
  {
    std::ifstream in(work + "/replay.json");
    report = nlohmann::json::parse(in, nullptr, false);
  }
  if (report.is_discarded() || !report.is_object() || !report.contains("replay")) {
    r.outcome = Outcome::kError;
    r.message = "the replay failed (status " + std::to_string(WEXITSTATUS(child.status)) +
                "): " + log_tail(log);
    return r;
  }
  for (uint64_t& f : frames)
    if (f == kLastFrame) f = last_replayed_frame(work + "/frames", count != 0 ? count - 1 : 0);
  bool all_replayed = true;
  for (size_t i = 0; i < frames.size(); ++i) {
    r.frames.push_back(judge_frame(run, e, i, frames[i], work, report));
    all_replayed = all_replayed && !r.frames.back().checksum.empty();
  }
  if (all_replayed)
    for (const FrameResult& f : r.frames) r.checksums.push_back(f.checksum);
  std::string failed;
  for (const FrameResult& f : r.frames) {
    if (frame_passes(f)) continue;
    if (!failed.empty()) failed += ", ";
    failed += "frame " + std::to_string(f.frame) + " " +
              (f.verdict == "no_expectation"
                   ? "has no expectation for this device and the trace no image of it"
               : f.verdict == "missing"        ? "was not replayed"
               : f.verdict == "missing_golden" ? "has no readable golden image (" + f.expected + ")"
               : f.verdict == "size_differs"   ? "differs in size"
                                               : f.verdict);
  }
  const nlohmann::json& totals = report["replay"];
  uint64_t errors = json_or(totals, "errors", uint64_t{0});
  std::string stopped = json_or<std::string>(totals, "stopped", "");
  std::string also;
  if (errors != 0) also = "; " + std::to_string(errors) + " calls could not be replayed";
  if (!stopped.empty()) also += "; the replay stopped: " + stopped;
  if (!failed.empty()) {
    r.outcome = Outcome::kFail;
    r.message = failed + also;
  } else {
    r.message = std::to_string(frames.size()) + (frames.size() == 1 ? " frame" : " frames") +
                " as expected" + also;
  }
  return r;
}

// The frames the trace's index lists (*count; 0 without an index); false
// with *error when a frame the entry names is beyond them.
bool count_frames(const TraceEntry& entry, const std::string& trace, uint64_t* count,
                  std::string* error) {
  format::ChunkReader reader;
  *count = 0;
  // Entries are frame starts in chunks, more than one to a frame where
  // threads interleave: the count is the highest frame's number + 1.
  if (reader.open(trace) && reader.index() != nullptr)
    for (const format::IndexEntry& e : reader.index()->entries)
      *count = std::max(*count, e.frame + 1);
  for (uint64_t f : entry.frames) {
    if (f != kLastFrame && *count != 0 && f >= *count) {
      *error =
          "it has " + std::to_string(*count) + " frames: there is no frame " + std::to_string(f);
      return false;
    }
  }
  return true;
}

// What a label makes of an outcome.
Status status_of(Outcome outcome, Label label) {
  switch (label) {
    case Label::kFlaky:
      return outcome == Outcome::kPass    ? Status::kPass
             : outcome == Outcome::kError ? Status::kError
                                          : Status::kFlaky;
    case Label::kBroken:
      if (outcome == Outcome::kFail) return Status::kExpected;
      break;
    case Label::kCrash:
      if (outcome == Outcome::kCrash) return Status::kExpected;
      break;
    case Label::kHang:
      if (outcome == Outcome::kHang) return Status::kExpected;
      break;
    default:
      break;
  }
  bool expects_failure = label == Label::kBroken || label == Label::kCrash || label == Label::kHang;
  switch (outcome) {
    case Outcome::kPass:
      return expects_failure ? Status::kUnexpectedPass : Status::kPass;
    case Outcome::kFail:
      return Status::kFail;
    case Outcome::kCrash:
      return Status::kCrash;
    case Outcome::kHang:
      return Status::kHang;
    case Outcome::kError:
      return Status::kError;
  }
  return Status::kError;
}

// --update: this run's images become the device's expectation of the trace
// (checksums, and golden images beside the file), its hash the file's.
void record_update(Run& run, TraceEntry& entry, const std::string& hash,
                   const std::vector<FrameResult>& frames,
                   const std::vector<std::string>& checksums, const std::string& work) {
  std::string device = run.device;
  std::vector<std::string> goldens;
  for (const FrameResult& f : frames) {
    std::string relative = "goldens/" + slug(entry.name) + "-" + slug(device) + "-f" +
                           std::to_string(f.frame) + ".png";
    std::error_code ec;
    fs::create_directories(run.file.resolve("goldens"), ec);
    fs::copy_file(glreplay::snapshot_png(work + "/frames", f.frame), run.file.resolve(relative),
                  fs::copy_options::overwrite_existing, ec);
    if (ec) {
      fprintf(stderr, "%s: cannot keep %s: %s\n", run.options.program.c_str(),
              run.file.resolve(relative).c_str(), ec.message().c_str());
      return;
    }
    goldens.push_back(relative);
  }
  std::lock_guard<std::mutex> lock(run.update_lock);
  entry.hash = hash;
  Expectation& e = entry.expectation_for_update(device);
  e.checksums = checksums;
  e.goldens = goldens;
  ++run.updated;
}

void record_hash(Run& run, TraceEntry& entry, const std::string& hash) {
  std::lock_guard<std::mutex> lock(run.update_lock);
  entry.hash = hash;
  ++run.hashes_only;
}

TraceResult check_trace(Run& run, size_t index, TraceEntry& entry) {
  const CheckOptions& options = run.options;
  TraceResult result;
  result.index = index;
  result.name = entry.name;
  result.path = entry.path;
  result.hash = entry.hash;
  const Expectation* e = entry.expectation(run.device);
  Label label = e != nullptr ? e->label : Label::kNone;
  result.label = label_name(label);
  if (label == Label::kSkip || (label == Label::kSlow && !options.slow)) {
    result.status = Status::kSkip;
    result.message = label == Label::kSkip ? "labelled skip" : "labelled slow (--slow runs it)";
    if (e != nullptr && !e->note.empty()) result.message += ": " + e->note;
    return result;
  }
  auto start = Clock::now();
  std::string trace = run.file.resolve(entry.path);
  std::string hash, error;
  uint64_t count = 0;
  if (!hash_file(trace, &hash, &error) || !count_frames(entry, trace, &count, &error)) {
    result.status = Status::kError;
    result.message = error;
    return result;
  }
  if (entry.hash.empty() && !options.update) {
    result.status = Status::kError;
    result.message = "the file gives no hash of it (gltrace check --update records it)";
    return result;
  }
  if (hash != entry.hash && !options.update) {
    result.status = Status::kError;
    result.message = "the file is not the trace expected: its hash is " + hash + ", the file " +
                     "expects " + entry.hash + " (gltrace check --update takes the new one)";
    return result;
  }
  std::string work = options.results + "/work/" + std::to_string(index) + "-" + slug(entry.name);
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work + "/frames", ec);
  double timeout = options.timeout ? *options.timeout
                   : entry.timeout ? *entry.timeout
                                   : run.file.timeout;
  Replayed replayed = replay_trace(run, e, trace, entry.frames, count, work, timeout);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.status = status_of(replayed.outcome, label);
  result.message = replayed.message;
  if (e != nullptr && !e->note.empty() && label != Label::kNone)
    result.message += " (" + e->note + ")";
  result.frames = std::move(replayed.frames);
  if (options.update) {
    bool same = hash == entry.hash;
    for (const FrameResult& f : result.frames) same = same && f.verdict == "checksum";
    // The images when every frame was replayed; the hash whatever happened,
    // so that the next run reports the replay's failure, not a missing hash.
    if (!same && !replayed.checksums.empty())
      record_update(run, entry, hash, result.frames, replayed.checksums, work);
    else if (hash != entry.hash)
      record_hash(run, entry, hash);
  }
  if (result.status == Status::kPass || result.status == Status::kSkip) {
    fs::remove_all(work, ec);
    return result;
  }
  // Kept: the replay's log and images, and the difference images.
  std::string kept = options.results + "/failed/" + std::to_string(index) + "-" + slug(entry.name);
  fs::remove_all(kept, ec);
  fs::create_directories(options.results + "/failed", ec);
  fs::rename(work, kept, ec);
  std::string base = ec ? work : kept;
  auto moved = [&](std::string& path) {
    if (!path.empty() && path.compare(0, work.size(), work) == 0)
      path = base + path.substr(work.size());
  };
  result.log = base + "/replay.log";
  for (FrameResult& f : result.frames) {
    if (!f.checksum.empty()) f.image = glreplay::snapshot_png(base + "/frames", f.frame);
    moved(f.difference);
    // Against the trace's own image: the replay wrote it and the difference
    // (frame-NNNNNN-call-C-swap-differs-{traced,difference}.png).
    if (f.difference.empty() && f.verdict == "differs") {
      std::string prefix = fs::path(glreplay::snapshot_png("", f.frame)).stem().string() + "-";
      for (const auto& file : fs::directory_iterator(base + "/difference", ec)) {
        std::string name = file.path().filename().string();
        if (name.compare(0, prefix.size(), prefix) != 0 || name.find("-swap-") == std::string::npos)
          continue;
        if (name.ends_with("-difference.png")) f.difference = file.path().string();
        if (name.ends_with("-traced.png")) f.expected = file.path().string();
      }
    }
  }
  return result;
}

void print_result(const TraceResult& r) {
  static const char* kWords[] = {"PASS", "FAIL",  "CRASH",    "HANG",           "ERROR",
                                 "SKIP", "FLAKY", "EXPECTED", "UNEXPECTED PASS"};
  printf("%-8s %s (%.1f s): %s\n", kWords[static_cast<int>(r.status)], r.name.c_str(), r.seconds,
         r.message.c_str());
  fflush(stdout);
}

void print_summary(const Report& report) {
  std::string line;
  for (Status s : {Status::kPass, Status::kFail, Status::kCrash, Status::kHang, Status::kError,
                   Status::kSkip, Status::kFlaky, Status::kExpected, Status::kUnexpectedPass}) {
    size_t n = report.count(s);
    if (n != 0) line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + status_name(s);
  }
  printf("check: %zu traces on %s: %s\n", report.results.size(),
         report.device.empty()
             ? ("a device the file does not name (" + report.driver.text() + ")").c_str()
             : report.device.c_str(),
         line.empty() ? "none run" : line.c_str());
}

bool write_reports(const std::string& program, const Report& report, const std::string& json,
                   const std::string& junit) {
  std::string error;
  if (!write_text(json, report_json(report), &error) ||
      !write_text(junit, report_junit(report), &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return false;
  }
  printf("check: results in %s and %s\n", json.c_str(), junit.c_str());
  return true;
}

}  // namespace

int run_check(const CheckOptions& options) {
  const std::string& program = options.program;
  Expectations file;
  std::string error;
  if (!read_expectations(options.expectations, &file, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitCannotRun;
  }
  for (const std::string& name : options.traces) {
    bool known = false;
    for (const TraceEntry& t : file.traces) known = known || t.name == name;
    if (!known) {
      fprintf(stderr, "%s: %s lists no trace %s\n", program.c_str(), file.path.c_str(),
              name.c_str());
      return kExitCannotRun;
    }
  }
  std::string driver_dir;
  if (!glreplay::choose_driver_for(program, options.driver.empty() ? "default" : options.driver,
                                   &driver_dir))
    return kExitCannotRun;
  Report report;
  if (!probe_driver(driver_dir, &report.driver, &error)) {
    fprintf(stderr, "%s: %s: %s\n", program.c_str(),
            options.driver.empty() ? "the default driver" : options.driver.c_str(), error.c_str());
    return kExitCannotRun;
  }
  const Device* device = file.device_of(report.driver, &error);
  if (device == nullptr && !error.empty()) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitCannotRun;
  }
  if (device == nullptr && options.update) device = &file.add_device(report.driver);
  printf("check: driver %s: %s\n", report.driver.text().c_str(),
         device != nullptr ? ("device " + device->name + " of " + file.path).c_str()
                           : "no device of the file: each trace is compared with its own images");
  if (options.shard.total > 1)
    printf("check: shard %u of %u (%s)\n", options.shard.index, options.shard.total,
           options.shard.from.c_str());
  std::error_code ec;
  fs::create_directories(options.results, ec);
  if (ec) {
    fprintf(stderr, "%s: cannot make %s: %s\n", program.c_str(), options.results.c_str(),
            ec.message().c_str());
    return kExitCannotRun;
  }
  if (!hash_file(file.path, &report.expectations_hash, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitCannotRun;
  }
  report.expectations = file.path;
  report.device = device != nullptr ? device->name : "";
  report.driver_choice = options.driver.empty() ? "default" : options.driver;
  report.shard = options.shard.index;
  report.shards = options.shard.total;
  report.traces = file.traces.size();

  Run run{options, file, report.device, {}, 0, 0};
  std::vector<size_t> mine;
  for (size_t i = 0; i < file.traces.size(); ++i) {
    bool named = options.traces.empty();
    for (const std::string& n : options.traces) named = named || n == file.traces[i].name;
    if (named && options.shard.holds(i)) mine.push_back(i);
  }
  // When only some traces are named, the report is of those alone.
  if (!options.traces.empty()) report.traces = mine.size();
  std::vector<TraceResult> results(mine.size());
  std::atomic<size_t> next{0};
  std::mutex print_lock;
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < mine.size();) {
      try {
        results[k] = check_trace(run, mine[k], file.traces[mine[k]]);
      } catch (const std::exception& e) {  // (the filesystem, JSON): one trace's error
        results[k].index = mine[k];
        results[k].name = file.traces[mine[k]].name;
        results[k].path = file.traces[mine[k]].path;
        results[k].status = Status::kError;
        results[k].message = std::string("check failed on it: ") + e.what();
      }
      std::lock_guard<std::mutex> lock(print_lock);
      print_result(results[k]);
    }
  };
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < std::max(1u, options.jobs); ++j) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();
  fs::remove(options.results + "/work", ec);  // empty once every trace is done
  report.results = std::move(results);
  print_summary(report);
  std::string json = options.json.empty() ? options.results + "/results.json" : options.json;
  std::string junit = options.junit.empty() ? options.results + "/junit.xml" : options.junit;
  bool written = write_reports(program, report, json, junit);
  if (const char* status = getenv("GTEST_SHARD_STATUS_FILE"); status != nullptr && *status) {
    // GoogleTest's protocol: a runner that shards says so by this file.
    FILE* f = fopen(status, "w");
    if (f != nullptr) fclose(f);
  }
  if (options.update) {
    if (run.updated + run.hashes_only != 0 && !write_expectations(file, &error)) {
      fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
      return kExitCannotRun;
    }
    std::string hashes = run.hashes_only == 0
                             ? ""
                             : " and the hashes alone of " + std::to_string(run.hashes_only) +
                                   " not replayed to the end";
    printf("check: --update recorded %zu traces' images for device %s%s in %s\n", run.updated,
           report.device.c_str(), hashes.c_str(), file.path.c_str());
    return written ? 0 : kExitRunFailed;
  }
  return report.failed() || !written ? kExitRunFailed : 0;
}

int merge_check(const std::string& program, const std::vector<std::string>& paths,
                const std::string& json, const std::string& junit) {
  std::vector<Report> shards(paths.size());
  std::string error;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!read_report_json(paths[i], &shards[i], &error)) {
      fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
      return kExitCannotRun;
    }
  }
  Report merged;
  if (!merge_reports(shards, &merged, &error)) {
    fprintf(stderr, "%s: --merge: %s\n", program.c_str(), error.c_str());
    return kExitCannotRun;
  }
  print_summary(merged);
  std::error_code ec;  // the reports' folders, as a run makes its results folder
  for (const std::string* path : {&json, &junit})
    if (fs::path parent = fs::path(*path).parent_path(); !parent.empty())
      fs::create_directories(parent, ec);
  if (!write_reports(program, merged, json, junit)) return kExitCannotRun;
  return merged.failed() ? kExitRunFailed : 0;
}

}  // namespace gltrace::check
