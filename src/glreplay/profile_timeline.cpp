#include "glreplay/profile_timeline.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"

namespace gltrace::glreplay {

ProfileTimeline::~ProfileTimeline() {
  if (file_ != nullptr) fclose(file_);
}

bool ProfileTimeline::open(const std::string& path, const std::string& name, std::string* error) {
  file_ = fopen(path.c_str(), "wb");
  if (file_ == nullptr) {
    *error = "cannot write " + path + ": " + strerror(errno);
    return false;
  }
  path_ = path;
  // Plain packets: every Perfetto version and protoc read them.
  writer_ = std::make_unique<consumers::PerfettoWriter>(
      file_, consumers::PerfettoWriter::Compression::kNone);
  writer_->call_numbers(true);
  writer_->process(static_cast<uint32_t>(getpid()), "gltrace replay --profile " + name, name);
  return true;
}

void ProfileTimeline::call(const ReplayCall& call, uint64_t start_ns, uint64_t duration_ns) {
  format::Call c;
  c.function = call.function;
  c.thread = call.thread;
  c.context = call.context;
  c.seq = call.seq;
  c.start_ns = start_ns;
  c.duration_ns = duration_ns;
  c.args = call.args;
  c.ret = call.has_ret ? &call.ret : nullptr;
  writer_->call(c);
}

void ProfileTimeline::frame(const FrameRecord& frame) {
  format::Frame f;
  f.number = frame.number;
  f.time_ns = frame.cpu_end_ns;
  writer_->frame(f);
  const consumers::PerfettoWriter::GpuCounter counters[] = {
      {1, "draws", "draw calls in the frame", static_cast<int64_t>(frame.draws)},
      {2, "vertices", "vertices the frame's draws drew (times their instances)",
       static_cast<int64_t>(frame.vertices)},
      {3, "bytes uploaded", "pointer data the frame's calls passed to GL",
       static_cast<int64_t>(frame.data_bytes)},
  };
  writer_->gpu_counters(frame.cpu_end_ns, counters);
}

bool ProfileTimeline::finish(const Profile& profile, std::string* error) {
  // The clocks first: a GPU event is placed by the snapshots before it.
  for (const ClockPair& pair : profile.clock_pairs) writer_->gpu_clock(pair.cpu_ns, pair.gpu_ns);
  using Writer = consumers::PerfettoWriter;
  using Stage = Writer::GpuStage;
  std::vector<std::pair<std::string_view, std::string>> extra;
  auto add_disjoint = [&](bool disjoint) {
    if (disjoint) extra.emplace_back("disjoint", "the GPU's clock may have jumped");
  };
  if (!profile.clock_pairs.empty()) {
    for (const FrameRecord& frame : profile.frames) {
      GpuSpan span = gpu_span(profile, frame.first_work, frame.work_count);
      if (span.measured == 0) continue;
      extra.clear();
      extra.emplace_back("frame", std::to_string(frame.number));
      add_disjoint(frame.disjoint);
      Stage s{Writer::kGpuFrames,
              "frame",
              "a frame's GPU work",
              false,
              span.start_ns,
              span.span_ns(),
              profile.work[frame.first_work].context,
              0,
              frame.number,
              extra};
      writer_->gpu_stage(s);
    }
    for (const RenderPass& pass : profile.passes) {
      GpuSpan span = gpu_span(profile, pass.first_work, pass.work_count);
      if (span.measured == 0) continue;
      extra.clear();
      extra.emplace_back("first call", std::to_string(profile.work[pass.first_work].seq));
      extra.emplace_back("work", std::to_string(pass.work_count));
      add_disjoint(span.disjoint);
      Stage s{Writer::kGpuPasses,
              "render pass",
              "work into one framebuffer",
              false,
              span.start_ns,
              span.span_ns(),
              pass.context,
              pass.framebuffer,
              pass.frame,
              extra};
      writer_->gpu_stage(s);
    }
    for (const WorkRecord& w : profile.work) {
      if (!w.gpu_measured) continue;
      const char* name = api::kFunctionInfo[w.function].name;
      extra.clear();
      extra.emplace_back("call", std::to_string(w.seq));
      extra.emplace_back("function", name);
      extra.emplace_back("program", std::to_string(w.program));
      if (w.vertices != 0) extra.emplace_back("vertices", std::to_string(w.vertices));
      add_disjoint(w.disjoint);
      Stage s{Writer::kGpuWork,
              name,
              Writer::kGpuCallStage,
              api::has_role(w.function, api::kRoleDispatch),
              w.gpu_start_ns,
              w.gpu_ns,
              w.context,
              w.framebuffer,
              w.frame,
              extra};
      writer_->gpu_stage(s);
    }
  }
  bool ok = writer_->finish(error);
  int closed = fclose(file_);
  file_ = nullptr;
  if (ok && closed != 0) {
    *error = "cannot write " + path_ + ": " + strerror(errno);
    ok = false;
  }
  return ok;
}

}  // namespace gltrace::glreplay
