#include "glreplay/state_reader.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gltrace/api/enums.h"

namespace gltrace::glreplay {
namespace {

// Texture units, attributes and attachments looked at, whatever the driver
// allows (a hostile or odd driver must not make a state reply huge).
constexpr GLint kMaxUnits = 256;
constexpr GLint kMaxAttribs = 64;
constexpr GLint kMaxColorAttachments = 32;
constexpr GLint kMaxIndexedBindings = 128;
// Elements of a uniform array whose values are read.
constexpr GLint kMaxUniformElements = 64;

class StateReader : public GlQueries {
 public:
  using GlQueries::GlQueries;

  // Where an entry is read: the object or index it is about.
  struct Subject {
    GLenum target = 0;      // texture, framebuffer
    GLuint index = 0;       // attribute
    GLenum attachment = 0;  // framebuffer attachment
    GLuint object = 0;      // program, shader
    EGLConfig config = nullptr;
  };

  // Reads an entry's raw values: ints (or floats for kFloat). False when the
  // driver has no such query or refused it.
  bool read(const StateEntry& e, const Subject& at, int64_t* ints, double* floats) {
    clear_errors();
    GLint values[16] = {};
    bool ok = true;
    EGLDisplay display = session_.display();
    switch (e.query) {
      case StateQuery::kInteger:
        GL(glGetIntegerv)(e.pname, values);
        break;
      case StateQuery::kIntegerIndexed: {
        auto get = GL(glGetIntegeri_v);
        if (get == nullptr) return false;
        get(e.pname, at.index, values);
        break;
      }
      case StateQuery::kFloat: {
        GLfloat f[16] = {};
        GL(glGetFloatv)(e.pname, f);
        for (int i = 0; i < e.count; ++i) floats[i] = f[i];
        break;
      }
      case StateQuery::kBoolean: {
        GLboolean b[16] = {};
        GL(glGetBooleanv)(e.pname, b);
        for (int i = 0; i < e.count; ++i) values[i] = b[i];
        break;
      }
      case StateQuery::kEnabled:
        values[0] = GL(glIsEnabled)(e.pname);
        break;
      case StateQuery::kEglContext: {
        EGLint v = 0;
        ok = GL(eglQueryContext)(display, session_.current().context, static_cast<EGLint>(e.pname),
                                 &v) == EGL_TRUE;
        values[0] = v;
        return finish(e, ok, values, ints);
      }
      case StateQuery::kEglDraw:
      case StateQuery::kEglRead: {
        EGLSurface surface = e.query == StateQuery::kEglDraw ? session_.current_draw_surface()
                                                             : session_.current_read_surface();
        EGLint v = 0;
        ok = surface != EGL_NO_SURFACE &&
             GL(eglQuerySurface)(display, surface, static_cast<EGLint>(e.pname), &v) == EGL_TRUE;
        values[0] = v;
        return finish(e, ok, values, ints);
      }
      case StateQuery::kEglConfig: {
        EGLint v = 0;
        ok = at.config != nullptr &&
             GL(eglGetConfigAttrib)(display, at.config, static_cast<EGLint>(e.pname), &v) ==
                 EGL_TRUE;
        values[0] = v;
        return finish(e, ok, values, ints);
      }
      case StateQuery::kTexParameter:
        GL(glGetTexParameteriv)(at.target, e.pname, values);
        break;
      case StateQuery::kTexLevelParameter: {
        auto get = GL(glGetTexLevelParameteriv);
        if (get == nullptr) return false;
        GLenum target =
            at.target == GL_TEXTURE_CUBE_MAP ? GL_TEXTURE_CUBE_MAP_POSITIVE_X : at.target;
        get(target, 0, e.pname, values);
        break;
      }
      case StateQuery::kVertexAttrib:
        GL(glGetVertexAttribiv)(at.index, e.pname, values);
        break;
      case StateQuery::kVertexAttribPointer: {
        void* pointer = nullptr;
        GL(glGetVertexAttribPointerv)(at.index, e.pname, &pointer);
        ints[0] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(pointer));
        return GL(glGetError)() == GL_NO_ERROR;
      }
      case StateQuery::kAttachment:
        GL(glGetFramebufferAttachmentParameteriv)(at.target, at.attachment, e.pname, values);
        break;
      case StateQuery::kProgram:
        GL(glGetProgramiv)(at.object, e.pname, values);
        break;
      case StateQuery::kShader:
        GL(glGetShaderiv)(at.object, e.pname, values);
        break;
    }
    ok = GL(glGetError)() == GL_NO_ERROR;
    return finish(e, ok, values, ints);
  }
  static bool finish(const StateEntry& e, bool ok, const GLint* values, int64_t* ints) {
    for (int i = 0; i < e.count; ++i) ints[i] = values[i];
    return ok;
  }

  json value_of(const StateEntry& e, int64_t raw, double real_value, int64_t attachment_type) {
    switch (e.kind) {
      case StateKind::kInt:
        return raw;
      case StateKind::kFloat:
        return real_value;
      case StateKind::kBool:
        return raw != 0;
      case StateKind::kEnum:
        return enum_text(static_cast<uint32_t>(raw), e.enum_group);
      case StateKind::kEglEnum: {
        const char* name = api::egl_enum_name(static_cast<uint32_t>(raw));
        return name != nullptr ? json(name) : json(raw);
      }
      case StateKind::kObject:
        return object(e.cls, static_cast<uint64_t>(raw));
      case StateKind::kAttachmentObject:
        if (attachment_type == GL_TEXTURE)
          return object(ObjectClass::kTexture, static_cast<uint64_t>(raw));
        if (attachment_type == GL_RENDERBUFFER)
          return object(ObjectClass::kRenderbuffer, static_cast<uint64_t>(raw));
        return nullptr;
    }
    return nullptr;
  }

  // Every entry of `group` this context has, read at `at`, into `out`
  // (key: value; an entry the driver refused is left out). *raw_out gets
  // the first raw value of each, for the loops that decide on them.
  void read_group(StateGroup group, const Subject& at, json& out,
                  std::map<std::string, int64_t>* raw_out = nullptr, GLenum target = 0,
                  int64_t attachment_type = 0) {
    for (const StateEntry& e : state_table()) {
      if (e.group != group || !has(e) || e.target != target) continue;
      int64_t ints[16] = {};
      double floats[16] = {};
      if (!read(e, at, ints, floats)) continue;
      if (raw_out != nullptr) (*raw_out)[e.key] = ints[0];
      if (e.count == 1) {
        out[e.key] = value_of(e, ints[0], floats[0], attachment_type);
      } else {
        json list = json::array();
        for (int i = 0; i < e.count; ++i)
          list.push_back(value_of(e, ints[i], floats[i], attachment_type));
        out[e.key] = std::move(list);
      }
    }
  }

  void state(json& reply, uint32_t thread, uint32_t context) {
    reply["call"] = call_;
    reply["thread"] = thread;
    if (!session_.has_current()) {
      reply["context"] = nullptr;
      reply["state"] = {{"egl", {{"context", nullptr}}}};
      return;
    }
    reply["context"] = context;
    read_version();
    json state = json::object();
    state["egl"] = egl_state();
    json bindings = json::object();
    read_group(StateGroup::kBindings, {}, bindings);
    state["bindings"] = std::move(bindings);
    json pipeline = json::object();
    read_group(StateGroup::kPipeline, {}, pipeline);
    state["pipeline"] = std::move(pipeline);
    state["program"] = program_state();
    state["textures"] = texture_state();
    state["framebuffer"] = framebuffer_state();
    json vertex_arrays = vertex_array_state();
    state["vertex_arrays"] = std::move(vertex_arrays);
    state["indexed_buffers"] = indexed_buffer_state();
    state["element_buffer"] = object(
        ObjectClass::kBuffer, static_cast<uint64_t>(integer(GL_ELEMENT_ARRAY_BUFFER_BINDING)));
    reply["state"] = std::move(state);
  }

  static std::string handle_text(uint64_t handle) { return handle != 0 ? hex(handle) : "none"; }

  json egl_state() {
    json egl = json::object();
    EGLDisplay display = session_.display();
    auto query_string = GL(eglQueryString);
    const char* vendor = query_string != nullptr ? query_string(display, EGL_VENDOR) : nullptr;
    const char* version = query_string != nullptr ? query_string(display, EGL_VERSION) : nullptr;
    egl["display"] = {{"vendor", vendor != nullptr ? vendor : ""},
                      {"version", version != nullptr ? version : ""}};
    // EGL handles are the trace's (recorded) ones, as hexadecimal text.
    egl["context"] = handle_text(session_.current_context());
    egl["draw_surface"] = handle_text(session_.current_draw());
    egl["read_surface"] = handle_text(session_.current_read());
    Subject at;
    EGLint config_id = 0;
    if (GL(eglQueryContext)(display, session_.current().context, EGL_CONFIG_ID, &config_id)) {
      const EGLint attribs[] = {EGL_CONFIG_ID, config_id, EGL_NONE};
      EGLint count = 0;
      if (!GL(eglChooseConfig)(display, attribs, &at.config, 1, &count) || count != 1)
        at.config = nullptr;
    }
    read_group(StateGroup::kEgl, at, egl);
    const GLubyte* gl_version = GL(glGetString)(GL_VERSION);
    egl["gl_version"] = gl_version != nullptr ? reinterpret_cast<const char*>(gl_version) : "";
    return egl;
  }

  std::string program_info_log(GLuint program) {
    GLint length = 0;
    GL(glGetProgramiv)(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    GLsizei written = 0;
    GL(glGetProgramInfoLog)(program, static_cast<GLsizei>(log.size()), &written, log.data());
    log.resize(static_cast<size_t>(std::max(written, 0)));
    return log;
  }

  json program_state() {
    auto replayed = static_cast<GLuint>(integer(GL_CURRENT_PROGRAM));
    if (replayed == 0) return nullptr;
    json program = json::object();
    program["name"] = object(ObjectClass::kProgram, replayed);
    Subject at;
    at.object = replayed;
    std::map<std::string, int64_t> raw;
    read_group(StateGroup::kProgram, at, program, &raw);
    std::optional<uint64_t> recorded = session_.recorded_name(ObjectClass::kProgram, replayed);
    // Attributes.
    json attributes = json::array();
    for (const ActiveVariable& a : active_variables(replayed, GL_ACTIVE_ATTRIBUTES))
      attributes.push_back({{"name", a.name},
                            {"location", GL(glGetAttribLocation)(replayed, a.name.c_str())},
                            {"type", enum_text(a.type, "AttributeType")},
                            {"size", a.size}});
    program["attributes"] = std::move(attributes);
    // Uniforms, with their values.
    json uniforms = json::array();
    for (const ActiveVariable& u : active_variables(replayed, GL_ACTIVE_UNIFORMS)) {
      const std::string& uniform_name = u.name;
      GLenum type = u.type;
      GLint size = u.size;
      GLint location = GL(glGetUniformLocation)(replayed, uniform_name.c_str());
      json entry = {{"name", uniform_name},
                    {"location", location >= 0 && recorded
                                     ? session_.recorded_uniform_location(*recorded, location)
                                     : location},
                    {"type", enum_text(type, "UniformType")},
                    {"size", size}};
      if (location >= 0)
        entry["value"] = uniform_value(replayed, uniform_name, location, type, size);
      uniforms.push_back(std::move(entry));
    }
    program["uniforms"] = std::move(uniforms);
    // Uniform blocks (ES 3).
    json blocks = json::array();
    if (es3()) {
      auto block_name = GL(glGetActiveUniformBlockName);
      auto block_param = GL(glGetActiveUniformBlockiv);
      GLint max_name = 0;
      GL(glGetProgramiv)(replayed, GL_ACTIVE_UNIFORM_BLOCK_MAX_NAME_LENGTH, &max_name);
      std::string name(static_cast<size_t>(std::max(max_name, 1)) + 1, '\0');
      for (GLint i = 0; i < raw["active_uniform_blocks"]; ++i) {
        auto block = static_cast<GLuint>(i);
        GLsizei length = 0;
        block_name(replayed, block, static_cast<GLsizei>(name.size()), &length, name.data());
        GLint binding = 0, size = 0;
        block_param(replayed, block, GL_UNIFORM_BLOCK_BINDING, &binding);
        block_param(replayed, block, GL_UNIFORM_BLOCK_DATA_SIZE, &size);
        blocks.push_back({{"name", std::string(name.data(), static_cast<size_t>(length))},
                          {"binding", binding},
                          {"size", size}});
      }
    }
    program["uniform_blocks"] = std::move(blocks);
    program["info_log"] = program_info_log(replayed);
    return program;
  }

  // The values of a uniform: its components, element after element of an
  // array (the first kMaxUniformElements).
  json uniform_value(GLuint program, const std::string& name, GLint location, GLenum type,
                     GLint size) {
    UniformType shape = uniform_type(type);
    json values = json::array();
    std::string base = name;
    if (base.size() > 3 && base.compare(base.size() - 3, 3, "[0]") == 0)
      base.resize(base.size() - 3);
    auto uniform_location = GL(glGetUniformLocation);
    for (GLint k = 0; k < std::min(size, kMaxUniformElements); ++k) {
      std::string element = base + "[" + std::to_string(k) + "]";
      GLint at = k == 0 ? location : uniform_location(program, element.c_str());
      if (at < 0) break;
      if (shape.read == UniformRead::kFloat) {
        GLfloat v[16] = {};
        GL(glGetUniformfv)(program, at, v);
        for (int c = 0; c < shape.components; ++c) values.push_back(v[c]);
      } else if (shape.read == UniformRead::kUint && es3()) {
        GLuint v[16] = {};
        GL(glGetUniformuiv)(program, at, v);
        for (int c = 0; c < shape.components; ++c) values.push_back(v[c]);
      } else {
        GLint v[16] = {};
        GL(glGetUniformiv)(program, at, v);
        for (int c = 0; c < shape.components; ++c) {
          if (shape.read == UniformRead::kBool)
            values.push_back(v[c] != 0);
          else
            values.push_back(v[c]);
        }
      }
    }
    return values;
  }

  json texture_state() {
    json textures = json::array();
    GLint active = integer(GL_ACTIVE_TEXTURE);
    GLint units = std::min(integer(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS), kMaxUnits);
    auto set_active = GL(glActiveTexture);
    for (GLint unit = 0; unit < units; ++unit) {
      set_active(static_cast<GLenum>(GL_TEXTURE0 + unit));
      json unit_state = json::object();
      read_group(StateGroup::kTextureUnit, {}, unit_state);  // no target: the sampler
      json sampler = unit_state.contains("sampler") ? unit_state["sampler"] : json(nullptr);
      for (const StateEntry& e : state_table()) {
        if (e.group != StateGroup::kTextureUnit || e.target == 0 || !has(e)) continue;
        int64_t ints[16] = {};
        double floats[16] = {};
        if (!read(e, {}, ints, floats) || ints[0] == 0) continue;
        json entry = {{"unit", unit},
                      {"target", e.key},
                      {"texture", value_of(e, ints[0], 0, 0)},
                      {"sampler", sampler}};
        Subject at;
        at.target = e.target;
        read_group(StateGroup::kTexture, at, entry);
        textures.push_back(std::move(entry));
      }
    }
    set_active(static_cast<GLenum>(active));
    return textures;
  }

  json framebuffer_state() {
    json framebuffer = json::object();
    bool three = es3();
    for (bool draw : {true, false}) {
      GLenum target = !three ? GL_FRAMEBUFFER : draw ? GL_DRAW_FRAMEBUFFER : GL_READ_FRAMEBUFFER;
      GLint bound = integer(draw || !three ? GL_FRAMEBUFFER_BINDING : GL_READ_FRAMEBUFFER_BINDING);
      json fb = json::object();
      fb["name"] = bound == 0 ? json(nullptr)
                              : object(ObjectClass::kFramebuffer, static_cast<uint64_t>(bound));
      fb["default"] = bound == 0;
      fb["status"] = enum_text(GL(glCheckFramebufferStatus)(target), "FramebufferStatus");
      std::vector<GLenum> points;
      if (bound == 0) {
        if (three) points = {GL_BACK, GL_DEPTH, GL_STENCIL};  // ES 2 cannot ask
      } else {
        GLint colors =
            three ? std::min(integer(GL_MAX_COLOR_ATTACHMENTS), kMaxColorAttachments) : 1;
        for (GLint i = 0; i < colors; ++i)
          points.push_back(static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + i));
        points.push_back(GL_DEPTH_ATTACHMENT);
        points.push_back(GL_STENCIL_ATTACHMENT);
      }
      json attachments = json::array();
      for (GLenum point : points) {
        Subject at;
        at.target = target;
        at.attachment = point;
        clear_errors();
        GLint type = GL_NONE;
        auto attachment_param = GL(glGetFramebufferAttachmentParameteriv);
        attachment_param(target, point, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
        if (GL(glGetError)() != GL_NO_ERROR || type == GL_NONE) continue;
        json entry = {{"attachment", enum_text(point, "FramebufferAttachment")}};
        read_group(StateGroup::kAttachment, at, entry, nullptr, 0, type);
        attachments.push_back(std::move(entry));
      }
      fb["attachments"] = std::move(attachments);
      if (draw && three) {
        json buffers = json::array();
        GLint count = std::min(integer(GL_MAX_DRAW_BUFFERS), kMaxColorAttachments);
        for (GLint i = 0; i < count; ++i) {
          GLint buffer = integer(static_cast<GLenum>(GL_DRAW_BUFFER0 + i));
          if (buffer != GL_NONE)
            buffers.push_back(enum_text(static_cast<uint32_t>(buffer), "DrawBufferMode"));
        }
        fb["draw_buffers"] = std::move(buffers);
      }
      framebuffer[draw ? "draw" : "read"] = std::move(fb);
    }
    return framebuffer;
  }

  // The buffers bound at each index of the table's indexed targets (uniform,
  // transform feedback, storage, atomic counter), where one is.
  json indexed_buffer_state() {
    json buffers = json::array();
    std::vector<std::pair<GLenum, GLenum>> targets;  // (target, limit), in table order
    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kIndexedBuffer || !has(e)) continue;
      if (targets.empty() || targets.back().first != e.target)
        targets.emplace_back(e.target, e.limit);
    }
    for (const auto& [target, limit] : targets) {
      GLint count = std::min(integer(limit), kMaxIndexedBindings);
      for (GLint index = 0; index < count; ++index) {
        Subject at;
        at.index = static_cast<GLuint>(index);
        json entry = {{"target", enum_text(target, "BufferTargetARB")}, {"index", index}};
        std::map<std::string, int64_t> raw;
        read_group(StateGroup::kIndexedBuffer, at, entry, &raw, target);
        if (raw["buffer"] != 0) buffers.push_back(std::move(entry));
      }
    }
    return buffers;
  }

  json vertex_array_state() {
    json attributes = json::array();
    GLint count = std::min(integer(GL_MAX_VERTEX_ATTRIBS), kMaxAttribs);
    for (GLint index = 0; index < count; ++index) {
      Subject at;
      at.index = static_cast<GLuint>(index);
      json entry = {{"index", index}};
      std::map<std::string, int64_t> raw;
      read_group(StateGroup::kVertexAttrib, at, entry, &raw);
      // Anything set: enabled, or pointing into a buffer.
      if (raw["enabled"] == 0 && raw["buffer"] == 0) continue;
      // A client array's pointer is an address in the traced process (or
      // in the replay), not an offset: said so instead.
      if (raw["buffer"] == 0 && entry.contains("offset")) {
        entry["offset"] = nullptr;
        entry["client_memory"] = true;
      }
      attributes.push_back(std::move(entry));
    }
    return attributes;
  }

  void shader(const json& request, json& reply) {
    need_context();
    read_version();
    // Shaders and programs share one namespace.
    auto name =
        static_cast<GLuint>(replay_name(request, ObjectClass::kProgram, "shader or program"));
    if (GL(glIsShader)(name) == GL_TRUE) {
      Subject at;
      at.object = name;
      read_group(StateGroup::kShader, at, reply);
      reply["source"] = shader_source(name);
      GLint length = 0;
      GLsizei written = 0;
      GL(glGetShaderiv)(name, GL_INFO_LOG_LENGTH, &length);
      std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
      GL(glGetShaderInfoLog)(name, static_cast<GLsizei>(log.size()), &written, log.data());
      log.resize(static_cast<size_t>(std::max(written, 0)));
      reply["info_log"] = std::move(log);
      return;
    }
    if (GL(glIsProgram)(name) != GL_TRUE)
      throw RequestError{"shader or program " +
                         std::to_string(integer_field(request, "name", true)) +
                         " has been deleted"};
    reply["program"] = true;
    Subject at;
    at.object = name;
    std::map<std::string, int64_t> raw;
    read_group(StateGroup::kProgram, at, reply, &raw);
    reply["info_log"] = program_info_log(name);
    GLuint shaders[16] = {};
    GLsizei count = 0;
    GL(glGetAttachedShaders)(name, 16, &count, shaders);
    json list = json::array();
    for (GLsizei i = 0; i < count; ++i) {
      GLint type = 0;
      GL(glGetShaderiv)(shaders[i], GL_SHADER_TYPE, &type);
      json entry = object(ObjectClass::kProgram, shaders[i]);
      entry["type"] = enum_text(static_cast<uint32_t>(type), "ShaderType");
      list.push_back(std::move(entry));
    }
    reply["shaders"] = std::move(list);
  }
};

}  // namespace

void read_state(Session& session, uint64_t call, uint32_t thread, uint32_t context,
                StateJson& reply) {
  StateReader reader(session);
  reader.set_call(call);
  reader.state(reply, thread, context);
}

void read_shader(Session& session, uint64_t call, const StateJson& request, StateJson& reply) {
  StateReader reader(session);
  reader.set_call(call);
  reader.shader(request, reply);
}

}  // namespace gltrace::glreplay
