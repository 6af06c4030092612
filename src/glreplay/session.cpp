#include "glreplay/session.h"

#define GL_GLES_PROTOTYPES 0
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include <cstdio>

#include "common/pixel_store.h"
#include "gl_loader/call.h"
#include "glreplay/requirements_check.h"
#include "glreplay/trace_source.h"
#include "glstate/gl_reader.h"

namespace gltrace::glreplay {

Session::Session(SessionOptions options, std::shared_ptr<TraceInfo> info)
    : options_(std::move(options)),
      info_(std::move(info)),
      messages_(options_.program, options_.max_messages),
      egl_(driver_, options_.x11, *info_, messages_) {}

Session::~Session() = default;

bool Session::init(std::string* error) {
  // Through the linker's search path (or --driver's directory), shared
  // (RTLD_GLOBAL) as an app that links them has them.
  gl_loader::Search search;
  search.dir = options_.driver_dir;
  search.flags = RTLD_NOW | RTLD_GLOBAL;
  if (!driver_.open(gl_loader::Library::kEgl, search, error) ||
      !driver_.open(gl_loader::Library::kGles2, search, error))
    return false;
  if (!driver_.has_get_proc_address()) {
    *error = "libEGL.so.1 has no eglGetProcAddress";
    return false;
  }
  std::string interposer = driver_.interposer_file();
  if (!interposer.empty())
    fprintf(stderr,
            "%s: warning: EGL comes from %s, gltrace's interposer: the replay should run on the "
            "real driver (unset LD_PRELOAD and LD_LIBRARY_PATH)\n",
            options_.program.c_str(), interposer.c_str());
  // Resolved now: release_thread() runs on several threads at once and must
  // only read the driver's table.
  driver_.proc(api::kFn_eglMakeCurrent);
  driver_.proc(api::kFn_eglReleaseThread);
  // Opened now, so a missing display is one clear error before any call.
  return display(error) != EGL_NO_DISPLAY;
}

void Session::note_divergent_result(uint64_t recorded, uint64_t replayed, bool as_enum,
                                    const std::string& detail) {
  ++divergent_results_;
  uint32_t function = call_ != nullptr ? call_->function : 0;
  constexpr uint64_t kWarnedPerFunction = 3;
  if (++divergent_by_function_[function] > kWarnedPerFunction) return;
  // Answers are enums here (checked_result's functions): named when known.
  const char* group =
      function < api::kFunctionIdLimit ? api::kFunctionInfo[function].ret_group : "";
  auto text = [&](uint64_t value) {
    return as_enum ? glstate::enum_text(static_cast<uint32_t>(value), *group != 0 ? group : nullptr)
                   : std::to_string(static_cast<int64_t>(value));
  };
  warn("this driver answered " + text(replayed) + ", the trace recorded " + text(recorded) +
       ": the app went on as the recorded answer told it" +
       (divergent_by_function_[function] == kWarnedPerFunction
            ? " (later such answers of this function are only counted)"
            : "") +
       (detail.empty() ? "" : "; the driver says: " + detail));
}

void Session::note_query_target(uint64_t query, uint32_t target) {
  timer_queries_[query] = target == GL_TIME_ELAPSED_EXT || target == GL_TIMESTAMP_EXT;
}

void Session::note_driver() {
  auto get = GL_CALL(driver_, glGetString);
  if (!driver_strings_ && get != nullptr) {
    auto text = [&](GLenum name) {
      const GLubyte* s = get(name);
      return s != nullptr ? std::string(reinterpret_cast<const char*>(s)).substr(0, kDriverText)
                          : std::string();
    };
    driver_strings_ = DriverStrings{text(GL_VENDOR), text(GL_RENDERER), text(GL_VERSION)};
  }
  if (!requirements_check_) return;
  // The trace's own driver: the one its first context ran on (the trace names
  // no vendor).
  std::optional<DriverStrings> capture = info().capture_driver();
  bool capture_driver = capture && driver_strings_ &&
                        capture->renderer == driver_strings_->renderer &&
                        capture->version == driver_strings_->version;
  requirements_check_->check(driver_, capture_driver);
}

// --- names and locations ------------------------------------------------------------

uint64_t Session::map_name(ObjectClass cls, uint64_t recorded) {
  return current().names_of(cls).get(recorded);
}

std::optional<uint64_t> Session::recorded_name(ObjectClass cls, uint64_t replayed) {
  if (replayed == 0) return std::nullopt;
  const NameMap& names = current().names_of(cls);
  if (std::optional<uint64_t> recorded = names.recorded_of(replayed)) return recorded;
  // Not remapped: its own name, unless that recorded name means another.
  if (names.contains(replayed)) return std::nullopt;
  return replayed;
}

bool Session::defines_name(ObjectClass cls, uint64_t recorded) {
  return current().names_of(cls).contains(recorded);
}

void Session::define_name(ObjectClass cls, uint64_t recorded, uint64_t replayed) {
  if (recorded == 0) return;
  current().names_of(cls).set(recorded, replayed);
}

int64_t Session::uniform_location(uint64_t recorded_program, int64_t recorded_location) {
  return current().group->programs.uniform_location(recorded_program, recorded_location);
}

void Session::define_uniform_location(uint64_t recorded_program, int64_t recorded,
                                      int64_t replayed) {
  current().group->programs.define_uniform_location(recorded_program, recorded, replayed);
}

int64_t Session::recorded_uniform_location(uint64_t recorded_program, int64_t replayed) {
  return current().group->programs.recorded_uniform_location(recorded_program, replayed);
}

int64_t Session::attrib_location(int64_t recorded) {
  if (recorded < 0) return recorded;
  ReplayContext& c = current();
  // The current program's answers first, then the last ones of any program.
  if (std::optional<int64_t> location = c.group->programs.attrib_location(c.program, recorded))
    return *location;
  auto it = c.attributes.find(recorded);
  return it != c.attributes.end() ? it->second : recorded;
}

void Session::define_attrib_location(uint64_t recorded_program, int64_t recorded,
                                     int64_t replayed) {
  ReplayContext& c = current();
  c.group->programs.define_attrib_location(recorded_program, recorded, replayed);
  c.attributes[recorded] = replayed;
}

uint64_t Session::resource_index(uint64_t recorded_program, uint32_t interface, uint64_t recorded) {
  return current().group->programs.resource_index(recorded_program, interface, recorded);
}

void Session::define_resource_index(uint64_t recorded_program, uint32_t interface,
                                    uint64_t recorded, uint64_t replayed) {
  current().group->programs.define_resource_index(recorded_program, interface, recorded, replayed);
}

void Session::forget_program(uint64_t recorded_program) {
  current().group->programs.forget(recorded_program);
}

// --- frames -------------------------------------------------------------------------------

bool Session::read_framebuffer(std::vector<uint8_t>* pixels, uint32_t* width, uint32_t* height,
                               std::string* error, ReadArea area) {
  if (!egl_.has_current()) {
    *error = "no context is current";
    return false;
  }
  auto query = GL_CALL(driver_, eglQuerySurface);
  auto get = GL_CALL(driver_, glGetIntegerv);
  auto bind_fb = GL_CALL(driver_, glBindFramebuffer);
  auto bind_buffer = GL_CALL(driver_, glBindBuffer);
  auto store = GL_CALL(driver_, glPixelStorei);
  auto read = GL_CALL(driver_, glReadPixels);
  auto get_error = GL_CALL(driver_, glGetError);
  if (query == nullptr || get == nullptr || bind_fb == nullptr || bind_buffer == nullptr ||
      store == nullptr || read == nullptr || get_error == nullptr) {
    *error = "the driver lacks a function to read the framebuffer";
    return false;
  }
  auto integer = [&](GLenum pname) {
    GLint value = 0;
    get(pname, &value);
    return value;
  };
  bool es3 = egl_.current().client_version >= 3;
  GLint draw_fb = integer(GL_FRAMEBUFFER_BINDING);
  GLint read_fb = es3 ? integer(GL_READ_FRAMEBUFFER_BINDING) : draw_fb;
  GLint source = 0;
  GLint region[4] = {0, 0, 0, 0};  // x, y, width, height
  if (area == ReadArea::kViewport || (area == ReadArea::kFinish && draw_fb != 0)) {
    source = draw_fb;
    get(GL_VIEWPORT, region);
  } else {
    if (egl_.current_draw_surface() == EGL_NO_SURFACE) {
      *error = "no surface is current";
      return false;
    }
    EGLDisplay dpy = egl_.display();
    query(dpy, egl_.current_draw_surface(), EGL_WIDTH, &region[2]);
    query(dpy, egl_.current_draw_surface(), EGL_HEIGHT, &region[3]);
  }
  if (region[2] <= 0 || region[3] <= 0) {
    *error = source == 0 ? "the current surface has no size" : "the viewport is empty";
    return false;
  }
  // As the trace layer reads it: RGBA8, tightly packed; every binding and
  // pack parameter it touches is put back.
  while (get_error() != GL_NO_ERROR) {
  }
  bind_fb(es3 ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER, static_cast<GLuint>(source));
  GLenum read_error = GL_NO_ERROR;
  {
    PixelStoreScope packing({get, store, bind_buffer}, es3, PixelStoreScope::Direction::kPack);
    packing.set_tightly_packed();
    pixels->assign(static_cast<size_t>(region[2]) * static_cast<size_t>(region[3]) * 4, 0);
    read(region[0], region[1], region[2], region[3], GL_RGBA, GL_UNSIGNED_BYTE, pixels->data());
    read_error = get_error();
  }
  if (source == 0 && egl_.current_draw_surface_opaque()) make_opaque(pixels);
  if (es3)
    bind_fb(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_fb));
  else
    bind_fb(GL_FRAMEBUFFER, static_cast<GLuint>(draw_fb));
  if (read_error != GL_NO_ERROR) {
    *error = "glReadPixels failed: GL error " + hex(read_error);
    return false;
  }
  *width = static_cast<uint32_t>(region[2]);
  *height = static_cast<uint32_t>(region[3]);
  return true;
}

}  // namespace gltrace::glreplay
