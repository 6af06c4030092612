#include "consumers/context_api.h"

#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>

#include <cctype>
#include <string_view>

namespace gltrace::consumers {
namespace {

// "4.5" from "4.5 (Compatibility Profile) Mesa 22.3.6", with its profile
// (the context's GL_CONTEXT_PROFILE_MASK where recorded: 1 core, 2
// compatibility; else the version string's words).
std::string desktop_version(std::string_view gl_version, uint32_t profile_mask) {
  size_t end = 0;
  while (end < gl_version.size() &&
         (std::isdigit(static_cast<unsigned char>(gl_version[end])) != 0 || gl_version[end] == '.'))
    ++end;
  std::string version(gl_version.substr(0, end));
  if (version.empty()) version = "?";
  if ((profile_mask & 2) != 0 ||
      (profile_mask == 0 && gl_version.find("Compatibility Profile") != std::string_view::npos))
    version += " compatibility";
  else if ((profile_mask & 1) != 0 ||
           (profile_mask == 0 && gl_version.find("Core Profile") != std::string_view::npos))
    version += " core";
  return version;
}

}  // namespace

ContextApi context_api(const format::Context& context) {
  ContextApi api;
  api.desktop_gl = context.client_type != 0 ? context.client_type == EGL_OPENGL_API
                                            : !context.gl_version.empty() &&
                                                  !context.gl_version.starts_with("OpenGL ES");
  if (api.desktop_gl) {
    api.name = "OpenGL";
    api.version = desktop_version(context.gl_version, context.profile_mask);
  } else {
    api.name = "OpenGL ES";
    api.version = std::to_string(context.client_version);
  }
  return api;
}

}  // namespace gltrace::consumers
