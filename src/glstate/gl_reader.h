// Reading a GL context's state through whatever calls the driver: the
// replay's (gl_loader::Driver) or, inside an app, the layer below the trace
// layer (trace::next_layer). What the viewer's state worker and the snapshot
// writer share: the current context's version, integers, a texture's target
// and level sizes, a program's active variables, a shader's source.
#pragma once

#include <GLES3/gl32.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gl_loader/call.h"
#include "glstate/state_table.h"

namespace gltrace::glstate {

// A source of GL_CALL (gl_loader/call.h) that is one type for every caller:
// `proc` finds a function by its id in `source`.
struct GlFunctions {
  const void* source = nullptr;
  void* (*proc)(const void* source, uint32_t id) = nullptr;

  template <api::FunctionId kId, typename Pfn>
  Pfn fn() const {
    return reinterpret_cast<Pfn>(proc(source, kId));
  }
  // From anything with proc(id) (gl_loader::Driver).
  template <typename Source>
  static GlFunctions of(const Source& s) {
    return {&s, [](const void* p, uint32_t id) -> void* {
              return static_cast<const Source*>(p)->proc(id);
            }};
  }
};

// A read that cannot be made: its message (the viewer's reply's "error", a
// snapshot's note on what is not exact).
struct RequestError {
  std::string message;
};

// A GL enum's name (the registry group first), or its hexadecimal value.
std::string enum_text(uint32_t value, const char* group);

// A shader a program is linked with: its type and source.
struct LinkedShader {
  uint32_t type;
  std::string source;
};
// A shader's source as glGetShaderSource gives it, read through `gl`.
std::string read_shader_source(GlFunctions gl, GLuint shader);

// The shaders attached to `program` now (just linked: what it linked with),
// read through `gl`; nothing for a name that is no program (no GL error is
// raised for it, so an app's glGetError reads what it would).
std::vector<LinkedShader> read_linked_shaders(GlFunctions gl, GLuint program);

class GlReader {
 public:
  explicit GlReader(GlFunctions gl) : gl_(gl) {}

 protected:
  // The current context's GLES version, as its GL_VERSION says ("OpenGL ES
  // 3.2 ..."); `client_version` when it says nothing readable.
  void read_version(int client_version);
  bool has(const StateEntry& e) const {
    return major_ > e.major || (major_ == e.major && minor_ >= e.minor);
  }
  bool es3() const { return major_ >= 3; }
  bool es31() const { return major_ > 3 || (major_ == 3 && minor_ >= 1); }
  // A desktop GL context of the compatibility profile (a desktop context's
  // GLES-equivalent version is in major_, minor_).
  bool compatibility() const { return compatibility_; }
  void clear_errors();
  GLint integer(GLenum pname);
  // Runs `use` with `texture` bound to `target` of the active unit; the
  // app's binding is put back after. Throws RequestError when the texture
  // is not of that target.
  void with_texture(GLenum target, GLuint texture, const std::function<void()>& use);
  // The size of a texture level (ES 3.1 glGetTexLevelParameteriv), with the
  // texture bound for the query and the binding put back.
  void texture_level(GLenum target, GLenum face_target, GLuint texture, GLint level, GLint* width,
                     GLint* height, GLint* depth, GLint* format);
  // The target a texture was made for: the one of the table's targets it
  // binds to (binding it to another is an error).
  GLenum texture_target(GLuint texture);
  // A program's active attributes (GL_ACTIVE_ATTRIBUTES) or uniforms
  // (GL_ACTIVE_UNIFORMS), in index order, as glGetActiveAttrib/Uniform name them.
  struct ActiveVariable {
    std::string name;
    GLint size = 0;
    GLenum type = 0;
  };
  std::vector<ActiveVariable> active_variables(GLuint program, GLenum active);
  // A shader's source as glGetShaderSource gives it.
  std::string shader_source(GLuint shader);

  GlFunctions gl_;
  int major_ = 2, minor_ = 0;  // the current context's GLES version (per query)
  bool compatibility_ = false;
};

}  // namespace gltrace::glstate

// The driver function `name`, as the reader calls it.
#define GL(name) GL_CALL(gl_, name)
