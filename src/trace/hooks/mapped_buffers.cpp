// Mapped-buffer hooks: a mapping is remembered, and what the app wrote to
// it is recorded at glFlushMappedBufferRange or glUnmapBuffer (read while
// still mapped), as the Call's buffer_writes.
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

void remember(ThreadState* thread, GLenum target, void* pointer, int64_t offset, int64_t length,
              GLbitfield access) {
  if (pointer == nullptr) return;
  auto& mappings = context_state(thread)->mappings;
  std::erase_if(mappings, [&](const Mapping& m) { return m.target == target; });
  mappings.push_back({target, static_cast<uint8_t*>(pointer), offset, length, access});
}

Mapping* find_mapping(ThreadState* thread, GLenum target) {
  for (auto& m : context_state(thread)->mappings)
    if (m.target == target) return &m;
  return nullptr;
}

void write_buffer_write(wire::Encoder& call, uint32_t target, int64_t offset, uint64_t blob) {
  size_t m = schema::call::begin_buffer_writes(call);
  schema::buffer_write::set_target(call, target);
  schema::buffer_write::set_offset(call, static_cast<uint64_t>(offset));
  schema::buffer_write::set_blob(call, blob);
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

}  // namespace

void remember_mapping(CallRecorder& rec, GLenum target, GLintptr offset, GLsizeiptr length,
                      GLbitfield access, void* result) {
  remember(rec.thread(), target, result, offset, length, access);
}

void remember_mapping(CallRecorder& rec, GLenum target, GLenum access, void* result) {
  GLint size = 0;
  NEXT(glGetBufferParameteriv)(target, GL_BUFFER_SIZE, &size);
  remember(rec.thread(), target, result, 0, size,
           access == GL_WRITE_ONLY_OES ? GL_MAP_WRITE_BIT : 0);
}

void record_flushed_write(CallRecorder& rec, GLenum target, GLintptr offset, GLsizeiptr length) {
  Mapping* mapping = find_mapping(rec.thread(), target);
  uint64_t blob = capture_mapped(rec.thread(), mapping, offset, length);
  if (blob != 0) write_buffer_write(rec.call_encoder(), target, mapping->offset + offset, blob);
}

// The data must be read while it is still mapped.
bool capture_before_unmap(UnmapWrite& state, GLenum& target, GLboolean& /*result*/) {
  state.thread = recording() ? thread_state() : nullptr;
  Mapping* mapping = state.thread != nullptr ? find_mapping(state.thread, target) : nullptr;
  if (mapping != nullptr && (mapping->access & GL_MAP_FLUSH_EXPLICIT_BIT) == 0) {
    state.blob = capture_mapped(state.thread, mapping, 0, mapping->length);
    state.offset = mapping->offset;
  }
  return true;
}

void record_unmapped_write(CallRecorder& rec, UnmapWrite& state, GLenum target,
                           GLboolean /*result*/) {
  if (state.blob != 0) write_buffer_write(rec.call_encoder(), target, state.offset, state.blob);
}

void forget_mapping(CallRecorder* /*recorded*/, UnmapWrite& state, GLenum target,
                    GLboolean /*result*/) {
  if (state.thread != nullptr)
    std::erase_if(context_state(state.thread)->mappings,
                  [&](const Mapping& m) { return m.target == target; });
}

}  // namespace gltrace::trace
