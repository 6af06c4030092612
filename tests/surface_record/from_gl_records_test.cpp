// `gltrace surface from-gl`'s rules on a GL trace written by hand, as the
// trace layer writes its records: window and pbuffer surfaces, failed swaps,
// resizes, handles reused, eglTerminate, windows from before the trace.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "encode.h"
#include "format/encoders.h"
#include "format/payload.h"
#include "format/schema.h"
#include "format/writer.h"
#include "gltrace/api/functions.h"
#include "support/subprocess.h"
#include "surface/from_gl/from_gl.h"

namespace gltrace::test {
namespace {

namespace s = gltrace::schema;

constexpr uint64_t kDisplay = 0xd1, kOtherDisplay = 0xd2;

class GlTrace {
 public:
  // A call on thread 1 at `time_ns`, with pointer arguments, a return value
  // (pointer, or uint with `ret_uint`) and a draw surface size.
  void call(uint32_t function, uint64_t time_ns, const std::vector<uint64_t>& pointer_args,
            std::optional<uint64_t> ret_pointer, std::optional<uint64_t> ret_uint = {},
            uint32_t width = 0, uint32_t height = 0) {
    size_t record = s::chunk::begin_records(e_);
    size_t c = s::record::begin_call(e_);
    s::call::set_function(e_, function);
    s::call::set_thread(e_, 1);
    s::call::set_seq(e_, seq_++);
    s::call::set_start_ns(e_, time_ns);
    for (uint64_t arg : pointer_args) {
      size_t v = s::call::begin_args(e_);
      s::value::set_pointer(e_, arg);
      e_.end_nested(v);
    }
    if (ret_pointer || ret_uint) {
      size_t v = s::call::begin_ret(e_);
      if (ret_pointer) s::value::set_pointer(e_, *ret_pointer);
      if (ret_uint) s::value::set_uint(e_, *ret_uint);
      e_.end_nested(v);
    }
    if (width != 0) {
      s::call::set_surface_width(e_, width);
      s::call::set_surface_height(e_, height);
    }
    e_.end_nested(c);
    e_.end_nested(record);
    ++records_;
  }
  void swap(uint64_t time_ns, uint64_t display, uint64_t surface, bool ok, uint32_t w, uint32_t h) {
    call(api::kFn_eglSwapBuffers, time_ns, {display, surface}, {}, ok ? 1 : 0, w, h);
  }
  std::string write() {
    std::string path = make_temp_dir() + "/hand.gltrace";
    std::string error;
    auto writer = format::TraceWriter::open_file(path, {}, &error);
    EXPECT_NE(writer, nullptr) << error;
    writer->submit(format::Payload::from_encoder(e_), {});
    EXPECT_TRUE(writer->close(&error)) << error;
    return path;
  }
  GlTrace() {
    encode_header(e_, 1, "hand");
    ++records_;
  }

 private:
  wire::Encoder e_;
  uint64_t seq_ = 0;
  uint32_t records_ = 0;
};

struct Seen {
  surface::SurfaceCreation creation;
  int64_t created = -1, deleted = -1;
  std::vector<surface::BufferUpdate> updates;
  std::vector<std::pair<uint32_t, uint32_t>> sizes;
};

TEST(SurfaceFromGlRecords, SurfacesSwapsAndTheirEnds) {
  GlTrace gl;
  gl.call(api::kFn_eglCreateWindowSurface, 1000, {kDisplay, 0xc0, 0x77, 0}, 0xa1);
  gl.call(api::kFn_eglCreatePbufferSurface, 1100, {kDisplay, 0xc0, 0}, 0xb1);  // never swapped
  gl.swap(2000, kDisplay, 0xa1, true, 100, 80);
  gl.swap(3000, kDisplay, 0xa1, false, 100, 80);  // EGL_FALSE: shows nothing
  gl.swap(4000, kDisplay, 0xa1, true, 120, 90);   // the window was resized
  gl.call(api::kFn_eglDestroySurface, 5000, {kDisplay, 0xa1}, {}, 1);
  gl.call(api::kFn_eglCreateWindowSurface, 6000, {kDisplay, 0xc0, 0x78, 0}, 0xa1);  // reused
  gl.swap(7000, kDisplay, 0xa1, true, 64, 64);
  gl.call(api::kFn_eglCreatePbufferSurface, 7500, {kDisplay, 0xc0, 0}, 0xb2);
  gl.swap(8000, kDisplay, 0xb2, true, 32, 32);
  gl.call(api::kFn_eglTerminate, 9000, {kDisplay}, {}, 1);
  gl.swap(10000, kOtherDisplay, 0xe1, true, 50, 40);  // a window from before the trace
  const std::string path = gl.write();

  surface::Trace trace;
  surface::FromGlSummary summary;
  std::string error, warning;
  ASSERT_TRUE(surface::convert_gl_trace(path, trace, summary, error, warning)) << error;
  EXPECT_EQ(warning, "");
  EXPECT_EQ(summary.surfaces, 4u);
  EXPECT_EQ(summary.swaps, 5u);

  std::map<int32_t, Seen> seen;
  size_t vsyncs = 0;
  ASSERT_GT(trace.increment_size(), 0);
  ASSERT_TRUE(trace.increment(0).has_display_creation());
  EXPECT_EQ(trace.increment(0).display_creation().w(), 120u);
  EXPECT_EQ(trace.increment(0).display_creation().h(), 90u);
  int64_t last_time = 0;
  for (const surface::Increment& inc : trace.increment()) {
    EXPECT_GE(inc.time_stamp(), last_time) << "in time order";
    last_time = inc.time_stamp();
    if (inc.has_surface_creation()) {
      seen[inc.surface_creation().id()].creation = inc.surface_creation();
      seen[inc.surface_creation().id()].created = inc.time_stamp();
    } else if (inc.has_surface_deletion()) {
      seen[inc.surface_deletion().id()].deleted = inc.time_stamp();
    } else if (inc.has_buffer_update()) {
      seen[inc.buffer_update().id()].updates.push_back(inc.buffer_update());
    } else if (inc.has_vsync_event()) {
      ++vsyncs;
      EXPECT_EQ(inc.vsync_event().when(), inc.time_stamp());
    } else if (inc.has_transaction()) {
      for (const auto& c : inc.transaction().surface_change())
        if (c.has_size()) seen[c.id()].sizes.emplace_back(c.size().w(), c.size().h());
    }
  }
  EXPECT_EQ(vsyncs, 5u);
  ASSERT_EQ(seen.size(), 4u);

  const Seen& first = seen[1];
  EXPECT_EQ(first.creation.role(), "egl_window");
  EXPECT_EQ(first.creation.name(), "hand: EGL window 0xa1");
  EXPECT_EQ(first.created, 1000);
  EXPECT_EQ(first.creation.w(), 100u);
  ASSERT_EQ(first.updates.size(), 2u);
  EXPECT_EQ(first.updates[0].frame_number(), 1u);
  EXPECT_EQ(first.updates[1].frame_number(), 2u);
  EXPECT_EQ(first.updates[1].w(), 120u);
  EXPECT_EQ(first.updates[1].h(), 90u);
  EXPECT_EQ(first.sizes, (std::vector<std::pair<uint32_t, uint32_t>>{{100, 80}, {120, 90}}));
  EXPECT_EQ(first.deleted, 5000);

  const Seen& reused = seen[2];
  EXPECT_EQ(reused.creation.role(), "egl_window");
  EXPECT_EQ(reused.created, 6000);
  ASSERT_EQ(reused.updates.size(), 1u);
  EXPECT_EQ(reused.updates[0].frame_number(), 1u);
  EXPECT_EQ(reused.deleted, 9000) << "eglTerminate ends the display's surfaces";

  const Seen& pbuffer = seen[3];
  EXPECT_EQ(pbuffer.creation.role(), "egl_pbuffer");
  EXPECT_EQ(pbuffer.created, 8000) << "a pbuffer enters at its first swap";
  EXPECT_EQ(pbuffer.deleted, 9000);

  const Seen& earlier = seen[4];
  EXPECT_EQ(earlier.creation.role(), "egl_window");
  EXPECT_EQ(earlier.created, 10000);
  ASSERT_EQ(earlier.updates.size(), 1u);
  EXPECT_EQ(earlier.updates[0].w(), 50u);
  EXPECT_EQ(earlier.deleted, 10000) << "ends with the program";
}

TEST(SurfaceFromGlRecords, NoSurfaceIsAWarning) {
  GlTrace gl;
  gl.call(api::kFn_eglCreatePbufferSurface, 1000, {kDisplay, 0xc0, 0}, 0xb1);
  surface::Trace trace;
  surface::FromGlSummary summary;
  std::string error, warning;
  ASSERT_TRUE(surface::convert_gl_trace(gl.write(), trace, summary, error, warning)) << error;
  EXPECT_NE(warning.find("nothing to convert"), std::string::npos) << warning;
  EXPECT_EQ(trace.increment_size(), 0);
}

}  // namespace
}  // namespace gltrace::test
