#include "trace/hooks/capture_snapshot.h"

#include <atomic>
#include <string>
#include <vector>

#include "common/log.h"
#include "format/record_encoder.h"
#include "glstate/snapshot.h"
#include "trace/hooks/object_names.h"
#include "trace/modes.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

using glstate::ObjectClass;

// The app's names are the driver's; which objects live, the object list knows.
class AppNames final : public glstate::SnapshotNames {
 public:
  AppNames(const Drawable& draw, void* context, bool refresh)
      : draw_(draw), context_(context), refresh_(refresh) {}

  std::vector<Object> objects(ObjectClass cls) override {
    if (refresh_ && (cls == ObjectClass::kBuffer || cls == ObjectClass::kTexture))
      return written_objects(context_, cls);
    return listed_objects(context_, cls);
  }
  uint64_t recorded_name(ObjectClass /*cls*/, uint64_t driver) override { return driver; }
  std::vector<glstate::LinkedShader> linked_shaders(uint64_t program) override {
    return trace::linked_shaders(context_, static_cast<GLuint>(program));
  }
  bool compressed_level(uint64_t texture, GLenum face, GLint level,
                        glstate::CompressedLevel* out) override {
    return trace::compressed_level(context_, static_cast<GLuint>(texture), face, level, out);
  }
  Image image_of(ObjectClass cls, uint64_t driver) override {
    return image_of_object(context_, cls, static_cast<GLuint>(driver), snapshot_epoch());
  }
  EGLDisplay display() override { return draw_.glx ? EGL_NO_DISPLAY : draw_.display; }
  bool draw_surface_size(GLint* width, GLint* height) override {
    uint32_t w = 0, h = 0;
    if (!query_surface_size(draw_, &w, &h)) return false;
    *width = static_cast<GLint>(w);
    *height = static_cast<GLint>(h);
    return true;
  }
  uint64_t recorded_draw_surface() override { return handle_bits(draw_.surface); }
  // A desktop context's version is its GL_VERSION's (glstate::GlReader).
  int client_version() override {
    EGLint version = 2;
    if (!draw_.glx)
      NEXT(eglQueryContext)(draw_.display, context_, EGL_CONTEXT_CLIENT_VERSION, &version);
    return version;
  }

 private:
  Drawable draw_;
  void* context_;
  bool refresh_;  // SharedObjects::kContents: the objects written before
};

// The snapshot's calls, appended to the thread's records as the app's calls
// are (each with its absolute seq: format::encode_record).
class RecordedSnapshot final : public glstate::SnapshotOut {
 public:
  explicit RecordedSnapshot(ThreadState* thread) : thread_(thread) {}

  void call(uint32_t function, std::span<const format::Value> args,
            const format::Value* ret) override {
    format::Call c;
    c.function = function;
    c.thread = thread_->index;
    c.context = thread_->context;
    c.seq = next_seq();
    c.start_ns = trace_time(now_ns());
    c.args = args;
    c.ret = ret;
    c.synthetic = true;
    c.snapshot = true;
    c.snapshot_inexact = pending_inexact_;
    format::ImageSource image;
    if (pending_image_.blob != 0) {
      image = pending_image_;
      c.image_source = &image;
      pending_image_ = {};
    }
    format::encode_record(thread_->payload, c);
    ++thread_->records;
    thread_->last_seq = c.seq;
    thread_->calls.store(thread_->calls.load(std::memory_order_relaxed) + 1,
                         std::memory_order_relaxed);
    ++calls_;
    if (thread_->payload.size() >= kFlushBytes) flush_thread(thread_);
    pending_inexact_.clear();
  }
  uint64_t blob(std::string_view bytes) override {
    return store_blob(thread_, bytes.data(), bytes.size());
  }
  void inexact(const std::string& why) override {
    GLTRACE_LOG_WARN("the capture's snapshot is not exact: %s", why.c_str());
    ++inexact_;
    pending_inexact_ += (pending_inexact_.empty() ? "" : "; ") + why;
  }
  void image_pixels(uint32_t width, uint32_t height, uint64_t blob) override {
    pending_image_ = {width, height, blob, {}};
  }
  uint64_t calls() const { return calls_; }
  uint64_t inexact_count() const { return inexact_; }

 private:
  ThreadState* thread_;
  uint64_t calls_ = 0;
  uint64_t inexact_ = 0;
  std::string pending_inexact_;        // said of the next call (Call.snapshot_inexact)
  format::ImageSource pending_image_;  // the next call's (Call.image_source)
};

}  // namespace

void record_gl_snapshot(const Drawable& draw, void* context, glstate::SharedObjects shared) {
  ThreadState* thread = thread_state();
  AppendGuard guard(thread);
  if (!guard.ok()) return;
  AppNames names(draw, context, shared == glstate::SharedObjects::kContents);
  RecordedSnapshot out(thread);
  std::string error;
  if (!glstate::write_snapshot(next_layer_functions(), names, out, shared, &error)) {
    GLTRACE_LOG_WARN("the capture's snapshot of thread %u stopped: %s", thread->index,
                     error.c_str());
    return;
  }
  // A flight recorder's rounds take one every few frames: said once, and
  // only when something was not exact.
  if (thread->round_snapshot) {
    static std::atomic<bool> said{false};
    if (out.inexact_count() == 0 || said.exchange(true)) return;
  }
  GLTRACE_LOG_INFO("thread %u: a snapshot of %llu calls (%llu objects not exact)", thread->index,
                   static_cast<unsigned long long>(out.calls()),
                   static_cast<unsigned long long>(out.inexact_count()));
}

}  // namespace gltrace::trace
