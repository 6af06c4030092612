// Client-array hooks: a vertex attribute pointing into client memory is
// remembered (VAO 0 only), and a draw records the client memory its
// vertices read, as the Call's client_arrays.
#define GL_GLES_PROTOTYPES 0
#include <algorithm>

#include "format/schema.h"
#include "gltrace/api/trace_decls.h"
#include "trace/compsize.h"
#include "trace/hooks/context_state.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

int64_t type_size(GLenum type) {
  switch (type) {
    case GL_BYTE:
    case GL_UNSIGNED_BYTE:
      return 1;
    case GL_SHORT:
    case GL_UNSIGNED_SHORT:
    case GL_HALF_FLOAT:
    case GL_HALF_FLOAT_OES:
      return 2;
    default:  // 32-bit types, and the packed 2_10_10_10 ones (a whole vertex)
      return 4;
  }
}

int64_t attrib_bytes(const ClientAttrib& a) {
  if (a.type == GL_INT_2_10_10_10_REV || a.type == GL_UNSIGNED_INT_2_10_10_10_REV) return 4;
  return a.size * type_size(a.type);
}

// Writes the client-side vertex arrays that vertices [first, first+count)
// and `instances` instances read.
void write_client_arrays(CallRecorder& rec, int64_t first, int64_t count, int64_t instances) {
  ContextState* state = context_state(rec.thread());
  if (state->client_mask == 0 || count <= 0 || driver_integer(GL_VERTEX_ARRAY_BINDING) != 0) return;
  wire::Encoder& call = rec.call_encoder();
  for (int i = 0; i < kMaxAttribs; ++i) {
    if ((state->client_mask & (1u << i)) == 0) continue;
    GLint enabled = 0, divisor = 0;
    NEXT(glGetVertexAttribiv)(static_cast<GLuint>(i), GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
    if (!enabled) continue;
    NEXT(glGetVertexAttribiv)(static_cast<GLuint>(i), GL_VERTEX_ATTRIB_ARRAY_DIVISOR, &divisor);
    const ClientAttrib& a = state->attribs[i];
    int64_t element = attrib_bytes(a);
    int64_t stride = a.stride != 0 ? a.stride : element;
    int64_t start = divisor != 0 ? 0 : first;
    int64_t vertices =
        divisor != 0 ? (std::max<int64_t>(instances, 1) + divisor - 1) / divisor : count;
    int64_t bytes = (vertices - 1) * stride + element;
    const auto* data = static_cast<const uint8_t*>(a.pointer) + start * stride;
    size_t m = call.begin_nested(schema::call::kClientArrays);
    call.uint_field(schema::client_array::kIndex, static_cast<uint64_t>(i));
    call.uint_field(schema::client_array::kFirst, static_cast<uint64_t>(start));
    call.uint_field(schema::client_array::kStride, static_cast<uint64_t>(stride));
    call.uint_field(schema::client_array::kPointer, handle_bits(a.pointer));
    call.fixed64_field(schema::client_array::kBlob,
                       store_blob(rec.thread(), data, static_cast<size_t>(bytes)));
    call.end_nested(m);
  }
}

// The range of vertices that `count` indices of `type` reference.
bool index_range(const void* indices, GLsizei count, GLenum type, int64_t* lo, int64_t* hi) {
  const void* data = indices;
  void* mapped = nullptr;
  int64_t bytes = int64_t{count} * type_size(type);
  if (driver_integer(GL_ELEMENT_ARRAY_BUFFER_BINDING) != 0) {
    mapped = NEXT(glMapBufferRange)(GL_ELEMENT_ARRAY_BUFFER, reinterpret_cast<GLintptr>(indices),
                                    bytes, GL_MAP_READ_BIT);
    if (mapped == nullptr) return false;
    data = mapped;
  }
  *lo = INT64_MAX;
  *hi = -1;
  for (GLsizei i = 0; i < count; ++i) {
    int64_t v = type == GL_UNSIGNED_BYTE    ? static_cast<const uint8_t*>(data)[i]
                : type == GL_UNSIGNED_SHORT ? static_cast<const uint16_t*>(data)[i]
                                            : static_cast<const uint32_t*>(data)[i];
    *lo = std::min(*lo, v);
    *hi = std::max(*hi, v);
  }
  if (mapped != nullptr) NEXT(glUnmapBuffer)(GL_ELEMENT_ARRAY_BUFFER);
  return *hi >= *lo;
}

void write_element_client_arrays(CallRecorder& rec, const void* indices, GLsizei count, GLenum type,
                                 GLint base_vertex, int64_t instances) {
  if (context_state(rec.thread())->client_mask == 0) return;
  int64_t lo, hi;
  if (index_range(indices, count, type, &lo, &hi))
    write_client_arrays(rec, lo + base_vertex, hi - lo + 1, instances);
}

// The pointer of an attribute array: client memory is remembered for the
// draws (on VAO 0, with no array buffer bound).
void remember_pointer(GLuint index, GLint size, GLenum type, GLsizei stride, const void* pointer) {
  ThreadState* thread = recording() ? thread_state() : nullptr;
  if (thread == nullptr || index >= kMaxAttribs || driver_integer(GL_VERTEX_ARRAY_BINDING) != 0)
    return;
  ContextState* state = context_state(thread);
  bool client = pointer != nullptr && driver_integer(GL_ARRAY_BUFFER_BINDING) == 0;
  if (client) {
    state->attribs[index] = {pointer, size, type, stride};
    state->client_mask |= 1u << index;
  } else {
    state->client_mask &= ~(1u << index);
  }
}

}  // namespace

int64_t index_bytes(int32_t count, uint32_t type) {
  if (driver_integer(GL_ELEMENT_ARRAY_BUFFER_BINDING) != 0) return -1;
  return int64_t{count} * type_size(type);
}

// --- vertex attribute pointers ---------------------------------------------------------

void remember_attrib_pointer(CallRecorder* /*recorded*/, GLuint index, GLint size, GLenum type,
                             GLboolean /*normalized*/, GLsizei stride, const void* pointer) {
  remember_pointer(index, size, type, stride, pointer);
}
void remember_attrib_pointer(CallRecorder* /*recorded*/, GLuint index, GLint size, GLenum type,
                             GLsizei stride, const void* pointer) {
  remember_pointer(index, size, type, stride, pointer);
}

// --- draws -------------------------------------------------------------------------------

void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLint first, GLsizei count) {
  write_client_arrays(rec, first, count, 1);
}
void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLint first, GLsizei count,
                          GLsizei instancecount) {
  write_client_arrays(rec, first, count, instancecount);
}
void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLsizei count, GLenum type,
                          const void* indices) {
  write_element_client_arrays(rec, indices, count, type, 0, 1);
}
void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLsizei count, GLenum type,
                          const void* indices, GLsizei instancecount) {
  write_element_client_arrays(rec, indices, count, type, 0, instancecount);
}
void record_base_vertex_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLsizei count,
                                      GLenum type, const void* indices, GLint basevertex) {
  write_element_client_arrays(rec, indices, count, type, basevertex, 1);
}
void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLsizei count, GLenum type,
                          const void* indices, GLsizei instancecount, GLint basevertex) {
  write_element_client_arrays(rec, indices, count, type, basevertex, instancecount);
}
void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLuint /*start*/, GLuint /*end*/,
                          GLsizei count, GLenum type, const void* indices) {
  write_element_client_arrays(rec, indices, count, type, 0, 1);
}
void record_client_arrays(CallRecorder& rec, GLenum /*mode*/, GLuint /*start*/, GLuint /*end*/,
                          GLsizei count, GLenum type, const void* indices, GLint basevertex) {
  write_element_client_arrays(rec, indices, count, type, basevertex, 1);
}

}  // namespace gltrace::trace
