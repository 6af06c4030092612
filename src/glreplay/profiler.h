// `replay --profile`: what each draw, clear, blit and dispatch costs the GPU,
// and what every call costs the CPU.
//
// GPU times come from timer queries (EXT_disjoint_timer_query): a timestamp
// before and one after each such call (roles draw, other_draw, gpu_work,
// dispatch: api::kRoleGpuWork), on its own context. Results are read
// without stalling: at each frame's end, those the GPU has finished; they
// are waited for only before the context goes (eglMakeCurrent,
// eglDestroyContext, a thread's end, the replay's end) or when too many are
// in flight. A disjoint event (GL_GPU_DISJOINT_EXT: the GPU's clock jumped,
// its frequency changed) marks the frames it may have touched.
//
// A render pass is a run of GPU work into one framebuffer of one context
// (the draw framebuffer's binding changes, or the frame ends). The profile
// is kept as records (Profile); profile_report.h makes the tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "glreplay/call.h"

namespace gltrace::glreplay {

class ProfileTimeline;
class Session;

// One draw, clear, blit or dispatch.
struct WorkRecord {
  uint64_t seq = 0;
  uint32_t function = 0;
  uint32_t thread = 0;
  uint32_t context = 0;  // the trace's context index
  uint64_t frame = 0;
  uint32_t pass = 0;         // its index in Profile::passes
  uint64_t program = 0;      // the trace's name of the program in use (0: none)
  uint64_t framebuffer = 0;  // the trace's name of the draw framebuffer (0: the window's)
  uint64_t vertices = 0;     // a draw's vertices, times its instances
  uint64_t cpu_start_ns = 0, cpu_ns = 0;  // CLOCK_MONOTONIC
  uint64_t gpu_start_ns = 0, gpu_ns = 0;  // the GPU's clock (GL_TIMESTAMP)
  bool gpu_measured = false;
  bool disjoint = false;  // a disjoint event may have touched its times
};

struct RenderPass {
  uint64_t frame = 0;
  uint32_t context = 0;
  uint64_t framebuffer = 0;  // the trace's name (0: the window's)
  uint32_t first_work = 0;   // its work: Profile::work[first_work, + work_count)
  uint32_t work_count = 0;
};

struct FrameRecord {
  uint64_t number = 0;
  uint64_t cpu_start_ns = 0, cpu_end_ns = 0;  // its first call's start, its end
  uint64_t cpu_calls_ns = 0;                  // the CPU time of its calls
  uint64_t calls = 0, draws = 0, vertices = 0;
  uint64_t data_bytes = 0;  // pointer data its calls passed (uploads)
  uint32_t first_work = 0, work_count = 0;
  bool ended = false;  // by a swap or a frame-ending glFinish (not the calls after the last)
  bool disjoint = false;
};

struct FunctionCost {
  uint64_t calls = 0;
  uint64_t cpu_ns = 0;
};

// The GPU's clock against the CPU's (CLOCK_MONOTONIC), read together.
struct ClockPair {
  uint64_t cpu_ns = 0;
  uint64_t gpu_ns = 0;
};

struct Profile {
  // How GPU times were measured, or why they were not ("" when they were).
  std::string gpu_timer;
  std::string no_gpu_time;
  std::vector<WorkRecord> work;
  std::vector<RenderPass> passes;
  std::vector<FrameRecord> frames;
  std::vector<FunctionCost> functions;  // by function id
  std::vector<ClockPair> clock_pairs;
  uint64_t waits = 0;       // result reads that had to wait for the GPU
  uint64_t unmeasured = 0;  // GPU work whose results were lost (its context went first)
  uint64_t disjoint_events = 0;
};

// GPU time of a span of work records: the first start to the last end, and
// the sum of each's own time (what the GPU was busy with them).
struct GpuSpan {
  uint64_t start_ns = 0, end_ns = 0, busy_ns = 0;
  uint32_t measured = 0;
  bool disjoint = false;
  uint64_t span_ns() const { return end_ns - start_ns; }
};
GpuSpan gpu_span(const Profile& profile, uint32_t first_work, uint32_t count);

class Profiler {
 public:
  explicit Profiler(Session& session);
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Around each call the executor runs (on the call's replay thread, its
  // context current): before_call may read results first (the call may
  // take its context away), and issues the start timestamp of GPU work.
  void before_call(const ReplayCall& call);
  void after_call(const ReplayCall& call);
  // A frame ended (after its last call's after_call).
  void frame_ended();
  // The replay thread of a recorded thread ends: its context's results are read.
  void thread_exiting(uint32_t thread);
  // After the replay: reads what is left on this thread's context and closes the frame.
  void finish();

  const Profile& profile() const { return profile_; }
  // --perfetto: each call and frame is written there as it ends (not owned).
  void set_timeline(ProfileTimeline* timeline) { timeline_ = timeline; }

 private:
  struct Pending {
    uint32_t begin = 0, end = 0;  // query names
    uint32_t work = 0;            // index in profile_.work
  };
  struct ContextTimer {
    bool checked = false;
    bool available = false;
    bool es1 = false;             // a GLES 1 context: no programs
    uint32_t thread = 0;          // the recorded thread it was last current on
    std::vector<uint32_t> free;   // query names to reuse
    std::deque<Pending> pending;  // issued, not read yet, oldest first
    uint64_t last_framebuffer_replay = UINT64_MAX, last_framebuffer = 0;
    uint64_t last_program_replay = UINT64_MAX, last_program = 0;
  };

  ContextTimer& timer_of(uint32_t context);
  bool check_timer(ContextTimer& timer);
  uint32_t query(ContextTimer& timer);
  // Reads the context's finished results (it is current on this thread),
  // waiting for the oldest `wait_for` of them (SIZE_MAX: all).
  void read_results(ContextTimer& timer, size_t wait_for);
  void read_clock_pair();
  void begin_frame_if_needed(uint64_t now_ns);

  Session& session_;
  ProfileTimeline* timeline_ = nullptr;
  Profile profile_;
  std::unordered_map<uint32_t, ContextTimer> timers_;  // by the trace's context index
  ContextTimer* running_timer_ = nullptr;              // the running work's context
  bool running_work_ = false;
  uint32_t running_pending_begin_ = 0;
  bool frame_open_ = false;
  uint32_t last_context_ = 0;           // of the last call
  size_t disjoint_checked_frames_ = 0;  // frames before the last disjoint check
  uint64_t call_start_ns_ = 0, call_ns_ = 0;
  uint32_t last_pass_context_ = UINT32_MAX;
  uint64_t last_pass_framebuffer_ = UINT64_MAX;
  // Which of a function's parameters count its vertices and instances
  // (found by name once: -2 not looked up, -1 none).
  std::vector<std::pair<int16_t, int16_t>> vertex_params_;
};

}  // namespace gltrace::glreplay
