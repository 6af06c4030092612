#include "consumers/dump.h"

#include <charconv>
#include <cinttypes>
#include <cstring>

#include "consumers/context_api.h"
#include "consumers/frame_end.h"
#include "gltrace/api/functions.h"

namespace gltrace::consumers {

void Dumper::flush() {
  text_.flush();
  fwrite(line_.data(), 1, line_.size(), out_);
  line_.clear();
}

void Dumper::append_seq(uint64_t seq) {
  if (seq_size_ != 0 && seq == seq_ + 1 && seq != 0) {  // not past UINT64_MAX to 0
    // Add one: nines become zeros from the right; all nines gain a digit.
    size_t i = seq_size_;
    while (i != 0 && seq_text_[i - 1] == '9') seq_text_[--i] = '0';
    if (i != 0) {
      ++seq_text_[i - 1];
    } else {
      memmove(seq_text_ + 1, seq_text_, seq_size_++);
      seq_text_[0] = '1';
    }
  } else {
    seq_size_ = static_cast<size_t>(
        std::to_chars(seq_text_, seq_text_ + sizeof seq_text_, seq).ptr - seq_text_);
  }
  seq_ = seq;
  text_ += std::string_view(seq_text_, seq_size_);
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
  fprintf(out_, "// context %u: %s 0x%" PRIx64 ", %s, %ux%u, %s\n", c.index,
          c.window_system == "glx" ? "GLXContext" : "EGLContext", c.handle,
          context_api(c).short_text().c_str(), c.surface_width, c.surface_height,
          escaped(c.gl_renderer).c_str());
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
  textformat::Text& out = text_;
  // Said before the calls of the object it names.
  if (!call.snapshot_inexact.empty()) {
    out += "// not exact in the snapshot: ";
    textformat::append_unquoted(out, call.snapshot_inexact);
    out += '\n';
  }
  append_seq(call.seq);
  out += ' ';
  if (filter_.timing) {
    char timing[64];
    snprintf(timing, sizeof timing, "[%.6f +%" PRIu64 "ns th%u ctx%u] ",
             static_cast<double>(call.start_ns) / 1e9, call.duration_ns, call.thread, call.context);
    out += std::string_view(timing);
  }
  format_call(out, call, blobs_);
  if (call.gl_error != 0) {
    out += "  // error ";
    textformat::append_number(out, uint64_t{call.gl_error});
  }
  if (call.snapshot)
    out += "  // snapshot: recreates what the app had when the capture began";
  else if (call.synthetic)
    out += "  // synthetic: what was current when tracing started";
  if (const format::ImageSource* source = call.image_source; source != nullptr) {
    if (source->blob != 0) {
      char text[96];
      snprintf(text, sizeof text, "  // image source: %ux%u RGBA8 pixels (blob 0x%016" PRIx64 ")",
               source->width, source->height, source->blob);
      out += std::string_view(text);
    } else {
      out += "  // image source not captured: ";
      out += source->not_captured;
    }
  }
  out += '\n';
  // line_ takes text_'s buffer when it is full; written 64 KiB at a time.
  if (line_.size() >= 65536) flush();
  ++printed_;
  ++printed_in_frame_;
}

void Dumper::on_frame(const format::Frame& frame) {
  // A frame is its ending call's (consumers::ends_frame): a record without
  // one (damage) ends none.
  if (frame_records_ == frames_ended_) return;
  ++frame_records_;
  bool print = frame_selected() && (!filter_.selects_calls() || printed_in_frame_ != 0);
  printed_in_frame_ = 0;
  // Collected with the calls' lines, not printed apart: a frame of a few
  // calls would write each time. "%.3f s" as printf wrote it (both round
  // the double's exact value to nearest, ties to even).
  if (print) {
    textformat::Text& out = text_;
    out += "// end of frame ";
    textformat::append_number(out, frame.number);
    if (frame.has_app_frame) {
      out += " (app frame ";
      textformat::append_number(out, frame.app_frame);
      out += ", ";
    } else {
      out += " (";
    }
    char* at = out.room(32);  // at most 2^64 ns: "18446744073.710"
    out.done(std::to_chars(at, at + 32, static_cast<double>(frame.time_ns) / 1e9,
                           std::chars_format::fixed, 3)
                 .ptr);
    out += " s)\n";
    if (line_.size() >= 65536) flush();
  }
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
