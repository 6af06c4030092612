#include "consumers/dump.h"

#include <charconv>
#include <cinttypes>

#include "consumers/frame_end.h"
#include "gltrace/api/functions.h"

namespace gltrace::consumers {

void Dumper::flush() {
  fwrite(line_.data(), 1, line_.size(), out_);
  line_.clear();
}

Dumper::~Dumper() { flush(); }

void Dumper::on_header(const format::Header& h) {
  flush();
  fprintf(out_, "// gltrace trace, format %u: %s (pid %u)%s\n", h.format_version,
          escaped(h.command_line).c_str(), h.pid, h.mid_run ? ", started mid-run" : "");
  if (!h.cut_from.empty()) fprintf(out_, "// cut from %s\n", escaped(h.cut_from).c_str());
  if (h.flight_recorder)
    fprintf(out_, "// written by a flight recorder: the calls before its rounds are not in it\n");
}

void Dumper::on_thread(const format::Thread& t) {
  flush();
  fprintf(out_, "// thread %u: tid %" PRIu64 " \"%s\"\n", t.index, t.tid, escaped(t.name).c_str());
}

void Dumper::on_context(const format::Context& c) {
  flush();
  fprintf(out_, "// context %u: EGLContext 0x%" PRIx64 ", ES %d, %ux%u, %s\n", c.index, c.handle,
          c.client_version, c.surface_width, c.surface_height, escaped(c.gl_renderer).c_str());
}

void Dumper::on_blob(const format::Blob& blob) { blobs_[blob.id] = blob.data.size(); }

void Dumper::on_call(const format::Call& call) {
  if (ends_frame(call)) ++frames_ended_;
  if (call.seq < filter_.first_call || call.seq > filter_.last_call || !frame_selected()) return;
  if (filter_.thread && *filter_.thread != call.thread) return;
  if (filter_.context && *filter_.context != call.context) return;
  if (filter_.function) {
    const char* name =
        call.function < api::kFunctionIdLimit ? api::kFunctionInfo[call.function].name : nullptr;
    if (name == nullptr || !std::regex_search(name, *filter_.function)) return;
  }
  // Said before the calls of the object it names.
  if (!call.snapshot_inexact.empty())
    line_ += "// not exact in the snapshot: " + escaped(call.snapshot_inexact) + "\n";
  char number[24];
  auto end = std::to_chars(number, number + sizeof number, call.seq).ptr;
  line_.append(number, static_cast<size_t>(end - number));
  line_ += ' ';
  if (filter_.timing) {
    char timing[64];
    snprintf(timing, sizeof timing, "[%.6f +%" PRIu64 "ns th%u ctx%u] ",
             static_cast<double>(call.start_ns) / 1e9, call.duration_ns, call.thread, call.context);
    line_ += timing;
  }
  format_call(line_, call, blobs_);
  if (call.gl_error != 0) line_ += "  // error " + std::to_string(call.gl_error);
  if (call.snapshot)
    line_ += "  // snapshot: recreates what the app had when the capture began";
  else if (call.synthetic)
    line_ += "  // synthetic: what was current when tracing started";
  if (const format::ImageSource* source = call.image_source; source != nullptr) {
    if (source->blob != 0) {
      char text[96];
      snprintf(text, sizeof text, "  // image source: %ux%u RGBA8 pixels (blob 0x%016" PRIx64 ")",
               source->width, source->height, source->blob);
      line_ += text;
    } else {
      line_ += "  // image source not captured: ";
      line_.append(source->not_captured);
    }
  }
  line_ += '\n';
  // Lines collect in one buffer, written 64 KiB at a time.
  if (line_.size() >= 65536) flush();
  ++printed_;
  ++printed_in_frame_;
}

void Dumper::on_frame(const format::Frame& frame) {
  // A frame is its ending call's (consumers::ends_frame): a record without
  // one (damage) ends none.
  if (frame_records_ == frames_ended_) return;
  ++frame_records_;
  flush();
  bool print = frame_selected() && (!filter_.selects_calls() || printed_in_frame_ != 0);
  printed_in_frame_ = 0;
  if (print && frame.has_app_frame)
    fprintf(out_, "// end of frame %" PRIu64 " (app frame %" PRIu64 ", %.3f s)\n", frame.number,
            frame.app_frame, static_cast<double>(frame.time_ns) / 1e9);
  else if (print)
    fprintf(out_, "// end of frame %" PRIu64 " (%.3f s)\n", frame.number,
            static_cast<double>(frame.time_ns) / 1e9);
  frame_ = frame.number + 1;
  if (frame_ > filter_.last_frame) request_stop();
}

void Dumper::on_desktop_gl(const format::DesktopGl& d) {
  flush();
  fprintf(out_, "// desktop OpenGL libraries loaded (their calls are not traced): %.*s\n",
          static_cast<int>(d.libraries.size()), d.libraries.data());
}

void Dumper::on_gpu_time(const format::GpuTime& g) {
  // It comes frames after its call: shown where it is, naming the call.
  if (!frame_selected() || filter_.selects_calls()) return;
  flush();
  fprintf(out_, "// gpu time of call %" PRIu64 ": %.3f ms%s\n", g.seq,
          static_cast<double>(g.duration_ns) / 1e6,
          g.disjoint ? " (a disjoint event may have touched it)" : "");
}

void Dumper::finish() {
  flush();
  // The calls that ended frames whose records were cut off with the trace's end.
  for (; frame_records_ < frames_ended_ && frame_selected(); ++frame_records_) {
    bool print = !filter_.selects_calls() || printed_in_frame_ != 0;
    printed_in_frame_ = 0;
    if (print)
      fprintf(out_, "// end of frame %" PRIu64 " (its Frame record is not in the trace)\n", frame_);
    ++frame_;
  }
}

void Dumper::on_stats(const format::Stats& s) {
  flush();
  fprintf(out_,
          "// end of trace: %" PRIu64 " calls, %" PRIu64 " frames, writer stalls %" PRIu64
          " (%.1f ms)\n",
          s.calls, s.frames, s.stall_count, static_cast<double>(s.stall_ns) / 1e6);
}

}  // namespace gltrace::consumers
