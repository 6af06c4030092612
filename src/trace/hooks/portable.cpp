// --portable[=PROFILE] (GLTRACE_CAPTURE_PORTABLE): the app sees its driver
// through a profile of spec/portable_profiles.toml (gltrace/api/profiles.h),
// so what it records replays on other GPUs, as ANGLE's capture clamps what
// an app sees:
//  - GL_VERSION, GL_SHADING_LANGUAGE_VERSION, GL_MAJOR/MINOR_VERSION: at
//    most the profile's (a context of a lower version keeps its own);
//  - GL_EXTENSIONS (glGetString, glGetStringi, GL_NUM_EXTENSIONS): only the
//    profile's, of those the driver has;
//  - the profile's limits: a larger value of the driver's reported as the
//    profile's (an alignment: a smaller one raised), no binary formats;
//  - eglCreateContext of a GLES version above the profile's fails, as on a
//    driver of that version (apps then ask for a lower one).
// Each hook calls the driver itself and returns false, so the call is
// recorded with what the app was told. Without a profile each is one load.
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.h"
#include "common/pname_count.h"
#include "common/process.h"
#include "gltrace/api/profiles.h"
#include "gltrace/api/trace_decls.h"
#include "trace/next.h"

namespace gltrace::trace {

namespace {

const api::Profile* portable_profile() {
  static const api::Profile* const profile = []() -> const api::Profile* {
    const char* name = env_get("GLTRACE_CAPTURE_PORTABLE");
    if (name == nullptr || *name == '\0') return nullptr;
    const api::Profile* p = api::find_profile(name);
    if (p == nullptr) {
      std::string known;
      for (const api::Profile& k : api::kProfiles)
        known += std::string(known.empty() ? "" : ", ") + k.name;
      GLTRACE_LOG_WARN("GLTRACE_CAPTURE_PORTABLE: no profile '%s' (%s): the app sees its driver",
                       name, known.c_str());
    }
    return p;
  }();
  return profile;
}

int version_of(int major, int minor) { return major * 10 + minor; }

// "OpenGL ES M.m rest": M, m and where the rest starts; false for another form.
bool parse_es_version(std::string_view text, std::string_view prefix, int* major, int* minor,
                      size_t* rest) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  size_t at = prefix.size();
  if (at + 2 >= text.size() || text[at] < '0' || text[at] > '9' || text[at + 1] != '.')
    return false;
  *major = text[at] - '0';
  size_t digits = at + 2;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  // GLSL's minor has two digits (3.20): as a version, its first.
  *minor = text[at + 2] - '0';
  *rest = digits;
  return true;
}

bool profile_has(const api::Profile& p, std::string_view extension) {
  for (size_t i = 0; i < p.extension_count; ++i)
    if (extension == p.extensions[i]) return true;
  return false;
}

// Strings handed to the app live as long as the process (as the driver's).
std::mutex g_strings_mutex;
std::set<std::string>& kept_strings() {
  static auto* strings = new std::set<std::string>;  // never destroyed: apps may read them at exit
  return *strings;
}
const GLubyte* keep(std::string text) {
  std::lock_guard<std::mutex> lock(g_strings_mutex);
  return reinterpret_cast<const GLubyte*>(kept_strings().insert(std::move(text)).first->c_str());
}

// The driver's extensions (glGetStringi) the profile has, once: a driver
// lists the same ones for all its contexts of a version.
const std::vector<const GLubyte*>& profile_extensions_indexed(const api::Profile& p) {
  static std::vector<const GLubyte*>* listed = nullptr;
  std::lock_guard<std::mutex> lock(g_strings_mutex);
  if (listed != nullptr) return *listed;
  auto get_integer = NEXT(glGetIntegerv);
  auto get_stringi = NEXT(glGetStringi);
  if (get_integer == nullptr || get_stringi == nullptr) {
    static const std::vector<const GLubyte*> none;
    return none;
  }
  GLint count = 0;
  get_integer(GL_NUM_EXTENSIONS, &count);
  auto* out = new std::vector<const GLubyte*>;  // kept: see kept_strings()
  for (GLint i = 0; i < count; ++i) {
    const GLubyte* name = get_stringi(GL_EXTENSIONS, static_cast<GLuint>(i));
    if (name != nullptr && profile_has(p, reinterpret_cast<const char*>(name)))
      out->push_back(name);
  }
  if (count > 0) listed = out;  // a call without a context lists none: asked again
  return *out;
}

template <typename Integer>
void clamp_limits(const api::Profile& p, GLenum pname, Integer* data) {
  for (size_t i = 0; i < p.limit_count; ++i) {
    const api::ProfileLimit& limit = p.limits[i];
    if (limit.pname != pname) continue;
    int64_t n = pname_value_count(pname, [](uint32_t) { return int64_t{0}; });
    for (int64_t k = 0; k < n; ++k) {
      auto value = static_cast<int64_t>(data[k]);
      if (limit.at_least ? value < limit.value : value > limit.value)
        data[k] = static_cast<Integer>(limit.value);
    }
    return;
  }
}

template <typename Integer, typename Get>
bool portable_integers_of(GLenum pname, Integer* data, Get get) {
  const api::Profile* p = portable_profile();
  if (p == nullptr || data == nullptr || get == nullptr) return true;
  switch (pname) {
    case GL_PROGRAM_BINARY_FORMATS:
    case GL_SHADER_BINARY_FORMATS:
      return false;  // none: the app sized its list by the counts, 0
    case GL_NUM_EXTENSIONS:
      *data = static_cast<Integer>(profile_extensions_indexed(*p).size());
      return false;
    case GL_MAJOR_VERSION:
    case GL_MINOR_VERSION: {
      Integer major = 0, minor = 0;
      get(GL_MAJOR_VERSION, &major);
      get(GL_MINOR_VERSION, &minor);
      bool above = version_of(static_cast<int>(major), static_cast<int>(minor)) >
                   version_of(p->major, p->minor);
      if (pname == GL_MAJOR_VERSION)
        *data = above ? static_cast<Integer>(p->major) : major;
      else
        *data = above ? static_cast<Integer>(p->minor) : minor;
      return false;
    }
    default:
      get(pname, data);
      clamp_limits(*p, pname, data);
      return false;
  }
}

}  // namespace

bool portable_integers(GLenum& pname, GLint*& data) {
  return portable_integers_of(pname, data, NEXT(glGetIntegerv));
}

bool portable_integers(GLenum& pname, GLint64*& data) {
  return portable_integers_of(pname, data, NEXT(glGetInteger64v));
}

bool portable_string(GLenum& name, const GLubyte*& result) {
  const api::Profile* p = portable_profile();
  auto get = NEXT(glGetString);
  if (p == nullptr || get == nullptr) return true;
  result = get(name);
  if (result == nullptr) return false;
  std::string_view text(reinterpret_cast<const char*>(result));
  int major = 0, minor = 0;
  size_t rest = 0;
  switch (name) {
    case GL_VERSION:
      if (parse_es_version(text, "OpenGL ES ", &major, &minor, &rest) &&
          version_of(major, minor) > version_of(p->major, p->minor))
        result = keep("OpenGL ES " + std::to_string(p->major) + "." + std::to_string(p->minor) +
                      std::string(text.substr(rest)));
      break;
    case GL_SHADING_LANGUAGE_VERSION:
      if (parse_es_version(text, "OpenGL ES GLSL ES ", &major, &minor, &rest) &&
          version_of(major, minor) > version_of(p->major, p->minor))
        result = keep("OpenGL ES GLSL ES " + std::string(p->glsl) + std::string(text.substr(rest)));
      break;
    case GL_EXTENSIONS: {
      std::string kept;
      size_t at = 0;
      while (at < text.size()) {
        size_t end = text.find(' ', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view extension = text.substr(at, end - at);
        if (!extension.empty() && profile_has(*p, extension))
          kept += std::string(kept.empty() ? "" : " ") + std::string(extension);
        at = end + 1;
      }
      result = keep(std::move(kept));
      break;
    }
    default:
      break;
  }
  return false;
}

bool portable_string(GLenum& name, GLuint& index, const GLubyte*& result) {
  const api::Profile* p = portable_profile();
  if (p == nullptr || name != GL_EXTENSIONS) return true;
  const std::vector<const GLubyte*>& listed = profile_extensions_indexed(*p);
  result = index < listed.size() ? listed[index] : nullptr;
  return false;
}

bool portable_context_version(EGLDisplay& /*dpy*/, EGLConfig& /*config*/,
                              EGLContext& /*share_context*/, const EGLint*& attrib_list,
                              EGLContext& result) {
  const api::Profile* p = portable_profile();
  if (p == nullptr) return true;
  auto query_api = NEXT(eglQueryAPI);
  if (query_api != nullptr && query_api() != EGL_OPENGL_ES_API) return true;
  int major = 1, minor = 0;
  for (const EGLint* a = attrib_list; a != nullptr && *a != EGL_NONE; a += 2) {
    if (a[0] == EGL_CONTEXT_MAJOR_VERSION) major = a[1];  // EGL_CONTEXT_CLIENT_VERSION
    if (a[0] == EGL_CONTEXT_MINOR_VERSION) minor = a[1];
  }
  if (version_of(major, minor) <= version_of(p->major, p->minor)) return true;
  GLTRACE_LOG_INFO("--portable=%s: the app's context of OpenGL ES %d.%d is refused", p->name, major,
                   minor);
  result = EGL_NO_CONTEXT;
  return false;
}

}  // namespace gltrace::trace
