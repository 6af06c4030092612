// The one rule by which readers name a traced context's API (info, dump,
// view): OpenGL ES, or desktop OpenGL made through EGL
// (eglBindAPI(EGL_OPENGL_API)), by the Context record's client_type; in
// traces older than that field, by its GL_VERSION, which an ES context's
// starts with "OpenGL ES".
#pragma once

#include <string>

#include "format/records.h"

namespace gltrace::consumers {

struct ContextApi {
  bool desktop_gl = false;
  std::string name;     // "OpenGL ES", "OpenGL"
  std::string version;  // "3" (EGL_CONTEXT_CLIENT_VERSION); "4.5 compatibility", "4.6 core"
  std::string short_text() const { return (desktop_gl ? "GL " : "ES ") + version; }
};

ContextApi context_api(const format::Context& context);

}  // namespace gltrace::consumers
