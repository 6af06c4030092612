// A state snapshot of a GL context: the calls that recreate, in a fresh
// replay, the GL objects of the current context's share group and the
// context's own objects and state as they are now, written as the trace
// names things (docs/trace-format.md, "Snapshots"). Taken from the replay's
// driver (`gltrace trim`, glreplay/snapshot.h) and inside a traced app at the
// start of a capture (trace/hooks/capture_snapshot.cpp), with this one
// writer. Exact where GLES reads back; an object it cannot recreate exactly
// is written as near as it can be and said so (SnapshotOut::inexact), never
// silently.
#pragma once

#include <EGL/egl.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"
#include "glstate/compressed_shadow.h"
#include "glstate/gl_reader.h"
#include "glstate/object_class.h"

namespace gltrace::glstate {

// Where a snapshot's calls go, in order, on the thread and context it was
// taken on.
class SnapshotOut {
 public:
  virtual ~SnapshotOut() = default;
  // One call; ret is null for void functions. Values point into memory
  // valid during the call only.
  virtual void call(uint32_t function, std::span<const format::Value> args,
                    const format::Value* ret) = 0;
  // A Blob for bytes too large to inline; returns its id.
  virtual uint64_t blob(std::string_view bytes) = 0;
  // The object the next call recreates is not exact: why.
  virtual void inexact(const std::string& why) = 0;
  // The calls that follow recreate one object or part of the state
  // ("texture 3", "context 1 state"): for readers that compare snapshots.
  virtual void section(const std::string& /*name*/) {}
  // The size of the draw surface the call just written (an eglMakeCurrent)
  // made current: a replay sizes its surface so (Call.surface_width/height).
  virtual void surface_size(uint32_t /*width*/, uint32_t /*height*/) {}
  // The calls that follow are on this recorded thread, with this Context
  // index current (0: none).
  virtual void begin_thread(uint32_t /*thread*/, uint32_t /*context*/) {}
  // The next call (an eglCreateImageKHR) makes its image of these RGBA8
  // pixels (Call.image_source): a replay has no source object to make it of.
  virtual void image_pixels(uint32_t /*width*/, uint32_t /*height*/, uint64_t /*blob*/) {}
};

// What the snapshot knows of the context beyond the driver: the names the
// trace uses for its objects (a replay's differ from its driver's; an app's
// are the driver's) and which ones live.
class SnapshotNames {
 public:
  virtual ~SnapshotNames() = default;
  struct Object {
    uint64_t recorded;  // the trace's name
    uint64_t driver;    // the driver's
    bool deleted;       // the app deleted it (it may live on: attached, in use)
  };
  // Every object of a class the trace named in the current context (its
  // share group's, or the context's own containers), by recorded name.
  virtual std::vector<Object> objects(ObjectClass cls) = 0;
  // The trace's name of a driver name of the current context (0 for 0);
  // a name the trace never made is returned as it is.
  virtual uint64_t recorded_name(ObjectClass cls, uint64_t driver) = 0;
  // Where the app learnt a program's locations and indices from the driver
  // (glGetUniformLocation...), the ones it learnt; else the driver's.
  virtual int64_t recorded_uniform_location(uint64_t /*program*/, int64_t location) {
    return location;
  }
  virtual int64_t recorded_attrib_location(uint64_t /*program*/, int64_t location) {
    return location;
  }
  virtual uint64_t recorded_resource_index(uint64_t /*program*/, uint32_t /*interface*/,
                                           uint64_t index) {
    return index;
  }
  // The shaders a program last linked with, as far as they are known: for
  // a program whose shaders were detached since.
  virtual std::vector<LinkedShader> linked_shaders(uint64_t /*program*/) { return {}; }
  // The bytes of a compressed texture's level (`face`: a cube map face,
  // else the target) as the app's uploads made it; false when not kept.
  virtual bool compressed_level(uint64_t /*driver_texture*/, GLenum /*face*/, GLint /*level*/,
                                CompressedLevel* /*out*/) {
    return false;
  }
  // The EGL image a texture or renderbuffer shares its storage with (the
  // image was made of it, or the app targeted it at the image), by the
  // trace's handles (image 0: none). `first`: no call of this snapshot's
  // epoch made the image yet; the snapshot makes it of this object's pixels.
  struct Image {
    uint64_t image = 0;
    uint64_t display = 0;
    bool first = false;
  };
  virtual Image image_of(ObjectClass /*cls*/, uint64_t /*driver*/) { return {}; }
  // The generic attribute index the trace uses for a driver one.
  virtual uint64_t recorded_attribute(int64_t index) { return static_cast<uint64_t>(index); }
  // The context's EGL display (EGL_NO_DISPLAY for a GLX context), the size
  // of its draw surface (false: it has none), and the trace's handle of it.
  virtual EGLDisplay display() = 0;
  virtual bool draw_surface_size(GLint* width, GLint* height) = 0;
  virtual uint64_t recorded_draw_surface() = 0;
  // The client version the context was made with.
  virtual int client_version() = 0;
};

// What of the share group's objects a snapshot writes besides the
// context's own objects and state.
enum class SharedObjects {
  kNone,     // written before, and unchanged since
  kAll,      // every one (the first context of its group a snapshot writes)
  kContents  // the buffers' and textures' contents again, into the objects
             // written before (SnapshotNames lists those): another thread may
             // have changed them since, untraced (a capture's later joiner)
};

// Runs on the thread whose current context it reads. The driver's bindings
// it touches to read are put back. False with *error when it cannot read
// the context.
bool write_snapshot(GlFunctions gl, SnapshotNames& names, SnapshotOut& out, SharedObjects shared,
                    std::string* error);

}  // namespace gltrace::glstate
