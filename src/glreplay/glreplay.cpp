#include "glreplay/glreplay.h"

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/progress.h"
#include "format/reader.h"
#include "glreplay/check.h"
#include "glreplay/compare.h"
#include "glreplay/driver_choice.h"
#include "glreplay/executor.h"
#include "glreplay/outcomes.h"
#include "glreplay/profile_report.h"
#include "glreplay/profile_timeline.h"
#include "glreplay/profiler.h"
#include "glreplay/requirements_check.h"
#include "glreplay/session.h"
#include "glreplay/state_worker.h"
#include "glreplay/trace_source.h"
#include "glreplay/trim.h"
#include "replay/preload_source.h"
#include "replay/read_ahead_source.h"
#include "replay/replayer.h"

namespace gltrace::glreplay {

using cli::kExitFailure;
using cli::kExitOk;

namespace {

struct FrontOptions {
  std::string trace;
  ExecutorOptions executor;
  bool benchmark = false;
  bool x11 = false;
  bool stop_on_error = false;
  bool snapshot = false;
  bool check = false;
  bool state_worker = false;
  bool follow = false;
  std::string driver;      // --driver, as given
  std::string driver_dir;  // where it loads from (choose_driver)
  uint64_t blob_memory_mib = 1024;
  // --preload: calls read into memory up to this many bytes before the
  // replay starts.
  std::optional<uint64_t> preload_bytes;
};

bool parse_number(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  *out = strtoull(text.c_str(), nullptr, 10);
  return errno == 0;
}

// "N", "N-M", "N-", "-M" or "all".
bool parse_frames(const std::string& text, std::pair<uint64_t, uint64_t>* out) {
  if (text == "all") {
    *out = {0, UINT64_MAX};
    return true;
  }
  size_t dash = text.find('-');
  if (dash == std::string::npos) {
    uint64_t n;
    if (!parse_number(text, &n)) return false;
    *out = {n, n};
    return true;
  }
  std::string a = text.substr(0, dash), b = text.substr(dash + 1);
  out->first = 0;
  out->second = UINT64_MAX;
  if ((a.empty() && b.empty()) || (!a.empty() && !parse_number(a, &out->first)) ||
      (!b.empty() && !parse_number(b, &out->second)))
    return false;
  return out->first <= out->second;
}

}  // namespace

struct ReplayArguments {
  replay::ReplayOptions options;
  FrontOptions front;
  std::string compare;         // --compare[=T]: T, "" when not given
  std::string tolerance;       // --tolerance SPEC
  std::string compare_report;  // --compare-report FILE
  std::string snapshot;        // --snapshot FRAMES
  uint64_t loop = 0;           // --loop N
  std::string frames;          // --frames A-B
  std::string outcomes;        // --outcomes FILE
  std::string profile;         // --profile[=TABLES]: TABLES, "" when not given
  std::string profile_format = "text";
  size_t profile_top = 10;
  std::optional<uint64_t> profile_frame;
  std::string profile_output;  // --profile-output FILE
  std::string perfetto;        // --perfetto FILE
  std::string preload;         // --preload[=MIB]: MIB, "auto" without one, "" when not given
};

namespace {

// --preload's budget without one: a quarter of the physical memory (a
// trace too big for it streams the rest).
uint64_t default_preload_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{1} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 4;
}

// What the front end's options say together; empty when fine, else the
// usage error.
std::string check_front(FrontOptions* o, const ReplayArguments& args) {
  const std::string& compare = args.compare;
  const std::string& snapshot = args.snapshot;
  if (!compare.empty()) {
    o->executor.compare = true;
    o->executor.threshold = std::stoi(compare);  // checked: 0 to 255
  }
  if (!args.tolerance.empty()) {
    Tolerance tolerance;
    std::string error;
    if (!parse_tolerance(args.tolerance, &tolerance, &error)) return "--tolerance: " + error;
    o->executor.tolerance = tolerance;
    o->executor.compare = true;
  }
  if (!o->executor.compare && !o->executor.diff_dir.empty())
    return "--diff-images goes with --compare or --tolerance";
  if (!snapshot.empty()) {
    std::pair<uint64_t, uint64_t> frames;
    if (!parse_frames(snapshot, &frames))
      return "--snapshot wants frames: N, N-M, N- or all, not '" + snapshot + "'";
    o->executor.snapshot_frames = frames;
    o->snapshot = true;
  }
  if (o->snapshot && o->executor.snapshot_dir.empty()) return "--snapshot needs -o DIR";
  if (!o->snapshot && !o->executor.snapshot_dir.empty()) return "-o DIR is for --snapshot";
  if (o->check && (o->snapshot || o->executor.compare || o->benchmark || o->x11))
    return "--check replays nothing: it takes no --compare, --snapshot, --benchmark or --x11";
  if (o->state_worker && (o->check || o->snapshot || o->executor.compare || o->benchmark ||
                          o->x11 || o->stop_on_error))
    return "--state-worker replays headless, call by call, as its requests say: it takes no "
           "--check, --compare, --snapshot, --benchmark, --x11 or --stop-on-error";
  if (o->follow && !o->state_worker) return "--follow goes with --state-worker";
  if (!args.preload.empty()) {
    if (o->check || o->state_worker)
      return "--preload goes with a replay: not --check or --state-worker";
    uint64_t mib = 0;
    if (args.preload == "auto")
      o->preload_bytes = default_preload_bytes();
    else if (parse_number(args.preload, &mib) && mib <= (uint64_t{1} << 40))
      o->preload_bytes = mib << 20;
    else
      return "--preload wants a budget in MiB (--preload=MIB), not '" + args.preload + "'";
  }
  if (o->benchmark && (o->snapshot || o->executor.compare))
    return "--benchmark replays without checks: drop --compare and --snapshot";
  return {};
}

// "min M, median D, max X ms" of a list of times.
std::string spread(std::vector<double> ms) {
  if (ms.empty()) return "none";
  std::sort(ms.begin(), ms.end());
  char text[96];
  snprintf(text, sizeof text, "min %.3f, median %.3f, max %.3f ms", ms.front(), ms[ms.size() / 2],
           ms.back());
  return text;
}

// --loop's lines: iteration and frame times, memory, and whether every
// iteration drew the first's frames. False when one did not.
bool print_loop_report(const std::vector<PassRecord>& passes, bool compared) {
  if (passes.empty()) return true;
  std::vector<double> iterations, frames;
  for (const PassRecord& pass : passes) {
    double sum = 0;
    for (double ms : pass.frame_ms) sum += ms;
    iterations.push_back(sum);
    frames.insert(frames.end(), pass.frame_ms.begin(), pass.frame_ms.end());
  }
  printf("loop: %zu iterations of %zu frames: iteration %s; frame %s\n", passes.size(),
         passes.front().frame_ms.size(), spread(iterations).c_str(), spread(frames).c_str());
  std::string memory;
  for (size_t i : {size_t{1}, size_t{10}, size_t{100}, size_t{1000}, passes.size()}) {
    if (i > passes.size() || memory.find(" " + std::to_string(i) + ":") != std::string::npos)
      continue;
    char text[64];
    snprintf(text, sizeof text, "%s %zu: %.1f MiB", memory.empty() ? "" : ",", i,
             static_cast<double>(passes[i - 1].peak_rss_kib) / 1024);
    memory += text;
  }
  printf("loop: peak memory after iteration%s\n", memory.c_str());
  if (!compared) return true;
  for (size_t i = 1; i < passes.size(); ++i) {
    const std::vector<uint32_t>& first = passes.front().frame_crcs;
    const std::vector<uint32_t>& these = passes[i].frame_crcs;
    for (size_t f = 0; f < std::max(first.size(), these.size()); ++f) {
      if (f < first.size() && f < these.size() && first[f] == these[f]) continue;
      printf("loop: iteration %zu frame %zu differs from iteration 1's\n", i + 1, f);
      return false;
    }
  }
  printf("loop: every iteration's %zu frames identical to the first's\n",
         passes.front().frame_crcs.size());
  return true;
}

// --check: the validation of every call, no GL.
int run_check(const FrontOptions& front, const std::string& program) {
  constexpr size_t kMaxLines = 50;
  auto info = std::make_shared<TraceInfo>();
  SourceOptions source_options;
  source_options.blob_memory = front.blob_memory_mib << 20;
  TraceSource source(info, source_options);
  std::string error;
  if (!source.open(front.trace, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitFailure;
  }
  CheckReport report;
  bool read = check_trace(source, &report, kMaxLines);
  for (const std::string& line : report.lines) printf("%s\n", line.c_str());
  if (report.refused > kMaxLines) printf("... and %" PRIu64 " more\n", report.refused - kMaxLines);
  printf("checked %" PRIu64 " calls: %" PRIu64 " would be refused\n", report.calls, report.refused);
  if (!read) {
    fprintf(stderr, "%s: trace error after call %" PRIu64 ": %s\n", program.c_str(), source.calls(),
            report.error.c_str());
    return kExitFailure;
  }
  if (report.refused == 0) return kExitOk;
  // The findings are the report (stdout); the verdict is said where errors go.
  fprintf(stderr, "%s: %" PRIu64 " calls of %s would be refused\n", program.c_str(), report.refused,
          front.trace.c_str());
  return kExitFailure;
}

}  // namespace

bool trace_holds_images(const std::string& path) {
  struct FirstImage : format::Consumer {
    bool found = false;
    void on_image(const format::Image&) override {
      found = true;
      request_stop();
    }
  } first;
  format::ChunkReader reader;
  if (!reader.open(path)) return true;
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, first, &status);
  return first.found || !ok;
}

namespace {

// The frames the trace's index lists (0 without an index): its entries are
// frame starts in chunks, several to a frame where threads interleave.
uint64_t indexed_frames(const std::string& path) {
  format::ChunkReader reader;
  if (!reader.open(path) || reader.index() == nullptr) return 0;
  uint64_t frames = 0;
  for (const format::IndexEntry& e : reader.index()->entries)
    frames = std::max(frames, e.frame + 1);
  return frames;
}

}  // namespace

std::shared_ptr<ReplayArguments> define_replay_command_line(cli::CommandLine& line) {
  auto args = std::make_shared<ReplayArguments>();
  FrontOptions& front = args->front;
  CLI::App& app = line.app();
  app.description(
      "Replays the EGL/GLES calls of TRACE (a .gltrace file) on this machine's driver,\n"
      "headless by default (EGL surfaceless platform: the app's windows become pbuffers\n"
      "of the recorded size), at the recorded times unless -n.");
  app.add_flag("--compare{0}", args->compare,
               "compare every framebuffer image the trace captured (gltrace trace "
               "--framebuffer swap|draw|swap,draw: at frame ends, after draws) with the "
               "replay's; T is the largest channel difference still counted as equal "
               "(default 0: exact); exit 1 if an image differs (each is reported with its "
               "call and why)")
      ->type_name("T")
      ->check(cli::in_range(0, 255));
  app.add_option("--tolerance", args->tolerance,
                 "compare with a tolerance (implies --compare): an image that is not identical "
                 "passes when every term holds: channel=N (a pixel differs when a channel "
                 "differs by more), pixels=N or P% (that many may differ), edges[=T] (pixels on "
                 "the trace image's Sobel edges, magnitude >= T, default 64, may differ), "
                 "psnr=DB, ssim=S; exact; e.g. channel=16,pixels=0.5%,edges")
      ->type_name("SPEC");
  app.add_option("--diff-images", front.executor.diff_dir,
                 "write each image that is not identical to DIR: the replay's, the trace's and "
                 "their difference (red: differs, blue: excused on an edge, yellow: within the "
                 "channel delta)")
      ->type_name("DIR");
  app.add_option("--compare-report", args->compare_report,
                 "write the replay's driver and totals (calls, frames, calls not replayed) to "
                 "FILE as JSON, and with --compare every compared image's verdict and metrics "
                 "(differing pixels, max channel difference, PSNR, SSIM)")
      ->type_name("FILE");
  app.add_option("--outcomes", args->outcomes,
                 "write what each call answered (results, outputs such as glGet* and "
                 "glReadPixels, the GL error it raised) beside what the trace recorded to FILE, "
                 "a JSON line per call: what `gltrace diverge` compares")
      ->type_name("FILE");
  app.add_flag("--profile{default}", args->profile,
               "measure what each draw, clear, blit and dispatch costs the GPU (timer queries: "
               "GL_EXT_disjoint_timer_query) and each call the CPU, replaying as fast as "
               "possible; print TABLES (default summary,programs,draws; or all): summary, frames, "
               "passes (render passes: runs of work into one framebuffer), programs, draws (the "
               "most expensive), functions (CPU time)")
      ->type_name("TABLES");
  app.add_option("--profile-format", args->profile_format,
                 "--profile's tables as text (default), csv or json")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"text", "csv", "json"}));
  app.add_option("--profile-top", args->profile_top,
                 "rows of --profile's draws table (default 10; 0: every one)")
      ->type_name("N");
  app.add_option("--profile-frame", args->profile_frame,
                 "--profile's passes, programs and draws tables of frame N only")
      ->type_name("N");
  app.add_option("--profile-output", args->profile_output,
                 "write --profile's tables to FILE instead of stdout")
      ->type_name("FILE");
  app.add_option("--perfetto", args->perfetto,
                 "with --profile: write the replay as a Perfetto timeline to FILE: each call a "
                 "slice on its thread (replay times), frames, GPU counters, and the GPU's work "
                 "as GPU render stages naming their calls")
      ->type_name("FILE");
  app.add_option("--snapshot", args->snapshot,
                 "write frames N, N-M, N- or all as PNG files to -o DIR")
      ->type_name("FRAMES");
  app.add_option("-o,--output", front.executor.snapshot_dir,
                 "where --snapshot writes (created if missing)")
      ->type_name("DIR");
  app.add_flag("--benchmark", front.benchmark,
               "as fast as possible (-n), no checks; prints frames/s, calls/s");
  app.add_flag("--preload{auto}", args->preload,
               "read and decode the calls into memory before the replay starts, so its time "
               "(--benchmark's frames/s, --loop's iterations) is the calls' execution alone, "
               "and --loop replays them again without reading; up to MIB of calls (default: a "
               "quarter of the physical memory), past which the rest is read while replaying "
               "(said on stderr)")
      ->type_name("MIB");
  app.add_flag("--x11", front.x11, "replay into X11 windows ($DISPLAY) instead of pbuffers");
  app.add_flag("--check", front.check,
               "load no GL: check every call's pointers and sizes against the bytes the trace "
               "holds and print what a replay would refuse ('call N: would refuse glX: ...'); "
               "exit 1 if anything");
  app.add_option("--driver", front.driver, kDriverOptionHelp)
      ->type_name("DRIVER")
      // An empty one is a mistake ($DRIVER unset), not `default`.
      ->check(CLI::Validator(
          [](const std::string& spec) {
            return spec.empty() ? std::string(
                                      "wants a driver (llvmpipe, softpipe, zink, default "
                                      "or a path)")
                                : "";
          },
          ""));
  app.add_flag("--state-worker", front.state_worker,
               "serve the GL state at any call to `gltrace view`: JSON requests on stdin, one "
               "JSON reply a line on stdout (docs/replay.md)");
  app.add_flag("--follow", front.follow,
               "with --state-worker: TRACE is still being written (gltrace view --attach); a "
               "call past what is written yet is said to be so, and is there once written");
  app.add_flag("--stop-on-error", front.stop_on_error,
               "stop at the first call that cannot be replayed (default: report it as "
               "'call N: ...' and go on)");
  app.add_option("--blob-memory", front.blob_memory_mib,
                 "blob bytes (textures, buffers) kept in memory (default 1024); past that the "
                 "least recently used are read again when needed")
      ->type_name("MIB")
      ->check(cli::in_range(uint64_t{0}, uint64_t{1} << 40));
  app.add_option("--loop", args->loop,
                 "replay N times, every context, object and setting made again from the "
                 "start (of --frames: their snapshot) before each; prints each iteration's "
                 "and frame's time and the memory held; with --compare, checks every "
                 "iteration's frames against the first's")
      ->type_name("N")
      ->check(cli::in_range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--frames", args->frames,
                 "replay frames A-B only: the trace cut there (as `gltrace trim` cuts it), "
                 "from a snapshot of the state where A begins")
      ->type_name("A-B");
  app.add_option("TRACE", front.trace, "the trace")->required();
  // The engine's default of 3 preparing threads only costs a thread
  // handshake per call here: prepare() is empty.
  args->options.threads = 0;
  replay::add_replay_options(app, &args->options);
  app.footer(
      "Ctrl-C enters manual mode (`h` there lists its commands); a second one exits.\n"
      "Exit status: 0 replayed (and every frame matched), 1 a call could not be\n"
      "replayed, a frame differs or the trace is damaged, 2 bad usage.");
  return args;
}

namespace {

// The driver replayed on, and the one the trace was captured on when that
// is another: images may then differ by how each rounds (--compare T).
void print_driver(const std::optional<DriverStrings>& replayed,
                  const std::optional<DriverStrings>& captured) {
  if (!replayed) return;
  printf("driver: %s; %s; %s\n", replayed->renderer.c_str(), replayed->version.c_str(),
         replayed->vendor.c_str());
  if (captured &&
      (captured->renderer != replayed->renderer || captured->version != replayed->version))
    printf("driver: the trace was captured on another: %s; %s\n", captured->renderer.c_str(),
           captured->version.c_str());
}

// The worst of the images that were not identical: what a tolerance would
// have to allow.
void print_worst(const std::vector<ImageResult>& results) {
  const ImageResult* psnr = nullptr;
  const ImageResult* ssim = nullptr;
  for (const ImageResult& r : results) {
    if (r.verdict == Verdict::kIdentical || r.size_differs) continue;
    if (psnr == nullptr || r.metrics.psnr < psnr->metrics.psnr) psnr = &r;
    if (ssim == nullptr || r.metrics.ssim < ssim->metrics.ssim) ssim = &r;
  }
  if (psnr == nullptr) return;
  printf("compare: worst PSNR %.2f dB (frame %" PRIu64 ", call %" PRIu64
         "), worst SSIM %.4f (frame %" PRIu64 ", call %" PRIu64 ")\n",
         psnr->metrics.psnr, psnr->frame, psnr->call, ssim->metrics.ssim, ssim->frame, ssim->call);
}

// --compare: every compared image and the totals.
void add_compare_report(const FrameComparer& c, nlohmann::ordered_json* out) {
  nlohmann::ordered_json& report = *out;
  report["tolerance"] = c.tolerance() ? tolerance_text(*c.tolerance()) : kExactTolerance;
  report["frames"] = {{"identical", c.frames_identical()},
                      {"within_tolerance", c.frames_within_tolerance()},
                      {"differ", c.frames_differing()},
                      {"without_trace_image", c.frames_without_image()},
                      {"not_replayed", c.frames_not_replayed()}};
  nlohmann::ordered_json& images = report["images"] = nlohmann::ordered_json::array();
  for (const ImageResult& r : c.results()) {
    nlohmann::ordered_json image = {{"frame", r.frame},
                                    {"call", r.call},
                                    {"origin", origin_name(r.origin)},
                                    {"verdict", verdict_name(r.verdict)}};
    if (r.size_differs) {
      image["size_differs"] = true;
    } else if (r.verdict != Verdict::kIdentical) {
      image["pixels"] = r.metrics.pixels;
      image["edge_pixels"] = r.metrics.edge_pixels;
      image["max_channel_difference"] = r.metrics.max_channel_difference;
      image["psnr"] = r.metrics.psnr;  // finite: something differs
      image["ssim"] = r.metrics.ssim;
    }
    images.push_back(std::move(image));
  }
}

// --compare-report: the replay's totals, and with --compare every compared
// image and the totals, as JSON (what gltrace check reads).
bool write_compare_report(const std::string& path, const FrameComparer* comparer,
                          const Session& session, const replay::ReplayStats& stats,
                          const replay::ReplayStatus& status, std::string* error) {
  nlohmann::ordered_json report;
  if (const std::optional<DriverStrings>& driver = session.driver_strings())
    report["driver"] = {
        {"vendor", driver->vendor}, {"renderer", driver->renderer}, {"version", driver->version}};
  report["replay"] = {{"calls", stats.increments},
                      {"frames", stats.frames},
                      {"seconds", stats.seconds},
                      {"errors", session.errors()},
                      {"divergent_results", session.divergent_results()},
                      {"stopped", status.ok() ? "" : status.message}};
  if (comparer != nullptr) add_compare_report(*comparer, &report);
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) {
    *error = "cannot write " + path + ": " + strerror(errno);
    return false;
  }
  std::string text = report.dump(1) + "\n";
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = fclose(f) == 0 && ok;
  if (!ok) *error = "cannot write " + path + ": " + strerror(errno);
  return ok;
}

// --profile's tables, to stdout or `path`.
bool write_profile_report(const Profiler& profiler, const ProfileReportOptions& options,
                          const std::string& path, std::string* error) {
  std::string text = profile_report(profiler.profile(), options);
  if (path.empty()) {
    fputs(text.c_str(), stdout);
    return true;
  }
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) {
    *error = "cannot write " + path + ": " + strerror(errno);
    return false;
  }
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = fclose(f) == 0 && ok;
  if (!ok) *error = "cannot write " + path + ": " + strerror(errno);
  return ok;
}

}  // namespace

std::string snapshot_png(const std::string& dir, uint64_t frame) {
  char name[48];
  snprintf(name, sizeof name, "/frame-%06" PRIu64 ".png", frame);
  return dir + name;
}

int run_replay(ReplayArguments& args, const cli::CommandLine& line) {
  const std::string& program = line.program();
  replay::ReplayOptions& options = args.options;
  FrontOptions& front = args.front;
  std::string error = check_front(&front, args);
  if (!error.empty()) return line.usage_error(error);
  if (!args.outcomes.empty() && (front.state_worker || front.check))
    return line.usage_error("--outcomes takes no --state-worker or --check");
  ProfileReportOptions profile_report_options;
  if (!args.profile.empty()) {
    if (front.state_worker || front.check || front.benchmark || args.loop != 0)
      return line.usage_error("--profile takes no --state-worker, --check, --benchmark or --loop");
    if (!parse_profile_tables(args.profile == "default" ? kDefaultProfileTables : args.profile,
                              &profile_report_options.tables, &error))
      return line.usage_error("--profile: " + error);
    profile_report_options.format = args.profile_format;
    profile_report_options.top = args.profile_top;
    profile_report_options.frame = args.profile_frame;
    options.wait = false;  // the work's cost, not the app's pace
  } else if (!args.profile_output.empty() || args.profile_frame || !args.perfetto.empty() ||
             line.app().count("--profile-format") + line.app().count("--profile-top") != 0) {
    return line.usage_error(
        "--profile-format, --profile-top, --profile-frame, "
        "--profile-output and --perfetto go with --profile");
  }
  if (front.check && !front.driver.empty())
    return line.usage_error("--check loads no driver: it takes no --driver");
  if (front.check) return run_check(front, program);
  if (!choose_driver_for(program, front.driver, &front.driver_dir)) return kExitFailure;
  if (front.state_worker) {
    if (options.manual || options.stop_at || options.loops != 1)
      return line.usage_error("--state-worker takes no -m, -s or -l");
    StateWorkerOptions worker;
    worker.trace = front.trace;
    worker.blob_memory = front.blob_memory_mib << 20;
    worker.program = program;
    worker.driver_dir = front.driver_dir;
    worker.follow = front.follow;
    return run_state_worker(worker);
  }
  // --frames: the replay is of the cut, made in a temporary file.
  std::string cut;
  if (!args.frames.empty()) {
    std::pair<uint64_t, uint64_t> frames;
    if (!parse_frames(args.frames, &frames) || frames.second == UINT64_MAX)
      return line.usage_error("--frames wants A-B, not '" + args.frames + "'");
    if (front.state_worker || front.check)
      return line.usage_error("--frames takes no --state-worker or --check");
    const char* tmp = getenv("TMPDIR");
    std::string path =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gltrace-frames-XXXXXX";
    int fd = mkstemp(path.data());
    if (fd < 0) {
      fprintf(stderr, "%s: cannot make a temporary file: %s\n", program.c_str(), strerror(errno));
      return kExitFailure;
    }
    close(fd);
    unlink(path.c_str());  // trim makes it anew, as its own
    TrimOptions trim;
    trim.trace = front.trace;
    trim.output = path;
    trim.first_frame = frames.first;
    trim.last_frame = frames.second;
    trim.program = program;
    trim.driver_dir = front.driver_dir;
    trim.quiet = true;
    if (run_trim(trim) != 0) return kExitFailure;
    cut = path;
    front.trace = path;
  }
  struct RemoveCut {
    const std::string& path;
    ~RemoveCut() {
      if (!path.empty()) unlink(path.c_str());
    }
  } remove_cut{cut};
  if (args.loop != 0) {
    if (front.state_worker || front.check || options.loops != 1)
      return line.usage_error("--loop takes no --state-worker, --check or -l");
    options.loops = args.loop;
    options.wait = false;
    front.executor.loop_stats = true;
  }
  if (front.benchmark) options.wait = false;
  // The driver allocates and frees buffer storage per call (glBufferData
  // copies); glibc's default trims the heap top back to the kernel each time,
  // so every copy page-faulted fresh pages in: 55k faults and 30% of a
  // benchmark replay. A 16 MiB pad keeps that much mapped across trims.
  mallopt(M_TOP_PAD, 16 << 20);
  // Each recorded thread on a thread of its own, in recorded order: a
  // thread's calls may use what another's made (a share group's objects).
  options.execute_on = replay::ExecuteOn::kTargetThreadInOrder;
  for (const std::string& dir :
       {front.snapshot ? front.executor.snapshot_dir : std::string(), front.executor.diff_dir})
    if (!dir.empty() && mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      fprintf(stderr, "%s: cannot create %s: %s\n", program.c_str(), dir.c_str(), strerror(errno));
      return kExitFailure;
    }

  // --compare with nothing to compare with is said before replaying, not
  // after a replay that may take minutes.
  if (front.executor.compare && front.trace != "-" && !trace_holds_images(front.trace)) {
    fprintf(stderr,
            "%s: %s holds no framebuffer images to compare with (trace with --framebuffer "
            "swap or draw, or replay without --compare)\n",
            program.c_str(), front.trace.c_str());
    return kExitFailure;
  }

  auto info = std::make_shared<TraceInfo>();
  SourceOptions source_options;
  source_options.keep_images = front.executor.compare;
  source_options.blob_memory = front.blob_memory_mib << 20;
  TraceSource source(info, source_options);
  if (!source.open(front.trace, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitFailure;
  }
  SessionOptions session_options;
  session_options.x11 = front.x11;
  session_options.stop_on_error = front.stop_on_error;
  session_options.program = program;
  session_options.driver_dir = front.driver_dir;
  OutcomeWriter outcomes;
  if (!args.outcomes.empty()) {
    if (!outcomes.open(args.outcomes, &error)) {
      fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
      return kExitFailure;
    }
    session_options.outcomes = true;
    front.executor.outcomes = &outcomes;
  }
  Session session(session_options, info);
  std::optional<Profiler> profiler;
  ProfileTimeline timeline;
  if (!args.profile.empty()) {
    profiler.emplace(session);
    front.executor.profiler = &*profiler;
    if (!args.perfetto.empty()) {
      if (!timeline.open(args.perfetto, front.trace, &error)) {
        fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
        return kExitFailure;
      }
      profiler->set_timeline(&timeline);
    }
  }
  // What the trace needs of the driver, scanned while the replay starts and
  // checked at its first context (a pipe cannot be read twice).
  std::shared_ptr<RequirementsCheck> requirements;
  if (front.trace != "-") {
    requirements = std::make_shared<RequirementsCheck>(front.trace, program);
    session.set_requirements_check(requirements);
  }
  if (!session.init(&error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitFailure;
  }
  // A progress line on a terminal (not for --benchmark: drawing it would
  // be measured); the share done is of the frames the index lists.
  Progress progress(program,
                    front.benchmark || front.trace == "-" ? 0 : indexed_frames(front.trace));
  if (!front.benchmark) front.executor.progress = &progress;
  GlExecutor executor(session, front.executor);
  replay::ReplayStatus status;
  replay::ReplayStats stats;
  {
    // Reading and decompressing go to a thread of their own: the replay's
    // main thread only executes.
    replay::ReadAheadSource ahead(source);
    // --preload: read before the Replayer (and its clock) starts; it
    // outlives the Replayer, which may hold its calls until it ends.
    std::optional<replay::PreloadSource> preloaded;
    replay::IncrementSource* calls = &ahead;
    if (front.preload_bytes) {
      preloaded.emplace(ahead, *front.preload_bytes);
      preloaded->preload();
      if (preloaded->over_budget())
        fprintf(stderr,
                "%s: --preload stopped at %zu calls (%.1f MiB), its budget of %" PRIu64
                " MiB: the rest is read while replaying\n",
                program.c_str(), preloaded->preloaded(),
                static_cast<double>(preloaded->preloaded_bytes()) / (1 << 20),
                *front.preload_bytes >> 20);
      calls = &*preloaded;
    }
    replay::Replayer replayer(*calls, executor, options);
    status = replayer.replay();
    stats = replayer.stats();
  }
  progress.finish();
  executor.finish();
  // No ES context of the trace's was ever current here: the driver is
  // asked through one of the check's own.
  if (requirements && !requirements->asked_driver())
    requirements->check_with_own_context(session.gl(), session.display());
  session.shutdown();

  int exit_status = kExitOk;
  if (!status.ok()) {
    fprintf(stderr, "%s: %s\n", program.c_str(), status.message.c_str());
    exit_status = kExitFailure;
  }
  // Calls lost while the capture ran make the replay unfaithful; the tail a
  // killed capture lost only ends it early (warned, as a cut file is).
  for (const SeqGap& gap : source.gaps()) {
    fprintf(stderr, "%s: %s\n", program.c_str(), describe_gap(gap).c_str());
    if (gap.while_recording) exit_status = kExitFailure;
  }
  if (const MoreGaps& more = source.more_gaps(); more.gaps != 0) {
    fprintf(stderr,
            "%s: and %" PRIu64 " more gaps (%" PRIu64 " calls) are missing from the trace\n",
            program.c_str(), more.gaps, more.calls);
    if (more.while_recording) exit_status = kExitFailure;
  }
  if (front.benchmark) {
    printf("%" PRIu64 " frames, %" PRIu64 " calls in %.3f s: %.1f frames/s, %.0f calls/s\n",
           stats.frames, stats.increments, stats.seconds, stats.frames_per_second(),
           stats.calls_per_second());
  } else {
    printf("replayed %" PRIu64 " calls, %" PRIu64 " frames in %.3f s (recorded: %.3f s)\n",
           stats.increments, stats.frames, stats.seconds, stats.recorded_seconds);
  }
  print_driver(session.driver_strings(), info->capture_driver());
  if (executor.borrowed_calls() != 0 || source.replay_threads() > 1)
    printf("threads: %zu replay threads for the recorded threads that had a context; %" PRIu64
           " calls of threads without one ran on the main thread\n",
           source.replay_threads(), executor.borrowed_calls());
  if (stats.timed_frames != 0)
    printf("timing: frames were %.2f ms late on average, at most %.2f ms (frame %" PRIu64 ")\n",
           stats.mean_lateness_ns / 1e6, static_cast<double>(stats.max_lateness_ns) / 1e6,
           stats.max_lateness_frame);
  if (source.blobs_read_again() != 0)
    printf("%" PRIu64 " blobs read again from the trace (over --blob-memory %" PRIu64 " MiB)\n",
           source.blobs_read_again(), front.blob_memory_mib);
  if (front.snapshot)
    printf("%" PRIu64 " snapshots written to %s\n", executor.snapshots_written(),
           front.executor.snapshot_dir.c_str());
  if (args.loop != 0 && !print_loop_report(executor.pass_records(), front.executor.compare))
    exit_status = kExitFailure;
  if (front.executor.compare) {
    const FrameComparer& c = executor.comparer();
    const char* within = front.executor.threshold != 0 ? " (within the threshold)" : "";
    // After one whole pass every trace image had its replayed one (a loop's
    // later passes read the images again and compare nothing); one left has
    // none: the replay could not read its framebuffer there, or stopped
    // before it.
    uint64_t left = executor.passes() == 1 ? info->images_left() : 0;
    // With a tolerance, the images it let pass are counted apart.
    std::string tolerated, tolerated_images;
    if (c.tolerance()) {
      tolerated = ", " + std::to_string(c.frames_within_tolerance()) + " within the tolerance (" +
                  tolerance_text(*c.tolerance()) + ")";
      tolerated_images = ", " + std::to_string(c.within_tolerance()) + " within the tolerance";
    }
    printf("compare: %" PRIu64 " frames identical%s%s, %" PRIu64 " differ, %" PRIu64
           " without a trace image, %" PRIu64 " not replayed\n",
           c.frames_identical(), within, tolerated.c_str(), c.frames_differing(),
           c.frames_without_image(), c.frames_not_replayed());
    printf("compare: %" PRIu64 " images identical%s (%" PRIu64 " at swaps, %" PRIu64
           " at off-screen frame ends, %" PRIu64 " after draws)%s, %" PRIu64 " differ, %" PRIu64
           " without a trace image, %" PRIu64 " not replayed\n",
           c.identical(), within, c.identical(ImageOrigin::kSwap),
           c.identical(ImageOrigin::kFinish), c.identical(ImageOrigin::kDraw),
           tolerated_images.c_str(), c.differing(), c.without_image(), c.not_replayed() + left);
    print_worst(c.results());
    if (!info->has_images()) {
      fprintf(stderr,
              "%s: %s holds no framebuffer images to compare with (trace with "
              "--framebuffer swap or draw)\n",
              program.c_str(), front.trace.c_str());
      exit_status = kExitFailure;
    }
    if (left != 0)
      printf("compare: %" PRIu64 " trace images had no replayed image: %s\n", left,
             status.ok() ? "the replay could not read its framebuffer there"
                         : "the replay stopped before them");
    if (c.not_replayed() + left != 0) exit_status = kExitFailure;
    if (c.differing() != 0) exit_status = kExitFailure;
    // Not the replay's fault: the trace says where its start is not exact.
    std::vector<std::string> inexact = info->snapshot_inexact();
    uint64_t count = info->snapshot_inexact_count();
    if (count != 0) {
      printf("compare: the trace's snapshot says %" PRIu64 " objects are not exact%s:\n", count,
             c.differing() != 0 ? " (frames that differ may show them)" : "");
      for (const std::string& what : inexact) printf("compare:   %s\n", what.c_str());
      if (count > inexact.size())
        printf("compare:   ... and %" PRIu64 " more\n", count - inexact.size());
    }
  }
  if (session.divergent_results() != 0)
    fprintf(stderr,
            "%s: %" PRIu64
            " calls whose answer the app acted on were answered otherwise by this driver than "
            "the trace recorded (warned above): the replay may go its own way from the first\n",
            program.c_str(), session.divergent_results());
  if (session.errors() != 0) {
    fprintf(stderr, "%s: %" PRIu64 " calls could not be replayed\n", program.c_str(),
            session.errors());
    exit_status = kExitFailure;
  }
  if (profiler && !args.perfetto.empty() && !timeline.finish(profiler->profile(), &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    exit_status = kExitFailure;
  }
  if (profiler &&
      !write_profile_report(*profiler, profile_report_options, args.profile_output, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    exit_status = kExitFailure;
  }
  if (!outcomes.close(&error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    exit_status = kExitFailure;
  }
  if (!args.compare_report.empty() &&
      !write_compare_report(args.compare_report,
                            front.executor.compare ? &executor.comparer() : nullptr, session, stats,
                            status, &error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    exit_status = kExitFailure;
  }
  return exit_status;
}

}  // namespace gltrace::glreplay
