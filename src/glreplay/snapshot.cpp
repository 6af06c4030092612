#include "glreplay/snapshot.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "format/reader.h"
#include "glreplay/executor.h"
#include "glreplay/trace_source.h"
#include "replay/controller.h"

namespace gltrace::glreplay {

using format::ValueKind;

namespace {

// The replay's names: the trace's, mapped to the driver's by the session.
class ReplayNames final : public glstate::SnapshotNames {
 public:
  explicit ReplayNames(Session& session) : session_(session), context_(session.current()) {}

  std::vector<Object> objects(ObjectClass cls) override {
    std::vector<Object> list;
    const NameMap& names = context_.names_of(cls);
    names.for_each([&](uint64_t recorded, uint64_t replayed) {
      list.push_back({recorded, replayed, names.deleted(recorded)});
    });
    std::sort(list.begin(), list.end(),
              [](const Object& a, const Object& b) { return a.recorded < b.recorded; });
    return list;
  }
  uint64_t recorded_name(ObjectClass cls, uint64_t driver) override {
    if (driver == 0) return 0;
    return session_.recorded_name(cls, driver).value_or(driver);
  }
  int64_t recorded_uniform_location(uint64_t program, int64_t location) override {
    return context_.group->programs.recorded_uniform_location(program, location);
  }
  int64_t recorded_attrib_location(uint64_t program, int64_t location) override {
    return context_.group->programs.recorded_attrib_location(program, location);
  }
  uint64_t recorded_resource_index(uint64_t program, uint32_t interface, uint64_t index) override {
    return context_.group->programs.recorded_resource_index(program, interface, index);
  }
  bool compressed_level(uint64_t texture, GLenum face, GLint level,
                        glstate::CompressedLevel* out) override {
    return context_.group->compressed.find(nullptr, static_cast<GLuint>(texture), face, level, out);
  }
  std::vector<glstate::LinkedShader> linked_shaders(uint64_t program) override {
    auto it = context_.group->linked_shaders.find(program);
    return it != context_.group->linked_shaders.end() ? it->second
                                                      : std::vector<glstate::LinkedShader>{};
  }
  uint64_t recorded_attribute(int64_t index) override {
    for (const auto& [recorded, location] : context_.attributes)
      if (location == index) return static_cast<uint64_t>(recorded);
    return static_cast<uint64_t>(index);
  }
  EGLDisplay display() override { return session_.display(); }
  bool draw_surface_size(GLint* width, GLint* height) override {
    EGLSurface draw = session_.current_draw_surface();
    auto query = GL_CALL(session_.gl(), eglQuerySurface);
    return draw != EGL_NO_SURFACE && query != nullptr &&
           query(session_.display(), draw, EGL_WIDTH, width) &&
           query(session_.display(), draw, EGL_HEIGHT, height);
  }
  uint64_t recorded_draw_surface() override { return session_.current_draw(); }
  int client_version() override { return context_.client_version; }

 private:
  Session& session_;
  ReplayContext& context_;
};

// Each context record's handle -> (index, display handle).
class ContextRecords final : public format::Consumer {
 public:
  void on_context(const format::Context& context) override {
    contexts[context.handle] = {context.index, context.display};
  }
  std::map<uint64_t, std::pair<uint32_t, uint64_t>> contexts;
};

}  // namespace

bool snapshot_after_call(const std::string& trace, uint64_t last_call, const std::string& program,
                         const std::string& driver_dir, SnapshotOut& out, std::string* error) {
  ContextRecords records;
  if (!format::read_trace_file(trace, records, error)) return false;
  auto info = std::make_shared<TraceInfo>();
  TraceSource source(info, SourceOptions{});
  if (!source.open(trace, error)) return false;
  SessionOptions session_options;
  session_options.program = program;
  session_options.driver_dir = driver_dir;
  Session session(session_options, info);
  if (!session.init(error)) return false;
  GlExecutor executor(session, ExecutorOptions{});
  replay::ReplayOptions options;
  options.threads = 0;
  options.wait = false;
  options.execute_on = replay::ExecuteOn::kTargetThreadInOrder;
  options.handle_sigint = false;
  bool ok = true;
  {
    replay::ReplayController controller(source, executor, options);
    replay::RunResult result = controller.run_to(last_call);
    std::optional<uint64_t> at = controller.position().last;
    if (!result.parked() || (result.stop == replay::RunStop::kEnd &&
                             result.status.result == replay::ReplayResult::kSourceError)) {
      *error =
          "the replay to call " + std::to_string(last_call) + " failed: " + result.status.message;
      ok = false;
    } else if (!at || *at != last_call) {
      *error = "call " + std::to_string(last_call) + " is not in the trace";
      ok = false;
    }
    std::set<const ShareGroup*> written;
    for (const CurrentBinding& b :
         ok ? session.current_bindings() : std::vector<CurrentBinding>{}) {
      auto context = records.contexts.find(b.context);
      bool known = context != records.contexts.end();
      out.begin_thread(b.thread, known ? context->second.first : 0);
      out.section("thread " + std::to_string(b.thread) + " current");
      Value args[4];
      for (Value& v : args) v.kind = ValueKind::kPointer;
      args[0].pointer = known ? context->second.second : 0;
      args[1].pointer = b.draw;
      args[2].pointer = b.read;
      args[3].pointer = b.context;
      Value ret;
      ret.kind = ValueKind::kUint;
      ret.uint = 1;  // EGL_TRUE
      out.call(api::kFn_eglMakeCurrent, args, &ret);
      bool with_group = written.insert(b.group).second;
      std::string snapshot_error;
      bool wrote = false;
      bool ran = controller.run_on_target(
          b.thread,
          [&] {
            session.set_thread(b.thread);
            // The window's size now: it may have been resized since it was made.
            if (EGLSurface draw = session.current_draw_surface(); draw != EGL_NO_SURFACE) {
              EGLint width = 0, height = 0;
              GL_CALL(session.gl(), eglQuerySurface)(session.display(), draw, EGL_WIDTH, &width);
              GL_CALL(session.gl(), eglQuerySurface)(session.display(), draw, EGL_HEIGHT, &height);
              out.surface_size(static_cast<uint32_t>(width), static_cast<uint32_t>(height));
            }
            wrote = write_snapshot(session, out, with_group, &snapshot_error);
          },
          error);
      if (!ran || !wrote) {
        if (ran) *error = snapshot_error;
        *error = "cannot take the snapshot of thread " + std::to_string(b.thread) + ": " + *error;
        ok = false;
        break;
      }
    }
    controller.stop();
  }
  session.shutdown();
  return ok;
}

bool write_snapshot(Session& session, SnapshotOut& out, bool with_share_group, std::string* error) {
  if (!session.has_current()) {
    *error = "no context is current";
    return false;
  }
  ReplayNames names(session);
  return glstate::write_snapshot(
      glstate::GlFunctions::of(session.gl()), names, out,
      with_share_group ? glstate::SharedObjects::kAll : glstate::SharedObjects::kNone, error);
}

}  // namespace gltrace::glreplay
