// What the trace hooks read of an eglCreateImage* call's arguments
// (egl_images.cpp records its pixels, object_names.cpp its siblings).
#pragma once

#include <EGL/egl.h>

#include <cstdint>

namespace gltrace::trace {

// Targets whose client buffer is a GL object name: a replay recreates the
// image from its own copy of that object. (The KHR names have the same values.)
inline bool is_gl_image_target(EGLenum target) {
  return target >= EGL_GL_TEXTURE_2D && target <= EGL_GL_RENDERBUFFER;
}

// An attribute's value in an EGL attribute list (EGLint or EGLAttrib), or -1.
template <typename T>
int64_t attrib_value(const T* list, EGLint name) {
  for (const T* p = list; p != nullptr && p[0] != EGL_NONE; p += 2)
    if (p[0] == name) return static_cast<int64_t>(p[1]);
  return -1;
}

}  // namespace gltrace::trace
