#include "glreplay/state_read_back.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "common/pixel_store.h"
#include "common/vertex_format.h"
#include "consumers/png.h"
#include "glreplay/egl_state.h"

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
    if (attachment == GL_BACK && session_.current_draw_surface_opaque()) make_opaque(&pixels);
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
    // A render target read through another framebuffer than the one that
    // drew it: llvmpipe was seen to return it half drawn without this.
    GL(glFinish)();
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
    need_map_buffer_range("reading a buffer");
    if (GL(glIsBuffer)(buffer) != GL_TRUE)
      throw RequestError{"buffer " + std::to_string(integer_field(request, "name", true)) +
                         " has been deleted or never bound"};
    int64_t offset = integer_field(request, "offset", false);
    if (offset < 0) throw RequestError{"\"offset\" is negative"};
    int64_t size = buffer_size(buffer);
    if (offset > size)
      throw RequestError{"offset " + std::to_string(offset) + " is past the buffer's " +
                         std::to_string(size) + " bytes"};
    int64_t length =
        integer_field(request, "size", false, std::min<int64_t>(size - offset, kMaxBufferRead));
    if (length < 0 || length > kMaxBufferRead) throw RequestError{"\"size\" must be 0 to 16 MiB"};
    *bytes = read_buffer(buffer, offset, length, "");
    reply["size"] = length;
    reply["buffer_size"] = size;
  }

  // A draw's vertices as a table: the rows first..first+count of what the
  // draw at the parked call reads, each enabled attribute that reads a
  // buffer object decoded in its format (vertex_format.h) from the bytes the
  // replay's buffers hold. The vertex of each row is the request's
  // "vertices" (the viewer knows them from the trace: a draw's first and
  // count, or indices recorded from client memory), or is read from the
  // bound element buffer ("index_type", "index_offset", "first", "count").
  void vertices(const json& request, json& reply) {
    need_context();
    read_version();
    need_map_buffer_range("reading vertex buffers");
    int64_t base_vertex = integer_field(request, "base_vertex", false);
    std::vector<int64_t> rows;
    auto listed = request.find("vertices");
    if (listed != request.end()) {
      if (!listed->is_array() || listed->size() > kMaxRows)
        throw RequestError{"\"vertices\" must be an array of at most 10000 vertex numbers"};
      for (const json& v : *listed) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > UINT32_MAX)
          throw RequestError{"\"vertices\" holds a value that is no vertex number"};
        rows.push_back(v.get<int64_t>());
      }
    } else {
      rows = element_buffer_vertices(request);
    }
    if (base_vertex < INT32_MIN || base_vertex > INT32_MAX)
      throw RequestError{"\"base_vertex\" is out of range"};
    for (int64_t& v : rows) {
      v += base_vertex;
      if (v < 0) throw RequestError{"the base vertex makes a row's vertex negative"};
    }
    // The vertices the rows span, the same for every attribute not instanced.
    int64_t rows_lo = 0, rows_hi = 0;
    if (!rows.empty()) {
      auto [lo, hi] = std::minmax_element(rows.begin(), rows.end());
      rows_lo = *lo;
      rows_hi = *hi;
    }
    json attributes = json::array();
    std::vector<std::vector<json>> columns;
    std::map<GLint, std::string> names = attribute_names();
    GLint count = std::min(integer(GL_MAX_VERTEX_ATTRIBS), kMaxAttribs);
    auto attrib = [&](GLint index, GLenum pname) {
      GLint value = 0;
      GL(glGetVertexAttribiv)(static_cast<GLuint>(index), pname, &value);
      return value;
    };
    for (GLint index = 0; index < count; ++index) {
      // Client arrays are the trace's (the viewer reads them there).
      GLint buffer = attrib(index, GL_VERTEX_ATTRIB_ARRAY_BUFFER_BINDING);
      if (attrib(index, GL_VERTEX_ATTRIB_ARRAY_ENABLED) == 0 || buffer == 0) continue;
      auto type = static_cast<uint32_t>(attrib(index, GL_VERTEX_ATTRIB_ARRAY_TYPE));
      int size = std::clamp(attrib(index, GL_VERTEX_ATTRIB_ARRAY_SIZE), 1, 4);
      bool normalized = attrib(index, GL_VERTEX_ATTRIB_ARRAY_NORMALIZED) != 0;
      GLint divisor = es3() ? attrib(index, GL_VERTEX_ATTRIB_ARRAY_DIVISOR) : 0;
      void* pointer = nullptr;
      auto get_pointer = GL(glGetVertexAttribPointerv);
      get_pointer(static_cast<GLuint>(index), GL_VERTEX_ATTRIB_ARRAY_POINTER, &pointer);
      auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(pointer));
      const vertex_format::DataType* format = vertex_format::data_type(type);
      if (format == nullptr)
        throw RequestError{"attribute " + std::to_string(index) + " has type " +
                           enum_text(type, "VertexAttribPointerType") +
                           ", which the viewer cannot decode"};
      int64_t element = vertex_format::element_bytes(size, type);
      int64_t stride = attrib(index, GL_VERTEX_ATTRIB_ARRAY_STRIDE);
      if (stride <= 0) stride = element;
      auto it = names.find(index);
      attributes.push_back(
          {{"index", index},
           {"name", it != names.end() ? it->second : "attribute " + std::to_string(index)},
           {"size", size},
           {"type", enum_text(type, "VertexAttribPointerType")},
           {"normalized", normalized},
           {"buffer", object(ObjectClass::kBuffer, static_cast<uint64_t>(buffer))},
           {"offset", offset},
           {"stride", stride},
           {"divisor", divisor}});
      std::vector<json> column;
      if (!rows.empty()) {
        // An instanced attribute reads instance 0's element on every row.
        bool instanced = divisor != 0;
        int64_t lo = instanced ? 0 : rows_lo, hi = instanced ? 0 : rows_hi;
        // Checked before multiplying: vertices reach 2^33, strides 2^31.
        if (hi - lo > kMaxBufferRead / stride || (hi - lo) * stride + element > kMaxBufferRead)
          throw RequestError{"the rows asked for span more than 16 MiB of attribute " +
                             std::to_string(index) + "'s buffer: ask for fewer"};
        int64_t span = (hi - lo) * stride + element;
        if (offset < 0 || lo > (INT64_MAX - offset) / stride)
          throw RequestError{"attribute " + std::to_string(index) +
                             ": the rows asked for are past its buffer"};
        std::string bytes = read_buffer(static_cast<GLuint>(buffer), offset + lo * stride, span,
                                        "attribute " + std::to_string(index) + "'s buffer");
        for (int64_t row : rows) {
          int64_t v = instanced ? 0 : row;
          vertex_format::Component c[4];
          int n = vertex_format::read_element(
              reinterpret_cast<const uint8_t*>(bytes.data()) + (v - lo) * stride, *format, size,
              normalized, c);
          json values = json::array();
          for (int i = 0; i < n; ++i)
            values.push_back(c[i].is_integer ? json(c[i].integer) : json(c[i].real));
          column.push_back(std::move(values));
        }
      }
      columns.push_back(std::move(column));
    }
    json table = json::array();
    for (size_t r = 0; r < rows.size(); ++r) {
      json row = json::array();
      for (const auto& column : columns) row.push_back(column[r]);
      table.push_back(std::move(row));
    }
    reply["attributes"] = std::move(attributes);
    reply["rows"] = std::move(table);
  }

 private:
  // The most rows one vertices request decodes (the viewer's page size).
  static constexpr size_t kMaxRows = 10000;

  void need_map_buffer_range(const char* what) {
    if (!es3())
      throw RequestError{std::string(what) +
                         " needs glMapBufferRange (ES 3.0); this context is ES " +
                         std::to_string(major_) + "." + std::to_string(minor_)};
  }

  int64_t buffer_size(GLuint buffer) {
    GLint old = integer(GL_COPY_READ_BUFFER_BINDING);
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, buffer);
    GLint64 size = 0;
    GL(glGetBufferParameteri64v)(GL_COPY_READ_BUFFER, GL_BUFFER_SIZE, &size);
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, static_cast<GLuint>(old));
    return size;
  }

  // `length` bytes of `buffer` from `offset` (ES 3.0: glMapBufferRange),
  // the app's binding put back; `what` names the buffer in errors ("" for
  // the request's).
  std::string read_buffer(GLuint buffer, int64_t offset, int64_t length, const std::string& what) {
    GLint old = integer(GL_COPY_READ_BUFFER_BINDING);
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, buffer);
    GLint64 size = 0;
    GLint mapped = 0;
    GL(glGetBufferParameteri64v)(GL_COPY_READ_BUFFER, GL_BUFFER_SIZE, &size);
    GL(glGetBufferParameteriv)(GL_COPY_READ_BUFFER, GL_BUFFER_MAPPED, &mapped);
    std::string prefix = what.empty() ? "" : what + ": ";
    std::optional<RequestError> failed;
    std::string data;
    if (mapped != 0) {
      failed = RequestError{prefix + "the buffer is mapped by the app at this call"};
    } else if (offset < 0 || offset > size || length > size - offset) {
      failed = RequestError{prefix + "offset + size (" + std::to_string(offset + length) +
                            ") is past the buffer's " + std::to_string(size) + " bytes"};
    } else if (length > 0) {
      clear_errors();
      void* mapped_bytes =
          GL(glMapBufferRange)(GL_COPY_READ_BUFFER, offset, length, GL_MAP_READ_BIT);
      if (mapped_bytes == nullptr) {
        failed = RequestError{prefix + "glMapBufferRange failed (" +
                              enum_text(GL(glGetError)(), "ErrorCode") + ")"};
      } else {
        data.assign(static_cast<const char*>(mapped_bytes), static_cast<size_t>(length));
        GL(glUnmapBuffer)(GL_COPY_READ_BUFFER);
      }
    }
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, static_cast<GLuint>(old));
    if (failed) throw *failed;
    return data;
  }

  // The vertex of each row first..first+count read from the bound element
  // buffer, whose indices of `index_type` start at byte `index_offset`.
  std::vector<int64_t> element_buffer_vertices(const json& request) {
    auto element = static_cast<GLuint>(integer(GL_ELEMENT_ARRAY_BUFFER_BINDING));
    if (element == 0) throw RequestError{"the draw reads indices from no element buffer"};
    auto index_type = static_cast<uint32_t>(integer_field(request, "index_type", true));
    int64_t unit = vertex_format::index_bytes(index_type);
    if (unit == 0) throw RequestError{"\"index_type\" is no index type"};
    int64_t index_offset = integer_field(request, "index_offset", true);
    int64_t first = integer_field(request, "first", true);
    int64_t count = integer_field(request, "count", true);
    if (index_offset < 0 || index_offset > INT32_MAX || first < 0 || count < 0 ||
        count > static_cast<int64_t>(kMaxRows) || first > kMaxBufferRead)
      throw RequestError{"\"index_offset\", \"first\" or \"count\" is out of range"};
    std::string bytes =
        read_buffer(element, index_offset + first * unit, count * unit, "the element buffer");
    std::vector<int64_t> rows;
    for (size_t i = 0; i + static_cast<size_t>(unit) <= bytes.size();
         i += static_cast<size_t>(unit)) {
      uint32_t v = 0;
      memcpy(&v, bytes.data() + i, static_cast<size_t>(unit));
      rows.push_back(v);
    }
    return rows;
  }

  // The current program's active attributes by location.
  std::map<GLint, std::string> attribute_names() {
    std::map<GLint, std::string> names;
    auto program = static_cast<GLuint>(integer(GL_CURRENT_PROGRAM));
    if (program == 0) return names;
    GLint active = 0, longest = 0;
    GL(glGetProgramiv)(program, GL_ACTIVE_ATTRIBUTES, &active);
    GL(glGetProgramiv)(program, GL_ACTIVE_ATTRIBUTE_MAX_LENGTH, &longest);
    std::string name(static_cast<size_t>(std::clamp(longest, 1, 4096)), '\0');
    for (GLint i = 0; i < std::min(active, kMaxAttribs); ++i) {
      GLsizei length = 0;
      GLint size = 0;
      GLenum type = 0;
      GL(glGetActiveAttrib)
      (program, static_cast<GLuint>(i), static_cast<GLsizei>(name.size()), &length, &size, &type,
       name.data());
      std::string attribute(name.data(), static_cast<size_t>(std::max(length, 0)));
      GLint location = GL(glGetAttribLocation)(program, attribute.c_str());
      if (location >= 0) names[location] = attribute;
    }
    return names;
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

void read_back_vertices(Session& session, uint64_t call, const StateJson& request,
                        StateJson& reply) {
  ReadBack read_back(session);
  read_back.set_call(call);
  read_back.vertices(request, reply);
}

}  // namespace gltrace::glreplay
