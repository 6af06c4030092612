// Mapped-buffer hooks: a mapping is remembered, and what the app wrote to
// it is recorded at glFlushMappedBufferRange or glUnmapBuffer (read while
// still mapped), as the Call's buffer_writes. A buffer is mapped through its
// binding to a target, or by name (glMapNamedBuffer*: target 0).
#define GL_GLES_PROTOTYPES 0
#include <algorithm>

#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/trace_decls.h"
#include "trace/hooks/context_state.h"
#include "trace/hooks/hook_state.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

// glMapBuffer's access: desktop GL's GL_READ_ONLY maps for reading only
// (GL_WRITE_ONLY and GL_READ_WRITE write).
constexpr GLenum kReadOnly = 0x88B8;

bool same(const Mapping& m, GLenum target, GLuint buffer) {
  return m.target == target && m.buffer == buffer;
}

void remember(ThreadState* thread, GLenum target, GLuint buffer, void* pointer, int64_t offset,
              int64_t length, GLbitfield access) {
  if (pointer == nullptr) return;
  auto& mappings = context_state(thread)->mappings;
  std::erase_if(mappings, [&](const Mapping& m) { return same(m, target, buffer); });
  mappings.push_back({target, buffer, static_cast<uint8_t*>(pointer), offset, length, access});
}

Mapping* find_mapping(ThreadState* thread, GLenum target, GLuint buffer) {
  for (auto& m : context_state(thread)->mappings)
    if (same(m, target, buffer)) return &m;
  return nullptr;
}

void write_buffer_write(wire::Encoder& call, uint32_t target, GLuint buffer, int64_t offset,
                        uint64_t blob) {
  size_t m = schema::call::begin_buffer_writes(call);
  schema::buffer_write::set_target(call, target);
  schema::buffer_write::set_offset(call, static_cast<uint64_t>(offset));
  schema::buffer_write::set_blob(call, blob);
  if (buffer != 0) schema::buffer_write::set_buffer(call, buffer);
  call.end_nested(m);
}

// What the app wrote into [offset, offset+length) of the mapping, as a blob,
// captured before the driver may unmap it. 0 when there is nothing to record.
uint64_t capture_mapped(ThreadState* thread, Mapping* mapping, int64_t offset, int64_t length) {
  if (mapping == nullptr || (mapping->access & GL_MAP_WRITE_BIT) == 0 || length <= 0 ||
      offset < 0 || offset + length > mapping->length)
    return 0;
  return store_blob(thread, mapping->pointer + offset, static_cast<size_t>(length));
}

GLbitfield whole_buffer_access(GLenum access) { return access != kReadOnly ? GL_MAP_WRITE_BIT : 0; }

void record_flushed(CallRecorder& rec, GLenum target, GLuint buffer, GLintptr offset,
                    GLsizeiptr length) {
  Mapping* mapping = find_mapping(rec.thread(), target, buffer);
  uint64_t blob = capture_mapped(rec.thread(), mapping, offset, length);
  if (blob != 0)
    write_buffer_write(rec.call_encoder(), target, buffer, mapping->offset + offset, blob);
}

// The data must be read while it is still mapped: before the call's
// recording window, so the blob goes to the payload under a guard of its
// own (unguarded, the sweeper could hand the payload to the writer while
// the blob was being written to it: records lost, or the heap corrupted).
void capture_before(UnmapWrite& state, GLenum target, GLuint buffer) {
  state.thread = recording() ? thread_state() : nullptr;
  Mapping* mapping = state.thread != nullptr ? find_mapping(state.thread, target, buffer) : nullptr;
  if (mapping == nullptr || (mapping->access & GL_MAP_FLUSH_EXPLICIT_BIT) != 0) return;
  AppendGuard guard(state.thread);
  if (guard.ok()) {
    state.blob = capture_mapped(state.thread, mapping, 0, mapping->length);
    state.offset = mapping->offset;
  }
}

void forget(UnmapWrite& state, GLenum target, GLuint buffer) {
  if (state.thread != nullptr)
    std::erase_if(context_state(state.thread)->mappings,
                  [&](const Mapping& m) { return same(m, target, buffer); });
}

}  // namespace

// --- through a target's binding ------------------------------------------------------

void remember_mapping(CallRecorder& rec, GLenum target, GLintptr offset, GLsizeiptr length,
                      GLbitfield access, void* result) {
  remember(rec.thread(), target, 0, result, offset, length, access);
}

void remember_mapping(CallRecorder& rec, GLenum target, GLenum access, void* result) {
  GLint size = 0;
  NEXT(glGetBufferParameteriv)(target, GL_BUFFER_SIZE, &size);
  remember(rec.thread(), target, 0, result, 0, size, whole_buffer_access(access));
}

void record_flushed_write(CallRecorder& rec, GLenum target, GLintptr offset, GLsizeiptr length) {
  record_flushed(rec, target, 0, offset, length);
}

bool capture_before_unmap(UnmapWrite& state, GLenum& target, GLboolean& /*result*/) {
  capture_before(state, target, 0);
  return true;
}

void record_unmapped_write(CallRecorder& rec, UnmapWrite& state, GLenum target,
                           GLboolean /*result*/) {
  if (state.blob != 0) write_buffer_write(rec.call_encoder(), target, 0, state.offset, state.blob);
}

void forget_mapping(CallRecorder* /*recorded*/, UnmapWrite& state, GLenum target,
                    GLboolean /*result*/) {
  forget(state, target, 0);
}

// --- by name (glMapNamedBuffer*) -------------------------------------------------------

void remember_named_mapping(CallRecorder& rec, GLuint buffer, GLintptr offset, GLsizeiptr length,
                            GLbitfield access, void* result) {
  remember(rec.thread(), 0, buffer, result, offset, length, access);
}

void remember_named_mapping(CallRecorder& rec, GLuint buffer, GLenum access, void* result) {
  GLint size = 0;
  auto query = NEXT(glGetNamedBufferParameteriv);
  if (query == nullptr) query = NEXT(glGetNamedBufferParameterivEXT);
  if (query != nullptr) query(buffer, GL_BUFFER_SIZE, &size);
  remember(rec.thread(), 0, buffer, result, 0, size, whole_buffer_access(access));
}

void record_named_flushed_write(CallRecorder& rec, GLuint buffer, GLintptr offset,
                                GLsizeiptr length) {
  record_flushed(rec, 0, buffer, offset, length);
}

bool capture_before_named_unmap(UnmapWrite& state, GLuint& buffer, GLboolean& /*result*/) {
  capture_before(state, 0, buffer);
  return true;
}

void record_named_unmapped_write(CallRecorder& rec, UnmapWrite& state, GLuint buffer,
                                 GLboolean /*result*/) {
  if (state.blob != 0) write_buffer_write(rec.call_encoder(), 0, buffer, state.offset, state.blob);
}

void forget_named_mapping(CallRecorder* /*recorded*/, UnmapWrite& state, GLuint buffer,
                          GLboolean /*result*/) {
  forget(state, 0, buffer);
}

}  // namespace gltrace::trace
