#include "encode.h"

#include <string>

#include "format/encoders.h"
#include "format/schema.h"

namespace gltrace::test {

namespace s = schema;

void encode_header(wire::Encoder& e, uint32_t pid, std::string_view process_name) {
  size_t record = s::chunk::begin_records(e);
  size_t header = s::record::begin_header(e);
  s::header::set_format_version(e, 1);
  s::header::set_pid(e, pid);
  s::header::set_process_name(e, process_name);
  s::header::set_clock_domain(e, "CLOCK_MONOTONIC");
  s::header::set_start_time_ns(e, 123456789);
  s::header::set_mode(e, "full");
  e.end_nested(header);
  e.end_nested(record);
}

void encode_thread(wire::Encoder& e, uint32_t index, uint64_t tid, std::string_view name) {
  size_t record = s::chunk::begin_records(e);
  size_t thread = s::record::begin_thread(e);
  s::thread::set_index(e, index);
  s::thread::set_tid(e, tid);
  s::thread::set_name(e, name);
  e.end_nested(thread);
  e.end_nested(record);
}

void encode_call(wire::Encoder& e, uint32_t thread, uint64_t seq, uint32_t function,
                 uint32_t context) {
  size_t record = s::chunk::begin_records(e);
  size_t call = s::record::begin_call(e);
  s::call::set_function(e, function);
  s::call::set_thread(e, thread);
  if (context != 0) s::call::set_context(e, context);
  s::call::set_seq(e, seq);
  s::call::set_start_ns(e, seq * 100);
  s::call::set_duration_ns(e, 7);
  size_t arg = s::call::begin_args(e);
  s::value::set_sint(e, -static_cast<int64_t>(seq));
  e.end_nested(arg);
  arg = s::call::begin_args(e);
  s::value::set_uint(e, thread);
  e.end_nested(arg);
  arg = s::call::begin_args(e);
  s::value::set_text(e, "t" + std::to_string(thread));
  e.end_nested(arg);
  size_t ret = s::call::begin_ret(e);
  s::value::set_uint(e, seq + 1);
  e.end_nested(ret);
  e.end_nested(call);
  e.end_nested(record);
}

void encode_frame(wire::Encoder& e, uint64_t number, uint64_t seq) {
  size_t record = s::chunk::begin_records(e);
  size_t frame = s::record::begin_frame(e);
  s::frame::set_number(e, number);
  s::frame::set_seq(e, seq);
  e.end_nested(frame);
  e.end_nested(record);
}

void encode_blob(wire::Encoder& e, uint64_t id, std::string_view data) {
  size_t record = s::chunk::begin_records(e);
  size_t blob = s::record::begin_blob(e);
  s::blob::set_id(e, id);
  s::blob::set_data(e, data.data(), data.size());
  e.end_nested(blob);
  e.end_nested(record);
}

namespace {

// `begin` opens a field of a message: a generated begin_<field> (schema::record::begin_call...).
using Begin = size_t (*)(wire::Encoder&);

template <typename F>
void record(wire::Encoder& e, Begin kind, F&& body) {
  size_t r = s::chunk::begin_records(e);
  size_t k = kind(e);
  body();
  e.end_nested(k);
  e.end_nested(r);
}

template <typename F>
void nested(wire::Encoder& e, Begin field, F&& body) {
  size_t m = field(e);
  body();
  e.end_nested(m);
}

}  // namespace

void encode_everything(wire::Encoder& e) {
  record(e, s::record::begin_header, [&] {
    s::header::set_format_version(e, 2);
    s::header::set_pid(e, 9);
    s::header::set_process_name(e, "everything");
    s::header::set_command_line(e, "everything --all");
    s::header::set_clock_domain(e, "CLOCK_MONOTONIC");
    s::header::set_start_time_ns(e, 123456789);
    s::header::set_mode(e, "full");
    s::header::set_capture_options(e, "framebuffer=swap");
    s::header::set_mid_run(e, true);
    s::header::set_driver(e, "/usr/lib/libEGL.so.1");
    s::header::set_cut_from(e, "frames 3-7 of demo.gltrace");
  });
  encode_thread(e, 1, 99, "main");
  record(e, s::record::begin_context, [&] {
    s::context::set_index(e, 1);
    s::context::set_handle(e, 0xc0);
    s::context::set_display(e, 0xd0);
    s::context::set_config(e, 0xcf);
    s::context::set_share_context(e, 0xc1);
    s::context::set_client_version(e, 3);
    nested(e, s::context::begin_config_attribs, [&] {
      s::context::pack_config_attribs(e, 0x3024);
      s::context::pack_config_attribs(e, 8);
    });
    s::context::set_gl_vendor(e, "Mesa");
    s::context::set_gl_renderer(e, "llvmpipe");
    s::context::set_gl_version(e, "OpenGL ES 3.2");
    s::context::set_surface_width(e, 64);
    s::context::set_surface_height(e, 32);
  });
  encode_blob(e, 0xb10b, "blob bytes");
  record(e, s::record::begin_call, [&] {
    s::call::set_function(e, 5);
    s::call::set_thread(e, 1);
    s::call::set_context(e, 1);
    s::call::set_seq(e, 1);
    s::call::set_start_ns(e, 1000);
    s::call::set_duration_ns(e, 70);
    s::call::set_thread_time_ns(e, 60);
    nested(e, s::call::begin_args, [&] { s::value::set_sint(e, -5); });
    nested(e, s::call::begin_args, [&] { s::value::set_uint(e, 5); });
    nested(e, s::call::begin_args, [&] { s::value::set_uint(e, 0); });  // a oneof member at 0
    nested(e, s::call::begin_args, [&] { s::value::set_f32(e, 0.5f); });
    nested(e, s::call::begin_args, [&] { s::value::set_f64(e, 0.25); });
    nested(e, s::call::begin_args, [&] { s::value::set_pointer(e, 0x1000); });
    nested(e, s::call::begin_args, [&] { s::value::set_data(e, "\1\2\3", 3); });
    nested(e, s::call::begin_args, [&] { s::value::set_blob(e, 0xb10b); });
    nested(e, s::call::begin_args, [&] { s::value::set_text(e, "text"); });
    nested(e, s::call::begin_args, [&] {
      nested(e, s::value::begin_unknown, [&] {
        s::unknown::set_pointer(e, 0x2000);
        s::unknown::set_reason(e, "why");
      });
    });
    nested(e, s::call::begin_args, [&] {
      nested(e, s::value::begin_strings, [&] {
        s::strings::add_items(e, "a");
        s::strings::add_items(e, "bc");
      });
    });
    // Arrays of each element type, one of all three (read as floats), an empty one.
    nested(e, s::call::begin_args, [&] {
      nested(e, s::value::begin_array, [&] {
        nested(e, s::array::begin_sints, [&] {
          s::array::pack_sints(e, -3);
          s::array::pack_sints(e, 4);
        });
      });
    });
    nested(e, s::call::begin_args, [&] {
      nested(e, s::value::begin_array, [&] {
        nested(e, s::array::begin_uints, [&] {
          s::array::pack_uints(e, 300);
          s::array::pack_uints(e, 0);
        });
      });
    });
    nested(e, s::call::begin_args, [&] {
      nested(e, s::value::begin_array, [&] {
        float f[3] = {-1.5f, 0, 2};
        s::array::set_floats_packed(e, f, sizeof f);
      });
    });
    nested(e, s::call::begin_args, [&] {
      nested(e, s::value::begin_array, [&] {
        nested(e, s::array::begin_sints, [&] { s::array::pack_sints(e, -3); });
        nested(e, s::array::begin_uints, [&] { s::array::pack_uints(e, 300); });
        float f[2] = {1, 2};
        s::array::set_floats_packed(e, f, sizeof f);
      });
    });
    nested(e, s::call::begin_args, [&] { nested(e, s::value::begin_array, [] {}); });
    nested(e, s::call::begin_args, [] {});  // no value at all
    nested(e, s::call::begin_ret, [&] { s::value::set_uint(e, 1); });
    s::call::set_gl_error(e, 0x500);
    nested(e, s::call::begin_client_arrays, [&] {
      s::client_array::set_index(e, 1);
      s::client_array::set_first(e, 2);
      s::client_array::set_stride(e, 8);
      s::client_array::set_pointer(e, 0x3000);
      s::client_array::set_data(e, "12345678", 8);
      s::client_array::set_blob(e, 0xb10b);
      s::client_array::set_array(e, 0x8074);  // GL_VERTEX_ARRAY
    });
    nested(e, s::call::begin_buffer_writes, [&] {
      s::buffer_write::set_target(e, 0x8892);
      s::buffer_write::set_offset(e, 16);
      s::buffer_write::set_data(e, "written", 7);
      s::buffer_write::set_blob(e, 0xb10b);
    });
    s::call::set_synthetic(e, true);
    nested(e, s::call::begin_image_source, [&] {
      s::image_source::set_width(e, 2);
      s::image_source::set_height(e, 3);
      s::image_source::set_blob(e, 0xb10b);
      s::image_source::set_not_captured(e, "no context was current");
    });
    s::call::set_ends_frame(e, true);
    nested(e, s::call::begin_config_attribs, [&] {
      s::call::pack_config_attribs(e, 0x3024);
      s::call::pack_config_attribs(e, -1);
    });
    s::call::set_surface_width(e, 640);
    s::call::set_surface_height(e, 480);
    s::call::set_snapshot(e, true);
  });
  record(e, s::record::begin_frame, [&] {
    s::frame::set_number(e, 0);
    s::frame::set_seq(e, 1);
    s::frame::set_thread(e, 1);
    s::frame::set_context(e, 1);
    s::frame::set_time_ns(e, 1100);
    s::frame::set_app_frame(e, 0);  // present at 0: has_app_frame
  });
  record(e, s::record::begin_image, [&] {
    s::image::set_frame(e, 0);
    s::image::set_seq(e, 1);
    s::image::set_width(e, 1);
    s::image::set_height(e, 1);
    s::image::set_blob(e, 0xb10b);
    s::image::set_origin(e, "swap");
    s::image::set_context(e, 1);
  });
  record(e, s::record::begin_stats, [&] { s::stats::set_calls(e, 1); });
}

}  // namespace gltrace::test
