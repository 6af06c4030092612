// The GL object namespaces, from the registry's class= (programs and
// shaders share one): what the replay remaps names through and what a
// snapshot lists.
#pragma once

#include <cstdint>

namespace gltrace::glstate {

enum class ObjectClass : uint8_t {
  kBuffer,
  kTexture,
  kProgram,
  kRenderbuffer,
  kSampler,
  kSync,         // GLsync: pointers, shared like the others
  kDisplayList,  // desktop GL's (glGenLists makes a range)
  // Container objects: per context, not shared.
  kFramebuffer,
  kVertexArray,
  kTransformFeedback,
  kQuery,
  kProgramPipeline,
  kCount,
};

constexpr bool is_container(ObjectClass cls) { return cls >= ObjectClass::kFramebuffer; }

}  // namespace gltrace::glstate
