#include "trace/hooks/object_names.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "trace/hooks/egl_image_attribs.h"
#include "trace/next.h"

namespace gltrace::trace {
namespace {

using glstate::ObjectClass;

constexpr size_t kClasses = static_cast<size_t>(ObjectClass::kCount);

// Name -> deleted (a program or shader the app deleted that may live on).
using Names = std::map<uint32_t, bool>;

struct ShareGroup {
  Names names[kClasses];                // the shared classes' (containers are per context)
  uint32_t snapshot_epoch = 0;          // the last epoch that wrote its objects
  EGLContext written = EGL_NO_CONTEXT;  // a context of it that session wrote
  // The buffers and textures the session's first snapshot of the group wrote.
  std::set<GLuint> written_buffers, written_textures;
  // The shaders each program last linked with (note_program_linked).
  std::map<GLuint, std::vector<glstate::LinkedShader>> linked;
  // The textures and renderbuffers that are siblings of an EGL image: the
  // image's key (g_images).
  std::map<std::pair<ObjectClass, GLuint>, uint64_t> image_siblings;
};

// An EGL image: the display it belongs to, and the last snapshot epoch
// that wrote it.
struct ImageEntry {
  EGLDisplay display = EGL_NO_DISPLAY;
  std::optional<uint32_t> written_epoch;
  // Its source where that is a GL object: the context, the app's target,
  // the object's name and the GL attributes (level, z offset, preserved).
  EGLContext context = EGL_NO_CONTEXT;
  EGLenum target = 0;
  GLuint object = 0;
  std::vector<EGLint> attribs;
};

struct ContextNames {
  std::shared_ptr<ShareGroup> group = std::make_shared<ShareGroup>();
  Names containers[kClasses];
};

std::mutex g_mutex;
// Never destroyed: app threads may make objects while the process exits.
auto& g_contexts = *new std::unordered_map<EGLContext, ContextNames>();
// Copies of compressed uploads, by share group (null until a process that
// may start a capture mid-run asks for them: keep_compressed_copies).
std::atomic<glstate::CompressedShadows*> g_shadows{nullptr};
// EGL images by key: the app's handle while it lives; once the app destroys
// one whose siblings still share its storage, a number of ours above any
// address (kOwnImageKeys + n), which a snapshot makes an image of again.
auto& g_images = *new std::map<uint64_t, ImageEntry>();
constexpr uint64_t kOwnImageKeys = uint64_t{0xffff} << 48;
uint64_t g_own_image_keys = 0;
// Whether any object ever became an image's sibling: until then a storage
// call asks nothing of the driver.
std::atomic<bool> g_any_siblings{false};

// The names `cls` has in `context` (made on first use: a context the layer
// did not see made has a group of its own).
Names& names_of(EGLContext context, ObjectClass cls) {
  ContextNames& c = g_contexts[context];
  return glstate::is_container(cls) ? c.containers[static_cast<size_t>(cls)]
                                    : c.group->names[static_cast<size_t>(cls)];
}

// The thread's context, of EGL or else of GLX (the two never share one).
EGLContext current_context() {
  EGLContext egl = NEXT(eglGetCurrentContext)();
  return egl != EGL_NO_CONTEXT ? egl : static_cast<EGLContext>(NEXT(glXGetCurrentContext)());
}

void created(Names& names, GLuint name) {
  if (name != 0) names[name] = false;
}

void deleted(Names& names, ObjectClass cls, GLuint name) {
  auto it = names.find(name);
  if (it == names.end()) return;
  // GLES frees every other name at once (an object that lives on, attached
  // or bound elsewhere, has none); a program or shader keeps its name while
  // in use or attached.
  if (cls == ObjectClass::kProgram)
    it->second = true;
  else
    names.erase(it);
}

uint64_t image_key(const void* image) { return reinterpret_cast<uintptr_t>(image); }

// The texture or renderbuffer bound to `target` in the current context (0:
// none, or a target no image sibling is bound to).
GLuint bound_object(ObjectClass cls, GLenum target) {
  GLenum binding = 0;
  if (cls == ObjectClass::kRenderbuffer)
    binding = GL_RENDERBUFFER_BINDING;
  else if (target == GL_TEXTURE_2D)
    binding = GL_TEXTURE_BINDING_2D;
  else if (target == GL_TEXTURE_EXTERNAL_OES)
    binding = GL_TEXTURE_BINDING_EXTERNAL_OES;
  if (binding == 0) return 0;
  GLint name = 0;
  NEXT(glGetIntegerv)(binding, &name);
  return static_cast<GLuint>(name);
}

template <typename T>
void image_created(EGLImage image, EGLDisplay dpy, EGLContext ctx, EGLenum target,
                   EGLClientBuffer buffer, const T* attribs) {
  if (image == EGL_NO_IMAGE) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  ImageEntry& entry = g_images[image_key(image)];
  entry = ImageEntry{};
  entry.display = dpy;
  auto name = static_cast<GLuint>(reinterpret_cast<uintptr_t>(buffer));
  if (is_gl_image_target(target) && ctx != EGL_NO_CONTEXT) {
    entry.context = ctx;
    entry.target = target;
    entry.object = name;
    for (EGLint a : {EGL_GL_TEXTURE_LEVEL, EGL_GL_TEXTURE_ZOFFSET, EGL_IMAGE_PRESERVED})
      if (int64_t value = attrib_value(attribs, a); value >= 0)
        entry.attribs.insert(entry.attribs.end(), {a, static_cast<EGLint>(value)});
    entry.attribs.push_back(EGL_NONE);
  }
  // The source is a sibling where the image is all of it (level 0 of a 2D
  // texture, a renderbuffer); an image of another level or face is not
  // linked again (the snapshot restores each object's pixels).
  ObjectClass cls = ObjectClass::kCount;
  if (target == EGL_GL_TEXTURE_2D && attrib_value(attribs, EGL_GL_TEXTURE_LEVEL) <= 0)
    cls = ObjectClass::kTexture;
  else if (target == EGL_GL_RENDERBUFFER)
    cls = ObjectClass::kRenderbuffer;
  if (cls == ObjectClass::kCount || ctx == EGL_NO_CONTEXT) return;
  g_contexts[ctx].group->image_siblings[{cls, name}] = image_key(image);
  g_any_siblings.store(true, std::memory_order_relaxed);
}

}  // namespace

void note_created(ObjectClass cls, int64_t count, const GLuint* names) {
  if (names == nullptr || count <= 0) return;
  EGLContext context = current_context();
  std::lock_guard<std::mutex> lock(g_mutex);
  Names& list = names_of(context, cls);
  for (int64_t i = 0; i < count; ++i) created(list, names[i]);
}

void note_created(ObjectClass cls, GLuint name) {
  EGLContext context = current_context();
  std::lock_guard<std::mutex> lock(g_mutex);
  created(names_of(context, cls), name);
}

void note_deleted(ObjectClass cls, int64_t count, const GLuint* names) {
  if (names == nullptr || count <= 0) return;
  EGLContext context = current_context();
  std::lock_guard<std::mutex> lock(g_mutex);
  Names& list = names_of(context, cls);
  glstate::CompressedShadows* shadows = g_shadows.load(std::memory_order_acquire);
  for (int64_t i = 0; i < count; ++i) {
    deleted(list, cls, names[i]);
    if (cls == ObjectClass::kTexture || cls == ObjectClass::kRenderbuffer)
      g_contexts[context].group->image_siblings.erase({cls, names[i]});
    if (cls == ObjectClass::kTexture && shadows != nullptr)
      shadows->forget(g_contexts[context].group.get(), names[i]);
  }
}

void note_deleted(ObjectClass cls, GLuint name) { note_deleted(cls, 1, &name); }

void keep_compressed_copies(size_t limit_bytes) {
  if (limit_bytes == 0 || g_shadows.load() != nullptr) return;
  g_shadows.store(new glstate::CompressedShadows(limit_bytes), std::memory_order_release);
}

void compressed_copy_bytes(uint64_t* held, uint64_t* uploaded) {
  glstate::CompressedShadows* shadows = g_shadows.load(std::memory_order_acquire);
  *held = shadows != nullptr ? shadows->bytes() : 0;
  *uploaded = shadows != nullptr ? shadows->uploaded_bytes() : 0;
}

void note_compressed_upload(const glstate::CompressedUpload& upload) {
  glstate::CompressedShadows* shadows = g_shadows.load(std::memory_order_acquire);
  if (shadows == nullptr) return;
  EGLContext context = current_context();
  const void* group = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    group = g_contexts[context].group.get();
  }
  shadows->note_upload(next_layer_functions(), group, upload);
}

bool compressed_level(EGLContext context, GLuint texture, GLenum face, GLint level,
                      glstate::CompressedLevel* out) {
  glstate::CompressedShadows* shadows = g_shadows.load(std::memory_order_acquire);
  if (shadows == nullptr) return false;
  const void* group = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    group = g_contexts[context].group.get();
  }
  return shadows->find(group, texture, face, level, out);
}

void note_image_created(EGLImage image, EGLDisplay dpy, EGLContext ctx, EGLenum target,
                        EGLClientBuffer buffer, const EGLint* attribs) {
  image_created(image, dpy, ctx, target, buffer, attribs);
}

void note_image_created(EGLImage image, EGLDisplay dpy, EGLContext ctx, EGLenum target,
                        EGLClientBuffer buffer, const EGLAttrib* attribs) {
  image_created(image, dpy, ctx, target, buffer, attribs);
}

void note_image_destroyed(EGLImage image) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_images.find(image_key(image));
  if (it == g_images.end()) return;
  // Its siblings still share its storage: they keep it under a key of ours
  // (the app's handle may name a new image soon).
  uint64_t own = kOwnImageKeys + ++g_own_image_keys;
  bool kept = false;
  for (auto& [context, names] : g_contexts)
    for (auto& [object, key] : names.group->image_siblings)
      if (key == it->first) {
        key = own;
        kept = true;
      }
  if (kept) g_images[own] = it->second;
  g_images.erase(it);
}

void note_image_target(ObjectClass cls, GLenum target, GLeglImageOES image) {
  GLuint name = bound_object(cls, target);
  if (name == 0) return;
  EGLContext context = current_context();
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& siblings = g_contexts[context].group->image_siblings;
  if (g_images.count(image_key(image)) == 0) {
    siblings.erase({cls, name});
    return;
  }
  siblings[{cls, name}] = image_key(image);
  g_any_siblings.store(true, std::memory_order_relaxed);
}

void note_storage_defined(ObjectClass cls, GLenum target) {
  if (!g_any_siblings.load(std::memory_order_relaxed)) return;
  GLuint name = bound_object(cls, target);
  if (name == 0) return;
  EGLContext context = current_context();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_contexts[context].group->image_siblings.erase({cls, name});
}

glstate::SnapshotNames::Image image_of_object(EGLContext context, ObjectClass cls, GLuint name,
                                              uint32_t epoch) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto& siblings = g_contexts[context].group->image_siblings;
  auto it = siblings.find({cls, name});
  if (it == siblings.end()) return {};
  auto image = g_images.find(it->second);
  if (image == g_images.end()) return {};
  ImageEntry& entry = image->second;
  // The app's handles are the trace's.
  glstate::SnapshotNames::Image found{it->second, reinterpret_cast<uintptr_t>(entry.display),
                                      entry.written_epoch != epoch};
  entry.written_epoch = epoch;
  return found;
}

std::vector<UnwrittenImage> unwritten_images(EGLDisplay display, uint32_t epoch) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<UnwrittenImage> images;
  for (auto& [key, entry] : g_images) {
    if (key >= kOwnImageKeys || entry.display != display || entry.written_epoch == epoch) continue;
    // Made of its source object where that lives: once a snapshot wrote
    // the object's share group (a context no thread has current is written
    // when one makes it current).
    auto context = g_contexts.find(entry.context);
    bool from_source = false;
    if (context != g_contexts.end()) {
      const ShareGroup& group = *context->second.group;
      ObjectClass cls =
          entry.target == EGL_GL_RENDERBUFFER ? ObjectClass::kRenderbuffer : ObjectClass::kTexture;
      from_source = group.names[static_cast<size_t>(cls)].count(entry.object) != 0;
      if (from_source && group.snapshot_epoch != epoch) continue;  // later
    }
    entry.written_epoch = epoch;
    UnwrittenImage& image = images.emplace_back();
    image.image = reinterpret_cast<EGLImage>(static_cast<uintptr_t>(key));
    image.attribs = {EGL_IMAGE_PRESERVED, EGL_TRUE, EGL_NONE};
    if (!from_source) continue;
    image.context = entry.context;
    image.target = entry.target;
    image.buffer = reinterpret_cast<EGLClientBuffer>(static_cast<uintptr_t>(entry.object));
    image.attribs = entry.attribs;
  }
  return images;
}

void note_context_created(EGLContext context, EGLContext share) {
  if (context == EGL_NO_CONTEXT) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  ContextNames& c = g_contexts[context];
  c = ContextNames{};
  if (share != EGL_NO_CONTEXT) c.group = g_contexts[share].group;
}

void note_program_linked(GLuint program) {
  std::vector<glstate::LinkedShader> linked =
      glstate::read_linked_shaders(next_layer_functions(), program);
  EGLContext context = current_context();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_contexts[context].group->linked[program] = std::move(linked);
}

std::vector<glstate::LinkedShader> linked_shaders(EGLContext context, GLuint program) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto& linked = g_contexts[context].group->linked;
  auto it = linked.find(program);
  return it != linked.end() ? it->second : std::vector<glstate::LinkedShader>{};
}

void note_context_destroyed(EGLContext context) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_contexts.find(context);
  if (it == g_contexts.end()) return;
  // The group's last context: its copies go with it (a later group may be
  // allocated at the same address).
  glstate::CompressedShadows* shadows = g_shadows.load(std::memory_order_acquire);
  if (shadows != nullptr && it->second.group.use_count() == 1)
    shadows->forget_group(it->second.group.get());
  g_contexts.erase(it);
}

std::vector<glstate::SnapshotNames::Object> listed_objects(EGLContext context, ObjectClass cls) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<glstate::SnapshotNames::Object> list;
  for (const auto& [name, was_deleted] : names_of(context, cls))
    list.push_back({name, name, was_deleted});
  return list;
}

GroupClaim claim_share_group(EGLContext context, uint32_t epoch) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ShareGroup& group = *g_contexts[context].group;
  GroupClaim claim;
  if (group.snapshot_epoch != epoch) {
    group.snapshot_epoch = epoch;
    group.written = context;
    claim.shared = glstate::SharedObjects::kAll;
    auto live = [](const Names& names, std::set<GLuint>* out) {
      out->clear();
      for (const auto& [name, was_deleted] : names)
        if (!was_deleted) out->insert(name);
    };
    live(group.names[static_cast<size_t>(ObjectClass::kBuffer)], &group.written_buffers);
    live(group.names[static_cast<size_t>(ObjectClass::kTexture)], &group.written_textures);
  } else if (group.written != context) {
    claim.shared = glstate::SharedObjects::kContents;
    claim.share_with = group.written;
  }
  return claim;
}

std::vector<glstate::SnapshotNames::Object> written_objects(EGLContext context, ObjectClass cls) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ShareGroup& group = *g_contexts[context].group;
  const Names& listed = group.names[static_cast<size_t>(cls)];
  const std::set<GLuint>& written =
      cls == ObjectClass::kBuffer ? group.written_buffers : group.written_textures;
  std::vector<glstate::SnapshotNames::Object> list;
  for (GLuint name : written)
    if (auto it = listed.find(name); it != listed.end() && !it->second)
      list.push_back({name, name, false});
  return list;
}

}  // namespace gltrace::trace
