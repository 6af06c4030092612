#include "glreplay/state_read_back.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "common/pixel_store.h"
#include "consumers/png.h"

namespace gltrace::glreplay {
namespace {

// What one request may read at most (the contract's limit).
constexpr int64_t kMaxBufferRead = int64_t{16} << 20;

class ReadBack : public GlQueries {
 public:
  using GlQueries::GlQueries;

  // Reads the color image attached to the bound read framebuffer at
  // `attachment` (GL_BACK for the default one), width x height, as RGBA8.
  void read_pixels(GLenum attachment, GLint width, GLint height, json& reply, std::string* bytes) {
    if (width <= 0 || height <= 0) throw RequestError{"the image is empty"};
    if (static_cast<int64_t>(width) * height > (int64_t{1} << 26))
      throw RequestError{"the image is too large to read back (" + std::to_string(width) + "x" +
                         std::to_string(height) + ")"};
    bool three = es3();
    GLint read_buffer = 0;
    if (three) {
      read_buffer = integer(GL_READ_BUFFER);
      GL(glReadBuffer)(attachment);
    }
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
    clear_errors();
    GLenum error = GL_NO_ERROR;
    {
      PixelStoreScope packing({GL(glGetIntegerv), GL(glPixelStorei), GL(glBindBuffer)}, three,
                              PixelStoreScope::Direction::kPack);
      packing.set_tightly_packed();
      GL(glReadPixels)(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
      error = GL(glGetError)();
    }
    if (three) GL(glReadBuffer)(static_cast<GLenum>(read_buffer));
    if (error != GL_NO_ERROR)
      throw RequestError{"glReadPixels as RGBA8 failed (" + enum_text(error, "ErrorCode") +
                         "): the image's format cannot be read back as 8-bit RGBA"};
    std::string png = consumers::encode_png(static_cast<uint32_t>(width),
                                            static_cast<uint32_t>(height), pixels.data(), true);
    if (png.empty()) throw RequestError{"cannot encode the image as PNG (out of memory)"};
    reply["width"] = width;
    reply["height"] = height;
    *bytes = std::move(png);
  }

  void framebuffer(json& reply, std::string* bytes) {
    need_context();
    read_version();
    bool three = es3();
    GLint draw = integer(GL_FRAMEBUFFER_BINDING);
    GLint read_fb = three ? integer(GL_READ_FRAMEBUFFER_BINDING) : draw;
    GLenum read_target = three ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER;
    GLint width = 0, height = 0;
    GLenum attachment = GL_BACK;
    if (draw == 0) {
      EGLSurface surface = session_.current_draw_surface();
      if (surface == EGL_NO_SURFACE) throw RequestError{"no draw surface is current"};
      GL(eglQuerySurface)(session_.display(), surface, EGL_WIDTH, &width);
      GL(eglQuerySurface)(session_.display(), surface, EGL_HEIGHT, &height);
    } else {
      // Its first color attachment, whole.
      attachment = GL_COLOR_ATTACHMENT0;
      auto attachment_param = GL(glGetFramebufferAttachmentParameteriv);
      GLint type = GL_NONE, name = 0;
      attachment_param(GL_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
      attachment_param(GL_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
      if (type == GL_RENDERBUFFER) {
        GLint old = integer(GL_RENDERBUFFER_BINDING);
        GL(glBindRenderbuffer)(GL_RENDERBUFFER, static_cast<GLuint>(name));
        GL(glGetRenderbufferParameteriv)(GL_RENDERBUFFER, GL_RENDERBUFFER_WIDTH, &width);
        GL(glGetRenderbufferParameteriv)(GL_RENDERBUFFER, GL_RENDERBUFFER_HEIGHT, &height);
        GL(glBindRenderbuffer)(GL_RENDERBUFFER, static_cast<GLuint>(old));
      } else if (type == GL_TEXTURE) {
        GLint level = 0, face = 0, depth = 0, format = 0;
        attachment_param(GL_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL,
                         &level);
        attachment_param(GL_FRAMEBUFFER, attachment,
                         GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE, &face);
        auto texture = static_cast<GLuint>(name);
        GLenum target = texture_target(texture);
        texture_level(target, face != 0 ? static_cast<GLenum>(face) : target, texture, level,
                      &width, &height, &depth, &format);
      } else {
        throw RequestError{"the bound draw framebuffer has no color attachment 0"};
      }
    }
    GL(glBindFramebuffer)(read_target, static_cast<GLuint>(draw));
    try {
      read_pixels(attachment, width, height, reply, bytes);
    } catch (const RequestError&) {
      GL(glBindFramebuffer)(read_target, static_cast<GLuint>(read_fb));
      throw;
    }
    GL(glBindFramebuffer)(read_target, static_cast<GLuint>(read_fb));
    reply["framebuffer"] =
        draw == 0 ? json(nullptr) : object(ObjectClass::kFramebuffer, static_cast<uint64_t>(draw));
  }

  void texture(const json& request, json& reply, std::string* bytes) {
    need_context();
    read_version();
    auto texture = static_cast<GLuint>(replay_name(request, ObjectClass::kTexture, "texture"));
    if (GL(glIsTexture)(texture) != GL_TRUE)
      throw RequestError{"texture " + std::to_string(integer_field(request, "name", true)) +
                         " has been deleted or never bound"};
    auto target_field = request.find("target");
    std::string target_name = target_field != request.end() && target_field->is_string()
                                  ? target_field->get<std::string>()
                                  : "GL_TEXTURE_2D";
    GLenum target = 0;
    for (const StateEntry& e : state_table())
      if (e.group == StateGroup::kTextureUnit && e.target != 0 && target_name == e.key)
        target = e.target;
    if (target == 0 || target == GL_TEXTURE_2D_MULTISAMPLE)
      throw RequestError{"cannot read back a texture of target '" + target_name + "'"};
    auto level = static_cast<GLint>(integer_field(request, "level", false));
    int64_t layer = integer_field(request, "layer", false);
    int64_t face = integer_field(request, "face", false);
    if (level < 0 || level > 31) throw RequestError{"\"level\" must be 0 to 31"};
    if (face < 0 || face > 5) throw RequestError{"\"face\" must be 0 to 5"};
    if (layer < 0 || layer > 65535) throw RequestError{"\"layer\" is out of range"};
    bool cube = target == GL_TEXTURE_CUBE_MAP;
    GLenum face_target = cube ? static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face) : target;
    GLint width = 0, height = 0, depth = 0, format = 0;
    texture_level(target, face_target, texture, level, &width, &height, &depth, &format);
    if (width == 0)
      throw RequestError{"level " + std::to_string(level) + " of the texture is empty"};
    bool layered = target == GL_TEXTURE_3D || target == GL_TEXTURE_2D_ARRAY ||
                   target == GL_TEXTURE_CUBE_MAP_ARRAY;
    if (layered && layer >= depth)
      throw RequestError{"layer " + std::to_string(layer) + " is past the texture's " +
                         std::to_string(depth) + " layers"};
    // Through a framebuffer of the worker's own (GLES has no glGetTexImage),
    // the app's bindings put back after. A level other than the base one
    // can be attached only when the texture is mipmap complete (ES 3.0
    // 9.4.1): its base level is moved to that level meanwhile.
    bool three = es3();
    GLint base_level = 0;
    if (three) {
      with_texture(target, texture, [&] {
        GL(glGetTexParameteriv)(target, GL_TEXTURE_BASE_LEVEL, &base_level);
        if (base_level != level) GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, level);
      });
    }
    GLenum fb_target = three ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER;
    GLint old = integer(three ? GL_READ_FRAMEBUFFER_BINDING : GL_FRAMEBUFFER_BINDING);
    GLuint fb = 0;
    GL(glGenFramebuffers)(1, &fb);
    GL(glBindFramebuffer)(fb_target, fb);
    if (layered) {
      auto attach_layer = GL(glFramebufferTextureLayer);
      attach_layer(fb_target, GL_COLOR_ATTACHMENT0, texture, level, static_cast<GLint>(layer));
    } else {
      GL(glFramebufferTexture2D)(fb_target, GL_COLOR_ATTACHMENT0, face_target, texture, level);
    }
    GLenum status = GL(glCheckFramebufferStatus)(fb_target);
    std::string format_name = enum_text(static_cast<uint32_t>(format), "InternalFormat");
    std::optional<RequestError> failed;
    if (status != GL_FRAMEBUFFER_COMPLETE) {
      failed =
          RequestError{"cannot read back a texture of format " + format_name +
                       " through a framebuffer (" + enum_text(status, "FramebufferStatus") + ")"};
    } else {
      try {
        read_pixels(GL_COLOR_ATTACHMENT0, width, height, reply, bytes);
      } catch (const RequestError& e) {
        failed = RequestError{e.message + " (the texture is " + format_name + ")"};
      }
    }
    GL(glBindFramebuffer)(fb_target, static_cast<GLuint>(old));
    GL(glDeleteFramebuffers)(1, &fb);
    if (three && base_level != level) {
      with_texture(target, texture, [&] {
        GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, base_level);
      });
    }
    if (failed) throw *failed;
    reply["internal_format"] = enum_text(static_cast<uint32_t>(format), "InternalFormat");
  }

  void buffer(const json& request, json& reply, std::string* bytes) {
    need_context();
    read_version();
    auto buffer = static_cast<GLuint>(replay_name(request, ObjectClass::kBuffer, "buffer"));
    if (!es3())
      throw RequestError{"reading a buffer needs glMapBufferRange (ES 3.0); this context is ES " +
                         std::to_string(major_) + "." + std::to_string(minor_)};
    if (GL(glIsBuffer)(buffer) != GL_TRUE)
      throw RequestError{"buffer " + std::to_string(integer_field(request, "name", true)) +
                         " has been deleted or never bound"};
    int64_t offset = integer_field(request, "offset", false);
    if (offset < 0) throw RequestError{"\"offset\" is negative"};
    GLint old = integer(GL_COPY_READ_BUFFER_BINDING);
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, buffer);
    GLint64 size = 0;
    GLint mapped = 0;
    GL(glGetBufferParameteri64v)(GL_COPY_READ_BUFFER, GL_BUFFER_SIZE, &size);
    GL(glGetBufferParameteriv)(GL_COPY_READ_BUFFER, GL_BUFFER_MAPPED, &mapped);
    std::optional<RequestError> failed;
    int64_t length = 0;
    std::string data;
    if (mapped != 0) {
      failed = RequestError{"the buffer is mapped by the app at this call"};
    } else if (offset > size) {
      failed = RequestError{"offset " + std::to_string(offset) + " is past the buffer's " +
                            std::to_string(size) + " bytes"};
    } else {
      length =
          integer_field(request, "size", false, std::min<int64_t>(size - offset, kMaxBufferRead));
      if (length < 0 || length > kMaxBufferRead)
        failed = RequestError{"\"size\" must be 0 to 16 MiB"};
      else if (length > size - offset)
        failed = RequestError{"offset + size (" + std::to_string(offset + length) +
                              ") is past the buffer's " + std::to_string(size) + " bytes"};
    }
    if (!failed && length > 0) {
      clear_errors();
      void* mapped_bytes =
          GL(glMapBufferRange)(GL_COPY_READ_BUFFER, offset, length, GL_MAP_READ_BIT);
      if (mapped_bytes == nullptr) {
        failed = RequestError{"glMapBufferRange failed (" +
                              enum_text(GL(glGetError)(), "ErrorCode") + ")"};
      } else {
        data.assign(static_cast<const char*>(mapped_bytes), static_cast<size_t>(length));
        GL(glUnmapBuffer)(GL_COPY_READ_BUFFER);
      }
    }
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, static_cast<GLuint>(old));
    if (failed) throw *failed;
    reply["size"] = length;
    reply["buffer_size"] = size;
    *bytes = std::move(data);
  }
};

}  // namespace

void read_back_framebuffer(Session& session, uint64_t call, StateJson& reply, std::string* bytes) {
  ReadBack read_back(session);
  read_back.set_call(call);
  read_back.framebuffer(reply, bytes);
}

void read_back_texture(Session& session, uint64_t call, const StateJson& request, StateJson& reply,
                       std::string* bytes) {
  ReadBack read_back(session);
  read_back.set_call(call);
  read_back.texture(request, reply, bytes);
}

void read_back_buffer(Session& session, uint64_t call, const StateJson& request, StateJson& reply,
                      std::string* bytes) {
  ReadBack read_back(session);
  read_back.set_call(call);
  read_back.buffer(request, reply, bytes);
}

}  // namespace gltrace::glreplay
