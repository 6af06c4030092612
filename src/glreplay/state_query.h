// What the state worker's two GL parts share (state_reader.h reads the
// current context's state, state_read_back.h its images and buffers): the
// request's errors and fields, enum names, object names between the trace
// and the replay, and the current context's version. Each runs on the
// thread of the call the worker is parked at (state_worker.cpp puts it
// there). Internal to the state worker.
#pragma once

#include <GLES3/gl32.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gl_loader/call.h"
#include "glreplay/session.h"
#include "glreplay/state_table.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

using StateJson = nlohmann::ordered_json;

// A failed request: its message (the reply's "error").
struct RequestError {
  std::string message;
};

// The integer `field` of a request; throws RequestError when it is missing
// (and required) or not an integer.
int64_t integer_field(const StateJson& request, const char* field, bool required,
                      int64_t fallback = 0);

// A GL enum's name (the registry group first), or its hexadecimal value.
std::string enum_text(uint32_t value, const char* group);

// The replay's driver function `name` (gl_loader/call.h's one spelling).
#define GL(name) GL_CALL(session_.gl(), name)

class GlQueries {
 public:
  explicit GlQueries(Session& session) : session_(session) {}

  // The call the worker is parked at, for messages.
  void set_call(uint64_t call) { call_ = call; }

 protected:
  using json = StateJson;

  void need_context();
  // The context's GLES version, as its GL_VERSION says ("OpenGL ES 3.2 ...").
  void read_version();
  bool has(const StateEntry& e) const {
    return major_ > e.major || (major_ == e.major && minor_ >= e.minor);
  }
  bool es3() const { return major_ >= 3; }
  void clear_errors();
  GLint integer(GLenum pname);
  // An object name as a reply shows it: the trace's name.
  json object(ObjectClass cls, uint64_t replayed);
  // A recorded object name of the request, as the replay names it.
  uint64_t replay_name(const json& request, ObjectClass cls, const char* what);
  // Runs `use` with `texture` bound to `target` of the active unit; the
  // app's binding is put back after.
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
  std::string call_text() const { return std::to_string(call_); }

  Session& session_;
  uint64_t call_ = 0;
  int major_ = 2, minor_ = 0;  // the current context's GLES version (per query)
};

}  // namespace gltrace::glreplay
