// Timelines of a trace for trace viewers:
// - PerfettoWriter: Perfetto's native protobuf format (a Trace of
//   TracePackets, proto/perfetto_subset.proto): a track per thread with a
//   slice per call and its arguments as debug annotations, a frame track with
//   a slice per frame, counters of calls and data bytes per frame. Opens in
//   ui.perfetto.dev and trace_processor.
// - TraceEventWriter (textformat/trace_event_writer.h, which the trace
//   layer's systrace mode writes with too): Chrome's JSON "Trace Event
//   Format".
// Both write as a stream, in memory bounded by the functions and strings
// interned, not by the trace's length.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "format/records.h"
#include "textformat/trace_event_writer.h"

namespace gltrace::consumers {

class PerfettoWriter {
 public:
  enum class Compression {
    kZstd,  // packets in zstd_compressed_packets (Perfetto v58 and later read them)
    kNone,  // plain packets, for older readers and protoc --decode
  };
  // Writes to `out` (not closed by the writer).
  PerfettoWriter(FILE* out, Compression compression);
  ~PerfettoWriter();
  PerfettoWriter(const PerfettoWriter&) = delete;
  PerfettoWriter& operator=(const PerfettoWriter&) = delete;

  void process(uint32_t pid, std::string_view name, std::string_view command_line);
  // A thread's track, by its index in the trace.
  void thread(uint32_t index, uint64_t tid, std::string_view name);
  // A call's slice on its thread's track (described on first use if no
  // thread() came first).
  void call(const format::Call& call);
  // Bytes of pointer data the current frame's calls passed as a blob.
  void blob(const format::Blob& blob);
  void frame(const format::Frame& frame);

  // What a profiled replay adds (gltrace replay --profile --perfetto).
  // Each call's slice says its number ("call"), which the GPU's events name.
  void call_numbers(bool on);
  // The GPU's clock (GL_TIMESTAMP) at `time_ns` of the trace's: a clock
  // snapshot, which places the GPU's events.
  void gpu_clock(uint64_t time_ns, uint64_t gpu_ns);
  // A span of the GPU's work (Perfetto's GpuRenderStageEvent) on hardware
  // queue `queue` (one of those below), its stage named `stage`.
  struct GpuQueue {
    std::string_view name, description;
  };
  static constexpr GpuQueue kGpuFrames{"GPU frames",
                                       "frames: their first work's start to their last's end"};
  static constexpr GpuQueue kGpuPasses{"GPU render passes",
                                       "render passes: runs of work into one framebuffer"};
  static constexpr GpuQueue kGpuWork{"GPU work", "each draw, clear, blit and dispatch"};
  static constexpr std::string_view kGpuCallStage = "the GPU's work for a call";
  struct GpuStage {
    GpuQueue queue;
    std::string_view stage, stage_description;
    bool compute = false;
    uint64_t gpu_start_ns = 0, duration_ns = 0;  // on the GPU's clock
    uint64_t context = 0;                        // the trace's context index
    uint64_t framebuffer = 0;                    // the trace's name (0: the window's)
    uint64_t frame = 0;
    std::span<const std::pair<std::string_view, std::string>> extra;  // name, value
  };
  void gpu_stage(const GpuStage& stage);
  // GPU counters' values at `time_ns` (the first call describes them).
  struct GpuCounter {
    uint32_t id = 0;
    std::string_view name, description;
    int64_t value = 0;
  };
  void gpu_counters(uint64_t time_ns, std::span<const GpuCounter> counters);

  // Writes what is buffered; false with *error set when writing failed.
  bool finish(std::string* error);

  // Bytes written to `out` (after finish()).
  uint64_t bytes_written() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

using textformat::append_json_string;
using textformat::TraceEventWriter;

}  // namespace gltrace::consumers
