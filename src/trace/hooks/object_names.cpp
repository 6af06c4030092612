#include "trace/hooks/object_names.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

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

// The names `cls` has in `context` (made on first use: a context the layer
// did not see made has a group of its own).
Names& names_of(EGLContext context, ObjectClass cls) {
  ContextNames& c = g_contexts[context];
  return glstate::is_container(cls) ? c.containers[static_cast<size_t>(cls)]
                                    : c.group->names[static_cast<size_t>(cls)];
}

EGLContext current_context() { return NEXT(eglGetCurrentContext)(); }

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
    if (cls == ObjectClass::kTexture && shadows != nullptr)
      shadows->forget(g_contexts[context].group.get(), names[i]);
  }
}

void note_deleted(ObjectClass cls, GLuint name) { note_deleted(cls, 1, &name); }

void keep_compressed_copies(size_t limit_bytes) {
  if (limit_bytes == 0 || g_shadows.load() != nullptr) return;
  g_shadows.store(new glstate::CompressedShadows(limit_bytes), std::memory_order_release);
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
