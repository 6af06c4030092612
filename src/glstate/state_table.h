// The state the viewer's state worker reports and a snapshot writes, as
// data: spec/gles_state.json, turned into kStateTable by codegen
// (gltrace/api/state_table.inc). Each entry says
// how one item is queried and how its value reads; the worker's loops over
// texture units, attributes and attachments run the entries of their group.
// The same table says how a snapshot (issue 25) writes the pipeline group
// back: each entry's StateSet, and the setters, so no second list of state
// exists; codegen fails the build when a pipeline entry lacks its setter.
#pragma once

#include <cstdint>
#include <span>

#include "glstate/object_class.h"

namespace gltrace::glstate {

enum class StateGroup : uint8_t {
  kEgl,
  kBindings,
  kPipeline,
  kTextureUnit,    // per texture unit
  kTexture,        // per bound texture
  kVertexAttrib,   // per attribute of the bound VAO
  kAttachment,     // per framebuffer attachment point
  kIndexedBuffer,  // per index of an indexed buffer target
  kProgram,        // the current program
  kShader,         // a shader
};

// The function that reads an entry.
enum class StateQuery : uint8_t {
  kInteger,              // glGetIntegerv
  kFloat,                // glGetFloatv
  kBoolean,              // glGetBooleanv
  kEnabled,              // glIsEnabled
  kIntegerIndexed,       // glGetIntegeri_v(pname, the loop's index)
  kEglContext,           // eglQueryContext of the current context
  kEglDraw,              // eglQuerySurface of the draw surface
  kEglRead,              // eglQuerySurface of the read surface
  kEglConfig,            // eglGetConfigAttrib of the current context's config
  kTexParameter,         // glGetTexParameteriv(target, pname)
  kTexLevelParameter,    // glGetTexLevelParameteriv(target, 0, pname)
  kVertexAttrib,         // glGetVertexAttribiv(index, pname)
  kVertexAttribPointer,  // glGetVertexAttribPointerv(index, pname): an offset
  kAttachment,           // glGetFramebufferAttachmentParameteriv(target, attachment, pname)
  kProgram,              // glGetProgramiv
  kShader,               // glGetShaderiv
};

// How its value reads.
enum class StateKind : uint8_t {
  kInt,
  kFloat,
  kBool,
  kEnum,              // a GL enum, by name (the entry's registry group first)
  kEglEnum,           // an EGL enum, by name
  kObject,            // a GL name of `cls`, as the trace named it
  kAttachmentObject,  // a texture or renderbuffer, by the attachment's type
};

// How the snapshot's context pass writes an entry back.
enum class StateSet : uint8_t {
  // Not by that pass: an entry of another group (its object's or its loop's
  // pass restores it), or a pipeline entry the spec marks `set` elsewhere
  // (read_buffer is the read framebuffer's, restored with it).
  kNotByContext,
  kEnable,  // glEnable / glDisable of pname
  kSetter,  // by exactly one of state_setters()
};

struct StateEntry {
  StateGroup group;
  const char* key;
  uint32_t pname;
  StateQuery query;
  uint8_t count;
  StateKind kind;
  const char* enum_group;  // "" for none
  ObjectClass cls;         // kObject only (else kCount)
  // kTextureUnit: the target a binding binds (0: none); kIndexedBuffer:
  // the indexed target.
  uint32_t target;
  uint32_t limit;        // kIndexedBuffer: the enum that says how many indices there are
  uint8_t major, minor;  // the lowest GLES version that has it
  StateSet set_by;       // how a snapshot's context pass writes it back
};

// Every entry, in the table's order.
std::span<const StateEntry> state_table();

// One argument of a setter: a component of an entry's value (an entry of
// count N fills N consecutive arguments), or a constant (an enum such as
// GL_FRONT, or a number such as glSampleMaski's mask index).
struct SetterArg {
  enum Kind : uint8_t { kEntry, kConstant } kind;
  uint16_t entry;     // kEntry: the index in state_table()
  uint8_t component;  // kEntry: which of its values
  uint32_t constant;  // kConstant
};

// A call that writes pipeline entries back, e.g.
// glStencilFuncSeparate(GL_FRONT, stencil_func, stencil_ref, stencil_value_mask):
// `function` an api::FunctionId, one argument per parameter. Its entries
// share their since: skip it when the context lacks them.
struct StateSetter {
  uint32_t function;
  std::span<const SetterArg> args;
};

// Every setter, in the spec's order.
std::span<const StateSetter> state_setters();

// How a uniform of a type reads: glGetUniformfv, iv (bool: iv, as bools)
// or uiv, and how many components an element has.
enum class UniformRead : uint8_t { kFloat, kInt, kUint, kBool };
struct UniformType {
  uint32_t type;
  uint8_t components;
  UniformRead read;
};
// The table's uniform types; a type not there (samplers, images) is one int.
UniformType uniform_type(uint32_t type);

}  // namespace gltrace::glstate
