#include "glstate/gl_reader.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"

namespace gltrace::glstate {

namespace {
#include "gltrace/api/state_table.inc"
}  // namespace

std::span<const StateEntry> state_table() { return kStateTable; }

std::span<const StateSetter> state_setters() { return kStateSetters; }

UniformType uniform_type(uint32_t type) {
  for (const UniformType& known : kUniformTypes)
    if (known.type == type) return known;
  return {type, 1, UniformRead::kInt};
}

std::string enum_text(uint32_t value, const char* group) {
  const char* name = api::enum_name(value, group != nullptr && *group != '\0' ? group : nullptr);
  if (name != nullptr) return name;
  char hex_text[16];
  snprintf(hex_text, sizeof hex_text, "0x%X", value);
  return hex_text;
}

std::string read_shader_source(GlFunctions gl_, GLuint shader) {
  GLint length = 0;
  GL(glGetShaderiv)(shader, GL_SHADER_SOURCE_LENGTH, &length);
  std::string source(static_cast<size_t>(std::max(length, 1)), '\0');
  GLsizei written = 0;
  GL(glGetShaderSource)(shader, static_cast<GLsizei>(source.size()), &written, source.data());
  source.resize(static_cast<size_t>(std::max(written, 0)));
  return source;
}

std::vector<LinkedShader> read_linked_shaders(GlFunctions gl_, GLuint program) {
  std::vector<LinkedShader> linked;
  if (GL(glIsProgram)(program) != GL_TRUE) return linked;
  GLint attached = 0;
  GL(glGetProgramiv)(program, GL_ATTACHED_SHADERS, &attached);
  std::vector<GLuint> shaders(static_cast<size_t>(std::clamp(attached, 0, 64)));
  GLsizei count = 0;
  if (!shaders.empty())
    GL(glGetAttachedShaders)(program, static_cast<GLsizei>(shaders.size()), &count, shaders.data());
  for (GLsizei i = 0; i < count; ++i) {
    GLint type = 0;
    GL(glGetShaderiv)(shaders[i], GL_SHADER_TYPE, &type);
    linked.push_back({static_cast<uint32_t>(type), read_shader_source(gl_, shaders[i])});
  }
  return linked;
}

void GlReader::read_version(int client_version) {
  major_ = client_version;
  minor_ = 0;
  compatibility_ = false;
  auto get_string = GL(glGetString);
  const GLubyte* text = get_string != nullptr ? get_string(GL_VERSION) : nullptr;
  int major = 0, minor = 0;
  if (text == nullptr) return;
  const auto* version = reinterpret_cast<const char*>(text);
  if (sscanf(version, "OpenGL ES %d.%d", &major, &minor) == 2) {
    major_ = major;
    minor_ = minor;
  } else if (sscanf(version, "%d.%d", &major, &minor) == 2) {
    // Desktop GL: the GLES version whose functions it has (4.3 has ES
    // 3.1's, 4.5 ES 3.2's but for a few; 3.0 ES 3.0's).
    int gl = major * 10 + minor;
    major_ = gl >= 30 ? 3 : 2;
    minor_ = gl >= 45 ? 2 : gl >= 43 ? 1 : 0;
    // Desktop GL's GL_CONTEXT_PROFILE_MASK and its compatibility bit.
    constexpr GLenum kProfileMask = 0x9126;
    constexpr GLint kCompatibilityBit = 0x2;
    GLint profile = 0;
    if (gl >= 32) GL(glGetIntegerv)(kProfileMask, &profile);
    compatibility_ = gl < 32 || (profile & kCompatibilityBit) != 0;
  }
}

void GlReader::clear_errors() {
  auto get_error = GL(glGetError);
  for (int i = 0; i < 16 && get_error() != GL_NO_ERROR; ++i) {
  }
}

GLint GlReader::integer(GLenum pname) {
  GLint value = 0;
  GL(glGetIntegerv)(pname, &value);
  return value;
}

void GlReader::texture_level(GLenum target, GLenum face_target, GLuint texture, GLint level,
                             GLint* width, GLint* height, GLint* depth, GLint* format) {
  auto get_level = GL(glGetTexLevelParameteriv);
  if (get_level == nullptr || major_ < 3 || (major_ == 3 && minor_ < 1))
    throw RequestError{"reading a texture's size needs ES 3.1 (glGetTexLevelParameteriv)"};
  with_texture(target, texture, [&] {
    get_level(face_target, level, GL_TEXTURE_WIDTH, width);
    get_level(face_target, level, GL_TEXTURE_HEIGHT, height);
    get_level(face_target, level, GL_TEXTURE_DEPTH, depth);
    get_level(face_target, level, GL_TEXTURE_INTERNAL_FORMAT, format);
  });
}

std::vector<GlReader::ActiveVariable> GlReader::active_variables(GLuint program, GLenum active) {
  bool attributes = active == GL_ACTIVE_ATTRIBUTES;
  GLint count = 0, max_length = 0;
  GL(glGetProgramiv)(program, active, &count);
  GL(glGetProgramiv)
  (program, attributes ? GL_ACTIVE_ATTRIBUTE_MAX_LENGTH : GL_ACTIVE_UNIFORM_MAX_LENGTH,
   &max_length);
  std::string buffer(static_cast<size_t>(std::max(max_length, 1)) + 1, '\0');
  auto get = attributes ? GL(glGetActiveAttrib) : GL(glGetActiveUniform);
  std::vector<ActiveVariable> list;
  for (GLint i = 0; i < count; ++i) {
    GLsizei length = 0;
    ActiveVariable& v = list.emplace_back();
    get(program, static_cast<GLuint>(i), static_cast<GLsizei>(buffer.size()), &length, &v.size,
        &v.type, buffer.data());
    v.name.assign(buffer.data(), static_cast<size_t>(std::max(length, 0)));
  }
  return list;
}

std::string GlReader::shader_source(GLuint shader) { return read_shader_source(gl_, shader); }

GLenum GlReader::texture_target(GLuint texture) {
  for (const StateEntry& e : state_table()) {
    if (e.group != StateGroup::kTextureUnit || e.target == 0 || !has(e)) continue;
    try {
      with_texture(e.target, texture, [] {});
      return e.target;
    } catch (const RequestError&) {
    }
  }
  throw RequestError{"texture of an unknown target"};
}

void GlReader::with_texture(GLenum target, GLuint texture, const std::function<void()>& use) {
  GLenum binding_name = 0;
  for (const StateEntry& e : state_table())
    if (e.group == StateGroup::kTextureUnit && e.target == target) binding_name = e.pname;
  if (binding_name == 0)
    throw RequestError{"unsupported texture target " + enum_text(target, "TextureTarget")};
  GLint old = integer(binding_name);
  clear_errors();
  GL(glBindTexture)(target, texture);
  if (GL(glGetError)() != GL_NO_ERROR) {
    GL(glBindTexture)(target, static_cast<GLuint>(old));
    throw RequestError{"the texture is not a " + enum_text(target, "TextureTarget")};
  }
  use();
  GL(glBindTexture)(target, static_cast<GLuint>(old));
}

}  // namespace gltrace::glstate
