#include "glreplay/glreplay.h"

#include <malloc.h>
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "glreplay/check.h"
#include "glreplay/executor.h"
#include "glreplay/session.h"
#include "glreplay/state_worker.h"
#include "glreplay/trace_source.h"
#include "replay/read_ahead_source.h"
#include "replay/replayer.h"

namespace gltrace::glreplay {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct FrontOptions {
  std::string trace;
  ExecutorOptions executor;
  bool benchmark = false;
  bool x11 = false;
  bool stop_on_error = false;
  bool snapshot = false;
  bool check = false;
  bool state_worker = false;
  std::string driver_dir;
  uint64_t blob_memory_mib = 1024;
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

// The front end's own options (what parse_replay_options left). Empty on
// success, else the usage error.
std::string parse_front(const std::vector<std::string>& args, FrontOptions* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--compare") {
      o->executor.compare = true;
    } else if (a.rfind("--compare=", 0) == 0) {
      uint64_t t;
      if (!parse_number(a.substr(10), &t) || t > 255)
        return "--compare=T wants a channel difference from 0 to 255";
      o->executor.compare = true;
      o->executor.threshold = static_cast<int>(t);
    } else if (a == "--snapshot") {
      std::pair<uint64_t, uint64_t> frames;
      if (!has_value || !parse_frames(args[++i], &frames))
        return "--snapshot wants frames: N, N-M, N- or all";
      o->executor.snapshot_frames = frames;
      o->snapshot = true;
    } else if (a == "-o" || a == "--output") {
      if (!has_value) return a + " wants a directory";
      o->executor.snapshot_dir = args[++i];
    } else if (a == "--benchmark") {
      o->benchmark = true;
    } else if (a == "--x11") {
      o->x11 = true;
    } else if (a == "--check") {
      o->check = true;
    } else if (a == "--state-worker") {
      o->state_worker = true;
    } else if (a == "--driver") {
      if (!has_value || args[i + 1].empty()) return "--driver wants a directory";
      o->driver_dir = args[++i];
    } else if (a == "--stop-on-error") {
      o->stop_on_error = true;
    } else if (a == "--blob-memory") {
      if (!has_value || !parse_number(args[++i], &o->blob_memory_mib) ||
          o->blob_memory_mib > (uint64_t{1} << 40))
        return "--blob-memory wants MiB";
    } else if (a.size() > 1 && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (o->trace.empty()) {
      o->trace = a;
    } else {
      return "one TRACE only ('" + o->trace + "' and '" + a + "')";
    }
  }
  if (o->trace.empty()) return "no TRACE given";
  if (o->snapshot && o->executor.snapshot_dir.empty()) return "--snapshot needs -o DIR";
  if (!o->snapshot && !o->executor.snapshot_dir.empty()) return "-o DIR is for --snapshot";
  if (o->check && (o->snapshot || o->executor.compare || o->benchmark || o->x11))
    return "--check replays nothing: it takes no --compare, --snapshot, --benchmark or --x11";
  if (o->state_worker && (o->check || o->snapshot || o->executor.compare || o->benchmark ||
                          o->x11 || o->stop_on_error))
    return "--state-worker replays headless, call by call, as its requests say: it takes no "
           "--check, --compare, --snapshot, --benchmark, --x11 or --stop-on-error";
  if (o->benchmark && (o->snapshot || o->executor.compare))
    return "--benchmark replays without checks: drop --compare and --snapshot";
  return {};
}

// Whether the engine options set -t (the engine's default of 3 preparing
// threads only costs a thread handshake per call here: prepare() is empty).
bool sets_threads(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || a[1] == '-') continue;
    for (size_t k = 1; k < a.size(); ++k) {
      if (a[k] == 't') return true;
      if (a[k] == 's') {
        if (k + 1 == a.size()) ++i;  // its value is the next word
        break;
      }
      if (strchr("mnlh", a[k]) == nullptr) break;
    }
  }
  return false;
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

int usage_error(const std::string& program, const char* usage, const std::string& message) {
  fprintf(stderr, "%s: %s\n\n%s", program.c_str(), message.c_str(), usage);
  return kExitUsage;
}

}  // namespace

int run_replay(const std::vector<std::string>& args, const std::string& program,
               const char* usage) {
  std::vector<const char*> argv = {program.c_str()};
  for (const std::string& a : args) {
    if (a == "--help") {
      fputs(usage, stdout);
      return kExitOk;
    }
    argv.push_back(a.c_str());
  }
  std::string error;
  replay::ReplayOptions options =
      replay::parse_replay_options(static_cast<int>(argv.size()), argv.data(), &error);
  if (!error.empty()) return usage_error(program, usage, error);
  if (options.help) {
    fputs(usage, stdout);
    return kExitOk;
  }
  FrontOptions front;
  error = parse_front(options.args, &front);
  if (!error.empty()) return usage_error(program, usage, error);
  if (front.check && !front.driver_dir.empty())
    return usage_error(program, usage, "--check loads no driver: it takes no --driver");
  if (front.check) return run_check(front, program);
  if (front.state_worker) {
    if (options.manual || options.stop_at || options.loops != 1)
      return usage_error(program, usage, "--state-worker takes no -m, -s or -l");
    StateWorkerOptions worker;
    worker.trace = front.trace;
    worker.blob_memory = front.blob_memory_mib << 20;
    worker.program = program;
    worker.driver_dir = front.driver_dir;
    return run_state_worker(worker);
  }
  if (front.benchmark) options.wait = false;
  if (!sets_threads(args)) options.threads = 0;
  // The driver allocates and frees buffer storage per call (glBufferData
  // copies); glibc's default trims the heap top back to the kernel each time,
  // so every copy page-faulted fresh pages in: 55k faults and 30% of a
  // benchmark replay. A 16 MiB pad keeps that much mapped across trims.
  mallopt(M_TOP_PAD, 16 << 20);
  // Each recorded thread on a thread of its own, in recorded order: a
  // thread's calls may use what another's made (a share group's objects).
  options.execute_on = replay::ExecuteOn::kTargetThreadInOrder;
  if (front.snapshot && mkdir(front.executor.snapshot_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: cannot create %s: %s\n", program.c_str(),
            front.executor.snapshot_dir.c_str(), strerror(errno));
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
  Session session(session_options, info);
  if (!session.init(&error)) {
    fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
    return kExitFailure;
  }
  GlExecutor executor(session, front.executor);
  replay::ReplayStatus status;
  replay::ReplayStats stats;
  {
    // Reading and decompressing go to a thread of their own: the replay's
    // main thread only executes.
    replay::ReadAheadSource ahead(source);
    replay::Replayer replayer(ahead, executor, options);
    status = replayer.replay();
    stats = replayer.stats();
  }
  executor.finish();
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
  if (front.executor.compare) {
    const FrameComparer& c = executor.comparer();
    const char* within = front.executor.threshold != 0 ? " (within the threshold)" : "";
    // After one whole pass every trace image had its replayed one (a loop's
    // later passes read the images again and compare nothing); one left has
    // none: the replay could not read its framebuffer there, or stopped
    // before it.
    uint64_t left = executor.passes() == 1 ? info->images_left() : 0;
    printf("compare: %" PRIu64 " frames identical%s, %" PRIu64 " differ, %" PRIu64
           " without a trace image, %" PRIu64 " not replayed\n",
           c.frames_identical(), within, c.frames_differing(), c.frames_without_image(),
           c.frames_not_replayed());
    printf("compare: %" PRIu64 " images identical%s (%" PRIu64 " at swaps, %" PRIu64
           " at glFinish, %" PRIu64 " after draws), %" PRIu64 " differ, %" PRIu64
           " without a trace image, %" PRIu64 " not replayed\n",
           c.identical(), within, c.identical(ImageOrigin::kSwap),
           c.identical(ImageOrigin::kFinish), c.identical(ImageOrigin::kDraw), c.differing(),
           c.without_image(), c.not_replayed() + left);
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
  }
  if (session.errors() != 0) {
    fprintf(stderr, "%s: %" PRIu64 " calls could not be replayed\n", program.c_str(),
            session.errors());
    exit_status = kExitFailure;
  }
  return exit_status;
}

}  // namespace gltrace::glreplay
