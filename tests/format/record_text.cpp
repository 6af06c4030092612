#include "record_text.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace gltrace::test {
namespace {

void add(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void add(std::string& out, const char* fmt, ...) {
  char buffer[256];
  va_list list;
  va_start(list, fmt);
  vsnprintf(buffer, sizeof buffer, fmt, list);
  va_end(list);
  out += buffer;
}

void add_bytes(std::string& out, std::string_view bytes) {
  out += '"';
  for (char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      add(out, "\\x%02x", static_cast<unsigned char>(c));
    }
  }
  out += '"';
}

}  // namespace

std::string value_text(const format::Value& v) {
  using format::ValueKind;
  std::string out;
  switch (v.kind) {
    case ValueKind::kNone:
      out = "none";
      break;
    case ValueKind::kSint:
      add(out, "sint:%" PRId64, v.sint);
      break;
    case ValueKind::kUint:
      add(out, "uint:%" PRIu64, v.uint);
      break;
    case ValueKind::kF32:
      add(out, "f32:%g", static_cast<double>(v.f32));
      break;
    case ValueKind::kF64:
      add(out, "f64:%g", v.f64);
      break;
    case ValueKind::kPointer:
      add(out, "pointer:0x%" PRIx64, v.pointer);
      break;
    case ValueKind::kData:
      out = "data:";
      add_bytes(out, v.bytes());
      break;
    case ValueKind::kBlob:
      add(out, "blob:%016" PRIx64, v.blob);
      break;
    case ValueKind::kText:
      out = "text:";
      add_bytes(out, v.bytes());
      break;
    case ValueKind::kUnknown:
      add(out, "unknown:0x%" PRIx64 ":", v.pointer);
      add_bytes(out, v.bytes());
      break;
    case ValueKind::kStrings:
      out = "strings:[";
      for (std::string_view s : v.strings()) {
        add_bytes(out, s);
        out += ',';
      }
      out += ']';
      break;
    case ValueKind::kArray:
      out = "array:[";
      for (int64_t s : v.sints()) add(out, "%" PRId64 ",", s);
      out += "|";
      for (uint64_t u : v.uints()) add(out, "%" PRIu64 ",", u);
      out += "|";
      for (float f : v.floats()) add(out, "%g,", static_cast<double>(f));
      out += ']';
      break;
  }
  return out;
}

void RecordText::on_chunk(uint64_t offset, uint32_t record_count) {
  if (!with_chunks) return;
  std::string line;
  add(line, "chunk @%" PRIu64 " records=%" PRIu32, offset, record_count);
  lines.push_back(line);
}

void RecordText::on_header(const format::Header& h) {
  std::string line;
  add(line, "header v%u pid=%u name=", h.format_version, h.pid);
  add_bytes(line, h.process_name);
  line += " cmd=";
  add_bytes(line, h.command_line);
  line += " clock=";
  add_bytes(line, h.clock_domain);
  add(line, " start=%" PRIu64 " mode=", h.start_time_ns);
  add_bytes(line, h.mode);
  line += " options=";
  add_bytes(line, h.capture_options);
  add(line, " mid_run=%d driver=", h.mid_run ? 1 : 0);
  add_bytes(line, h.driver);
  lines.push_back(line);
}

void RecordText::on_thread(const format::Thread& t) {
  std::string line;
  add(line, "thread %u tid=%" PRIu64 " name=", t.index, t.tid);
  add_bytes(line, t.name);
  lines.push_back(line);
}

void RecordText::on_context(const format::Context& c) {
  std::string line;
  add(line,
      "context %u handle=%" PRIu64 " display=%" PRIu64 " config=%" PRIu64 " share=%" PRIu64
      " version=%d attribs=[",
      c.index, c.handle, c.display, c.config, c.share_context, c.client_version);
  for (int64_t a : c.config_attribs) add(line, "%" PRId64 ",", a);
  line += "] vendor=";
  add_bytes(line, c.gl_vendor);
  line += " renderer=";
  add_bytes(line, c.gl_renderer);
  line += " version=";
  add_bytes(line, c.gl_version);
  add(line, " size=%ux%u", c.surface_width, c.surface_height);
  lines.push_back(line);
}

void RecordText::on_call(const format::Call& c) {
  std::string line;
  add(line,
      "call fn=%u thread=%u context=%u seq=%" PRIu64 " start=%" PRIu64 " duration=%" PRIu64
      " cpu=%" PRIu64 " error=%u args=(",
      c.function, c.thread, c.context, c.seq, c.start_ns, c.duration_ns, c.thread_time_ns,
      c.gl_error);
  for (const format::Value& v : c.args) line += value_text(v) + ",";
  line += ")";
  if (c.ret != nullptr) line += " ret=" + value_text(*c.ret);
  for (const format::ClientArray& a : c.client_arrays) {
    add(line, " array(%u first=%" PRIu64 " stride=%u pointer=0x%" PRIx64 " blob=%016" PRIx64 " ",
        a.index, a.first, a.stride, a.pointer, a.blob);
    add_bytes(line, a.data);
    if (a.array != 0) add(line, " of=0x%x", a.array);
    line += ")";
  }
  for (const format::BufferWrite& w : c.buffer_writes) {
    add(line, " write(0x%x offset=%" PRIu64 " blob=%016" PRIx64 " ", w.target, w.offset, w.blob);
    add_bytes(line, w.data);
    line += ")";
  }
  if (c.image_source != nullptr) {
    add(line, " image_source(%ux%u blob=%016" PRIx64 " ", c.image_source->width,
        c.image_source->height, c.image_source->blob);
    add_bytes(line, c.image_source->not_captured);
    line += ")";
  }
  lines.push_back(line);
}

void RecordText::on_blob(const format::Blob& b) {
  std::string line;
  add(line, "blob %016" PRIx64 " ", b.id);
  add_bytes(line, b.data);
  lines.push_back(line);
}

void RecordText::on_frame(const format::Frame& f) {
  std::string line;
  add(line, "frame %" PRIu64 " seq=%" PRIu64 " thread=%u context=%u time=%" PRIu64, f.number, f.seq,
      f.thread, f.context, f.time_ns);
  lines.push_back(line);
}

void RecordText::on_image(const format::Image& i) {
  std::string line;
  add(line, "image frame=%" PRIu64 " seq=%" PRIu64 " %ux%u blob=%016" PRIx64 " context=%u origin=",
      i.frame, i.seq, i.width, i.height, i.blob, i.context);
  add_bytes(line, i.origin);
  lines.push_back(line);
}

void RecordText::on_desktop_gl(const format::DesktopGl& d) {
  std::string line = "desktop_gl libraries=";
  add_bytes(line, d.libraries);
  lines.push_back(line);
}

void RecordText::on_stats(const format::Stats& s) {
  std::string line;
  add(line,
      "stats calls=%" PRIu64 " frames=%" PRIu64 " bytes=%" PRIu64 " stalls=%" PRIu64
      " stall_ns=%" PRIu64 " blobs=%" PRIu64 " dedup=%" PRIu64,
      s.calls, s.frames, s.bytes_uncompressed, s.stall_count, s.stall_ns, s.blobs,
      s.blob_bytes_deduplicated);
  lines.push_back(line);
}

}  // namespace gltrace::test
