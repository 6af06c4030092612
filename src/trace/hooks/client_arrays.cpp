// Client-array hooks: a vertex attribute pointing into client memory is
// remembered (VAO 0 only), as is a GLES 1 array (glVertexPointer...), and a
// draw records the client memory its vertices read, as the Call's
// client_arrays.
#define GL_GLES_PROTOTYPES 0
#include <algorithm>

#include "common/fixed_arrays.h"
#include "common/vertex_format.h"
#include "format/encoders.h"
#include "format/schema.h"
#include "gltrace/api/trace_decls.h"
#include "trace/compsize.h"
#include "trace/hooks/context_state.h"
#include "trace/next.h"
#include "trace/recorder.h"

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

int64_t attrib_bytes(const ClientAttrib& a) { return vertex_format::element_bytes(a.size, a.type); }

// Writes one ClientArray: vertices [start, start+vertices) of `a`. A GLES 1
// array (`array` not 0) gives its texture unit as the index.
void write_client_array(CallRecorder& rec, const ClientAttrib& a, uint32_t array, uint32_t index,
                        int64_t start, int64_t vertices) {
  wire::Encoder& call = rec.call_encoder();
  int64_t element = attrib_bytes(a);
  int64_t stride = a.stride != 0 ? a.stride : element;
  int64_t bytes = (vertices - 1) * stride + element;
  const auto* data = static_cast<const uint8_t*>(a.pointer) + start * stride;
  size_t m = schema::call::begin_client_arrays(call);
  schema::client_array::set_index(call, index);
  schema::client_array::set_first(call, static_cast<uint64_t>(start));
  schema::client_array::set_stride(call, static_cast<uint64_t>(stride));
  schema::client_array::set_pointer(call, handle_bits(a.pointer));
  schema::client_array::set_blob(call, store_blob(rec.thread(), data, static_cast<size_t>(bytes)));
  if (array != 0) schema::client_array::set_array(call, array);
  call.end_nested(m);
}

// A GLES 1 or desktop GL context's fixed-function client arrays (their
// slots, fixed_arrays.h) that are enabled. They have no instancing.
void write_fixed_arrays(CallRecorder& rec, const TracedContext& state, int64_t first,
                        int64_t count) {
  GLint active = -1;  // the app's client-active texture unit, once asked
  GLenum switched = 0;
  for (int i = 0; i < fixed_arrays::kSlots; ++i) {
    if ((state.fixed_mask & (1u << i)) == 0) continue;
    fixed_arrays::Array a = fixed_arrays::array_of(i);
    if (a.array == fixed_arrays::kTexCoord) {
      // Enabled per client-active unit: ask in the array's own.
      if (active < 0) active = driver_integer(fixed_arrays::kClientActiveTexture);
      GLenum unit = fixed_arrays::kTexture0 + a.unit;
      if (unit != (switched != 0 ? switched : static_cast<GLenum>(active))) {
        NEXT(glClientActiveTexture)(unit);
        switched = unit;
      }
    }
    if (!NEXT(glIsEnabled)(a.array)) continue;
    write_client_array(rec, state.fixed[i], a.array, a.unit, first, count);
  }
  if (switched != 0) NEXT(glClientActiveTexture)(static_cast<GLenum>(active));
}

// Writes the client-side vertex arrays that vertices [first, first+count)
// and `instances` instances read.
void write_client_arrays(CallRecorder& rec, int64_t first, int64_t count, int64_t instances) {
  TracedContext* state = context_state(rec.thread());
  if ((state->client_mask | state->fixed_mask) == 0 || count <= 0) return;
  // Client arrays are vertex array object 0's (GLES 1 has no others).
  bool vao_bound = state->client_version != 1 && driver_integer(GL_VERTEX_ARRAY_BINDING) != 0;
  if (vao_bound) return;
  if (state->fixed_mask != 0) write_fixed_arrays(rec, *state, first, count);
  if (state->client_mask == 0) return;
  for (int i = 0; i < kMaxAttribs; ++i) {
    if ((state->client_mask & (1u << i)) == 0) continue;
    GLint enabled = 0, divisor = 0;
    NEXT(glGetVertexAttribiv)(static_cast<GLuint>(i), GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
    if (!enabled) continue;
    NEXT(glGetVertexAttribiv)(static_cast<GLuint>(i), GL_VERTEX_ATTRIB_ARRAY_DIVISOR, &divisor);
    int64_t start = divisor != 0 ? 0 : first;
    int64_t vertices =
        divisor != 0 ? (std::max<int64_t>(instances, 1) + divisor - 1) / divisor : count;
    write_client_array(rec, state->attribs[i], 0, static_cast<uint32_t>(i), start, vertices);
  }
}

// The range of vertices that `count` indices of `type` reference.
// GLES 1 cannot read a buffer back: with indices in one, its client arrays
// go unrecorded (and the replay refuses the draw).
bool index_range(const TracedContext& state, const void* indices, GLsizei count, GLenum type,
                 int64_t* lo, int64_t* hi) {
  const void* data = indices;
  void* mapped = nullptr;
  int64_t bytes = int64_t{count} * vertex_format::unit_bytes(type);
  if (driver_integer(GL_ELEMENT_ARRAY_BUFFER_BINDING) != 0) {
    if (state.client_version == 1) return false;
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
  const TracedContext& state = *context_state(rec.thread());
  if ((state.client_mask | state.fixed_mask) == 0) return;
  int64_t lo, hi;
  if (index_range(state, indices, count, type, &lo, &hi))
    write_client_arrays(rec, lo + base_vertex, hi - lo + 1, instances);
}

// The pointer of an attribute array: client memory is remembered for the
// draws (on VAO 0, with no array buffer bound).
void remember_pointer(GLuint index, GLint size, GLenum type, GLsizei stride, const void* pointer) {
  ThreadState* thread = recording() ? thread_state() : nullptr;
  if (thread == nullptr || index >= kMaxAttribs || driver_integer(GL_VERTEX_ARRAY_BINDING) != 0)
    return;
  TracedContext* state = context_state(thread);
  bool client = pointer != nullptr && driver_integer(GL_ARRAY_BUFFER_BINDING) == 0;
  if (client) {
    state->attribs[index] = {pointer, size, type, stride};
    state->client_mask |= 1u << index;
  } else {
    state->client_mask &= ~(1u << index);
  }
}

// A GLES 1 or desktop GL array's pointer (of the client-active texture unit
// for texture coordinates), remembered as remember_pointer does, in the
// fixed-function slots (fixed_arrays.h).
void remember_fixed_pointer(uint32_t array, GLint size, GLenum type, GLsizei stride,
                            const void* pointer) {
  ThreadState* thread = recording() ? thread_state() : nullptr;
  if (thread == nullptr) return;
  TracedContext* state = context_state(thread);
  if (state->client_version != 1 &&
      (!state->desktop_gl || driver_integer(GL_VERTEX_ARRAY_BINDING) != 0))
    return;
  uint32_t unit = 0;
  if (array == fixed_arrays::kTexCoord)
    unit = static_cast<uint32_t>(driver_integer(fixed_arrays::kClientActiveTexture)) -
           fixed_arrays::kTexture0;
  int slot = fixed_arrays::slot(array, unit);
  if (slot < 0) return;
  bool client = pointer != nullptr && driver_integer(GL_ARRAY_BUFFER_BINDING) == 0;
  if (client) {
    state->fixed[slot] = {pointer, size, type, stride};
    state->fixed_mask |= 1u << slot;
  } else {
    state->fixed_mask &= ~(1u << slot);
  }
}

}  // namespace

int64_t index_bytes(int32_t count, uint32_t type) {
  if (driver_integer(GL_ELEMENT_ARRAY_BUFFER_BINDING) != 0) return -1;
  return int64_t{count} * vertex_format::unit_bytes(type);
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

// --- GLES 1 array pointers --------------------------------------------------------------

void remember_vertex_pointer(CallRecorder* /*recorded*/, GLint size, GLenum type, GLsizei stride,
                             const void* pointer) {
  remember_fixed_pointer(fixed_arrays::kVertex, size, type, stride, pointer);
}
void remember_color_pointer(CallRecorder* /*recorded*/, GLint size, GLenum type, GLsizei stride,
                            const void* pointer) {
  remember_fixed_pointer(fixed_arrays::kColor, size, type, stride, pointer);
}
void remember_normal_pointer(CallRecorder* /*recorded*/, GLenum type, GLsizei stride,
                             const void* pointer) {
  remember_fixed_pointer(fixed_arrays::kNormal, 3, type, stride, pointer);
}
void remember_tex_coord_pointer(CallRecorder* /*recorded*/, GLint size, GLenum type, GLsizei stride,
                                const void* pointer) {
  remember_fixed_pointer(fixed_arrays::kTexCoord, size, type, stride, pointer);
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
