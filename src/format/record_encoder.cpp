#include "format/record_encoder.h"

#include "format/encoders.h"
#include "format/record_builder.h"
#include "format/schema.h"

namespace gltrace::format {
namespace {

namespace s = schema;
using wire::Encoder;

// A field at its default is left out, as proto3 does: a reader reads an
// absent field as 0 or empty. (The setter picks the overload: a generated
// set_x of a string field has a (bytes, size) one too.)
void field(Encoder& e, void (*set)(Encoder&, uint64_t), uint64_t v) {
  if (v != 0) set(e, v);
}
void field(Encoder& e, void (*set)(Encoder&, int64_t), int64_t v) {
  if (v != 0) set(e, v);
}
void field(Encoder& e, void (*set)(Encoder&, bool), bool v) {
  if (v) set(e, v);
}
void field(Encoder& e, void (*set)(Encoder&, std::string_view), std::string_view v) {
  if (!v.empty()) set(e, v);
}

// Writes a nested message (or packed run), opened by `begin`, with body.
template <typename Body>
void nested(Encoder& e, size_t (*begin)(Encoder&), Body&& body) {
  size_t mark = begin(e);
  body();
  e.end_nested(mark);
}

// Appends Record{kind = body}: the body goes to a scratch encoder first, so
// that its size is known for the framing every writer shares
// (format/record_builder.h).
template <typename Body>
void record(Encoder& chunk, uint32_t kind, Body&& body) {
  thread_local Encoder scratch;  // keeps its memory from record to record...
  scratch.clear();
  body(scratch);
  append_record(chunk, kind, scratch.data(), scratch.size());
  constexpr size_t kKeepBytes = size_t{1} << 20;
  if (scratch.size() > kKeepBytes) scratch.adopt(nullptr, 0);  // ...but not a big blob's
}

void packed_int64s(Encoder& e, size_t (*begin)(Encoder&), void (*pack)(Encoder&, int64_t),
                   const std::vector<int64_t>& values) {
  if (values.empty()) return;
  nested(e, begin, [&] {
    for (int64_t v : values) pack(e, v);
  });
}

void value(Encoder& e, const Value& v) {
  namespace sv = s::value;
  // A oneof member is written even when 0: its presence is the kind.
  switch (v.kind) {
    case ValueKind::kNone:  // an empty Value
      break;
    case ValueKind::kSint:
      sv::set_sint(e, v.sint);
      break;
    case ValueKind::kUint:
      sv::set_uint(e, v.uint);
      break;
    case ValueKind::kF32:
      sv::set_f32(e, v.f32);
      break;
    case ValueKind::kF64:
      sv::set_f64(e, v.f64);
      break;
    case ValueKind::kPointer:
      sv::set_pointer(e, v.pointer);
      break;
    case ValueKind::kData:
      sv::set_data(e, v.bytes());
      break;
    case ValueKind::kBlob:
      sv::set_blob(e, v.blob);
      break;
    case ValueKind::kText:
      sv::set_text(e, v.bytes());
      break;
    case ValueKind::kUnknown:
      nested(e, sv::begin_unknown, [&] {
        field(e, s::unknown::set_pointer, v.pointer);
        field(e, s::unknown::set_reason, v.bytes());
      });
      break;
    case ValueKind::kStrings:
      nested(e, sv::begin_strings, [&] {
        for (std::string_view item : v.strings()) s::strings::add_items(e, item);
      });
      break;
    case ValueKind::kArray:
      // One packed run of the array's element type, as the trace layer
      // writes it (ValueWriter::typed_array); an empty array is an empty
      // Array, which reads back as one of uints.
      nested(e, sv::begin_array, [&] {
        if (!v.floats().empty())
          s::array::set_floats_packed(e, v.floats().data(), v.floats().size_bytes());
        if (!v.sints().empty()) {
          nested(e, s::array::begin_sints, [&] {
            for (int64_t x : v.sints()) s::array::pack_sints(e, x);
          });
        }
        if (!v.uints().empty()) {
          nested(e, s::array::begin_uints, [&] {
            for (uint64_t x : v.uints()) s::array::pack_uints(e, x);
          });
        }
      });
      break;
  }
}

void client_array(Encoder& e, const ClientArray& a) {
  namespace sa = s::client_array;
  field(e, sa::set_index, a.index);
  field(e, sa::set_first, a.first);
  field(e, sa::set_stride, a.stride);
  field(e, sa::set_pointer, a.pointer);
  field(e, sa::set_data, a.data);
  field(e, sa::set_blob, a.blob);
  field(e, sa::set_array, a.array);
}

void buffer_write(Encoder& e, const BufferWrite& w) {
  namespace sw = s::buffer_write;
  field(e, sw::set_target, w.target);
  field(e, sw::set_offset, w.offset);
  field(e, sw::set_data, w.data);
  field(e, sw::set_blob, w.blob);
  field(e, sw::set_buffer, w.buffer);
}

void image_source(Encoder& e, const ImageSource& i) {
  namespace si = s::image_source;
  field(e, si::set_width, i.width);
  field(e, si::set_height, i.height);
  field(e, si::set_blob, i.blob);
  field(e, si::set_not_captured, i.not_captured);
}

}  // namespace

void encode_record(Encoder& chunk, const Header& h) {
  namespace sh = s::header;
  record(chunk, s::record::kHeader, [&](Encoder& e) {
    field(e, sh::set_format_version, h.format_version);
    field(e, sh::set_pid, h.pid);
    field(e, sh::set_process_name, h.process_name);
    field(e, sh::set_command_line, h.command_line);
    field(e, sh::set_clock_domain, h.clock_domain);
    field(e, sh::set_start_time_ns, h.start_time_ns);
    field(e, sh::set_mode, h.mode);
    field(e, sh::set_capture_options, h.capture_options);
    field(e, sh::set_mid_run, h.mid_run);
    field(e, sh::set_driver, h.driver);
    field(e, sh::set_cut_from, h.cut_from);
    field(e, sh::set_flight_recorder, h.flight_recorder);
  });
}

void encode_record(Encoder& chunk, const Thread& t) {
  record(chunk, s::record::kThread, [&](Encoder& e) {
    field(e, s::thread::set_index, t.index);
    field(e, s::thread::set_tid, t.tid);
    field(e, s::thread::set_name, t.name);
  });
}

void encode_record(Encoder& chunk, const Context& c) {
  namespace sc = s::context;
  record(chunk, s::record::kContext, [&](Encoder& e) {
    field(e, sc::set_index, c.index);
    field(e, sc::set_handle, c.handle);
    field(e, sc::set_display, c.display);
    field(e, sc::set_config, c.config);
    field(e, sc::set_share_context, c.share_context);
    field(e, sc::set_client_version, c.client_version);
    field(e, sc::set_client_type, c.client_type);
    packed_int64s(e, sc::begin_config_attribs, sc::pack_config_attribs, c.config_attribs);
    field(e, sc::set_gl_vendor, c.gl_vendor);
    field(e, sc::set_gl_renderer, c.gl_renderer);
    field(e, sc::set_gl_version, c.gl_version);
    field(e, sc::set_surface_width, c.surface_width);
    field(e, sc::set_surface_height, c.surface_height);
    field(e, sc::set_window_system, c.window_system);
    field(e, sc::set_profile_mask, c.profile_mask);
  });
}

void encode_record(Encoder& chunk, const Call& c) {
  namespace sc = s::call;
  record(chunk, s::record::kCall, [&](Encoder& e) {
    field(e, sc::set_function, c.function);
    field(e, sc::set_thread, c.thread);
    field(e, sc::set_context, c.context);
    // Always written, 0 too: a call without them counts from the previous
    // call of its thread in the chunk (proto/trace.proto, Call).
    sc::set_seq(e, c.seq);
    sc::set_start_ns(e, c.start_ns);
    field(e, sc::set_duration_ns, c.duration_ns);
    field(e, sc::set_thread_time_ns, c.thread_time_ns);
    for (const Value& arg : c.args) nested(e, sc::begin_args, [&] { value(e, arg); });
    if (c.ret != nullptr) nested(e, sc::begin_ret, [&] { value(e, *c.ret); });
    field(e, sc::set_gl_error, c.gl_error);
    for (const ClientArray& a : c.client_arrays)
      nested(e, sc::begin_client_arrays, [&] { client_array(e, a); });
    for (const BufferWrite& w : c.buffer_writes)
      nested(e, sc::begin_buffer_writes, [&] { buffer_write(e, w); });
    field(e, sc::set_synthetic, c.synthetic);
    // Present even when empty: the decoder gives the call an image source then.
    if (c.image_source != nullptr)
      nested(e, sc::begin_image_source, [&] { image_source(e, *c.image_source); });
    field(e, sc::set_ends_frame, c.ends_frame);
    if (c.config_attribs != nullptr)
      packed_int64s(e, sc::begin_config_attribs, sc::pack_config_attribs, *c.config_attribs);
    field(e, sc::set_surface_width, c.surface_width);
    field(e, sc::set_surface_height, c.surface_height);
    field(e, sc::set_snapshot, c.snapshot);
    field(e, sc::set_snapshot_inexact, c.snapshot_inexact);
  });
}

void encode_record(Encoder& chunk, const Blob& b) {
  record(chunk, s::record::kBlob, [&](Encoder& e) {
    field(e, s::blob::set_id, b.id);
    field(e, s::blob::set_data, b.data);
  });
}

void encode_record(Encoder& chunk, const Frame& f) {
  namespace sf = s::frame;
  record(chunk, s::record::kFrame, [&](Encoder& e) {
    field(e, sf::set_number, f.number);
    field(e, sf::set_seq, f.seq);
    field(e, sf::set_thread, f.thread);
    field(e, sf::set_context, f.context);
    field(e, sf::set_time_ns, f.time_ns);
    // Its presence is has_app_frame: written when 0 too.
    if (f.has_app_frame) sf::set_app_frame(e, f.app_frame);
  });
}

void encode_record(Encoder& chunk, const Image& i) {
  namespace si = s::image;
  record(chunk, s::record::kImage, [&](Encoder& e) {
    field(e, si::set_frame, i.frame);
    field(e, si::set_seq, i.seq);
    field(e, si::set_width, i.width);
    field(e, si::set_height, i.height);
    field(e, si::set_blob, i.blob);
    field(e, si::set_origin, i.origin);
    field(e, si::set_context, i.context);
  });
}

void encode_record(Encoder& chunk, const Stats& st) {
  namespace ss = s::stats;
  record(chunk, s::record::kStats, [&](Encoder& e) {
    field(e, ss::set_calls, st.calls);
    field(e, ss::set_frames, st.frames);
    field(e, ss::set_bytes_uncompressed, st.bytes_uncompressed);
    field(e, ss::set_stall_count, st.stall_count);
    field(e, ss::set_stall_ns, st.stall_ns);
    field(e, ss::set_blobs, st.blobs);
    field(e, ss::set_blob_bytes_deduplicated, st.blob_bytes_deduplicated);
    field(e, ss::set_desktop_gl_libraries, st.desktop_gl_libraries);
  });
}

void encode_record(Encoder& chunk, const CallsComplete& c) {
  record(chunk, s::record::kCallsComplete,
         [&](Encoder& e) { field(e, s::calls_complete::set_below_seq, c.below_seq); });
}

void encode_record(Encoder& chunk, const DesktopGl& d) {
  record(chunk, s::record::kDesktopGl,
         [&](Encoder& e) { field(e, s::desktop_gl::set_libraries, d.libraries); });
}

void encode_record(Encoder& chunk, const GpuTime& g) {
  record(chunk, s::record::kGpuTime, [&](Encoder& e) {
    field(e, s::gpu_time::set_seq, g.seq);
    field(e, s::gpu_time::set_gpu_start_ns, g.gpu_start_ns);
    field(e, s::gpu_time::set_duration_ns, g.duration_ns);
    field(e, s::gpu_time::set_disjoint, g.disjoint);
  });
}

void encode_record(Encoder& chunk, const GpuClock& g) {
  record(chunk, s::record::kGpuClock, [&](Encoder& e) {
    field(e, s::gpu_clock::set_time_ns, g.time_ns);
    field(e, s::gpu_clock::set_gpu_ns, g.gpu_ns);
  });
}

RecordSink::RecordSink(TraceWriter& writer) : writer_(writer) {
  writer_.acquire_buffer().give_to(payload_);
}

// As the trace layer (CallRecorder::note_frame_start): a thread's first call,
// and its first after each Frame record it ended, starts the frame the trace
// is in, so with several threads a frame may be listed once per thread.
void RecordSink::add(const Call& call) {
  if (in_frame_.insert(call.thread).second) frame_starts_.push_back({frames_, call.seq});
  append(call);
}

void RecordSink::add(const Frame& frame) {
  append(frame);
  ++frames_;
  in_frame_.erase(frame.thread);
}

void RecordSink::submit() {
  if (records_ == 0) return;
  writer_.submit(payload_, frame_starts_);
  writer_.acquire_buffer().give_to(payload_);
  records_ = 0;
  frame_starts_.clear();
}

bool RecordSink::finish(std::string* error) {
  submit();
  return writer_.close(error);
}

}  // namespace gltrace::format
