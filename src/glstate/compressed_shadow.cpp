#include "glstate/compressed_shadow.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace gltrace::glstate {

namespace {

// KHR_texture_compression_astc_ldr's block sizes, in the order of its
// enums (RGBA 0x93B0.., sRGB 0x93D0..).
constexpr uint8_t kAstcBlocks[][2] = {{4, 4},  {5, 4},   {5, 5},   {6, 5},  {6, 6},
                                      {8, 5},  {8, 6},   {8, 8},   {10, 5}, {10, 6},
                                      {10, 8}, {10, 10}, {12, 10}, {12, 12}};

// The texture binding a target of an upload reads.
GLenum binding_of(GLenum target) {
  switch (target) {
    case GL_TEXTURE_2D:
      return GL_TEXTURE_BINDING_2D;
    case GL_TEXTURE_2D_ARRAY:
      return GL_TEXTURE_BINDING_2D_ARRAY;
    case GL_TEXTURE_3D:
      return GL_TEXTURE_BINDING_3D;
    case GL_TEXTURE_CUBE_MAP_ARRAY:
      return GL_TEXTURE_BINDING_CUBE_MAP_ARRAY;
    default:
      return target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X && target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z
                 ? GL_TEXTURE_BINDING_CUBE_MAP
                 : 0;
  }
}

int64_t blocks(int64_t texels, int block) { return (texels + block - 1) / block; }

// The current context's GLES version as major * 10 + minor (20 when unknown).
int context_version(GlFunctions gl_) {
  const GLubyte* text = GL(glGetString)(GL_VERSION);
  int major = 2, minor = 0;
  if (text != nullptr)
    sscanf(reinterpret_cast<const char*>(text), "OpenGL ES %d.%d", &major, &minor);
  return major * 10 + minor;
}

size_t held(const CompressedLevel& level) {
  size_t bytes = level.bytes.size();
  for (const CompressedPart& p : level.parts) bytes += p.bytes.size();
  return bytes;
}

CompressedRegion region_of(const CompressedUpload& u) {
  return {u.x, u.y, u.z, u.width, u.height, u.depth};
}

// A region's block rows (`source`, packed) into the level's bytes.
void patch(const CompressedLevel& level, std::string* into, BlockFormat b,
           const CompressedRegion& r, const char* source) {
  size_t row = static_cast<size_t>(blocks(r.width, b.width)) * b.bytes;
  size_t level_row = static_cast<size_t>(blocks(level.width, b.width)) * b.bytes;
  size_t level_rows = static_cast<size_t>(blocks(level.height, b.height));
  size_t rows = static_cast<size_t>(blocks(r.height, b.height));
  for (GLsizei layer = 0; layer < r.depth; ++layer)
    for (size_t i = 0; i < rows; ++i) {
      size_t at = (static_cast<size_t>(r.z + layer) * level_rows +
                   static_cast<size_t>(r.y / b.height) + i) *
                      level_row +
                  static_cast<size_t>(r.x / b.width) * b.bytes;
      memcpy(into->data() + at, source + (static_cast<size_t>(layer) * rows + i) * row, row);
    }
}

}  // namespace

std::optional<BlockFormat> block_format(GLenum internal_format) {
  switch (internal_format) {
    case 0x8D64:  // ETC1_RGB8_OES
    case GL_COMPRESSED_R11_EAC:
    case GL_COMPRESSED_SIGNED_R11_EAC:
    case GL_COMPRESSED_RGB8_ETC2:
    case GL_COMPRESSED_SRGB8_ETC2:
    case GL_COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2:
    case GL_COMPRESSED_SRGB8_PUNCHTHROUGH_ALPHA1_ETC2:
    case 0x83F0:  // RGB_S3TC_DXT1_EXT
    case 0x83F1:  // RGBA_S3TC_DXT1_EXT
    case 0x8C4C:  // SRGB_S3TC_DXT1_EXT
    case 0x8C4D:  // SRGB_ALPHA_S3TC_DXT1_EXT
    case 0x8DBB:  // RED_RGTC1_EXT
    case 0x8DBC:  // SIGNED_RED_RGTC1_EXT
      return BlockFormat{4, 4, 8};
    case GL_COMPRESSED_RG11_EAC:
    case GL_COMPRESSED_SIGNED_RG11_EAC:
    case GL_COMPRESSED_RGBA8_ETC2_EAC:
    case GL_COMPRESSED_SRGB8_ALPHA8_ETC2_EAC:
    case 0x83F2:  // RGBA_S3TC_DXT3_EXT
    case 0x83F3:  // RGBA_S3TC_DXT5_EXT
    case 0x8C4E:  // SRGB_ALPHA_S3TC_DXT3_EXT
    case 0x8C4F:  // SRGB_ALPHA_S3TC_DXT5_EXT
    case 0x8DBD:  // RED_GREEN_RGTC2_EXT
    case 0x8DBE:  // SIGNED_RED_GREEN_RGTC2_EXT
    case 0x8E8C:  // RGBA_BPTC_UNORM_EXT
    case 0x8E8D:  // SRGB_ALPHA_BPTC_UNORM_EXT
    case 0x8E8E:  // RGB_BPTC_SIGNED_FLOAT_EXT
    case 0x8E8F:  // RGB_BPTC_UNSIGNED_FLOAT_EXT
      return BlockFormat{4, 4, 16};
    default:
      break;
  }
  for (GLenum first : {0x93B0u, 0x93D0u})
    if (internal_format >= first && internal_format < first + std::size(kAstcBlocks)) {
      const uint8_t* size = kAstcBlocks[internal_format - first];
      return BlockFormat{size[0], size[1], 16};
    }
  return std::nullopt;
}

size_t compressed_image_bytes(GLenum internal_format, int64_t width, int64_t height,
                              int64_t depth) {
  std::optional<BlockFormat> b = block_format(internal_format);
  if (!b || width < 0 || height < 0 || depth < 0) return 0;
  // No image GLES allows is this large (a hostile trace's may claim it).
  if (width > (int64_t{1} << 20) || height > (int64_t{1} << 20) || depth > (int64_t{1} << 16))
    return SIZE_MAX;
  return static_cast<size_t>(blocks(width, b->width) * blocks(height, b->height) * depth *
                             b->bytes);
}

void CompressedShadows::note_upload(GlFunctions gl_, const void* group,
                                    const CompressedUpload& upload) {
  GLenum binding = binding_of(upload.target);
  if (binding == 0) return;  // no target a compressed image goes to
  GLint texture = 0;
  GL(glGetIntegerv)(binding, &texture);
  if (texture <= 0) return;  // texture 0 is no object a snapshot writes
  Key key{group, static_cast<GLuint>(texture), upload.target, upload.level};
  // A pixel unpack buffer holds the bytes (ES 3; an ES 2 context would
  // raise an error for the query, which the app would read).
  int version = context_version(gl_);
  if (version >= 30) {
    GLint unpack = 0;
    GL(glGetIntegerv)(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack);
    if (unpack != 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      lose(key, "uploaded from a pixel unpack buffer, whose bytes are not kept");
      return;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (upload.data != nullptr && upload.image_size > 0)
    uploaded_ += static_cast<size_t>(upload.image_size);
  if (!upload.sub) {
    keep(key, upload);
    return;
  }
  auto it = levels_.find(key);
  if (it == levels_.end()) {
    // Into storage never uploaded whole (glTexStorage*): the level's size.
    if (version < 31) {
      lose(key, "a part uploaded into storage whose size ES 3.0 cannot tell");
      return;
    }
    GLint w = 0, h = 0, d = 0, f = 0;
    auto get_level = GL(glGetTexLevelParameteriv);
    get_level(upload.target, upload.level, GL_TEXTURE_WIDTH, &w);
    get_level(upload.target, upload.level, GL_TEXTURE_HEIGHT, &h);
    get_level(upload.target, upload.level, GL_TEXTURE_DEPTH, &d);
    get_level(upload.target, upload.level, GL_TEXTURE_INTERNAL_FORMAT, &f);
    CompressedUpload storage;
    storage.target = upload.target;
    storage.level = upload.level;
    storage.format = static_cast<GLenum>(f);
    storage.width = w;
    storage.height = h;
    storage.depth = d;
    keep(key, storage);  // no bytes: what the storage holds is undefined until uploaded
    it = levels_.find(key);
    if (it == levels_.end() || !it->second.lost.empty()) return;
  }
  CompressedLevel& level = it->second;
  if (!level.lost.empty()) return;  // a part of a level lost stays lost
  std::optional<BlockFormat> b = block_format(level.format);
  bool fits =
      b && upload.format == level.format && upload.x >= 0 && upload.y >= 0 && upload.z >= 0 &&
      upload.width >= 0 && upload.height >= 0 && upload.depth >= 0 && upload.x % b->width == 0 &&
      upload.y % b->height == 0 && int64_t{upload.x} + upload.width <= level.width &&
      int64_t{upload.y} + upload.height <= level.height &&
      int64_t{upload.z} + upload.depth <= level.depth &&
      (upload.width % b->width == 0 || upload.x + upload.width == level.width) &&
      (upload.height % b->height == 0 || upload.y + upload.height == level.height) &&
      static_cast<size_t>(upload.image_size) ==
          compressed_image_bytes(upload.format, upload.width, upload.height, upload.depth) &&
      upload.data != nullptr;
  if (!fits) {
    lose(key, "a part uploaded that is not whole blocks of its format");
    return;
  }
  add_part(key, level, *b, upload);
}

void CompressedShadows::add_part(const Key& key, CompressedLevel& level, BlockFormat b,
                                 const CompressedUpload& u) {
  const auto* data = static_cast<const char*>(u.data);
  if (level.whole) {
    patch(level, &level.bytes, b, region_of(u), data);
    return;
  }
  // Parts this one covers are gone for good.
  size_t before = held(level);
  std::erase_if(level.parts, [&](const CompressedPart& part) {
    const CompressedRegion& p = part.region;
    return u.x <= p.x && u.y <= p.y && u.z <= p.z && p.x + p.width <= u.x + u.width &&
           p.y + p.height <= u.y + u.height && p.z + p.depth <= u.z + u.depth;
  });
  size_t parts = held(level);
  bytes_ -= before - parts;
  // Once the parts would take as much as the level, the level is kept
  // whole instead (its undefined blocks zeros, as the storage's may be).
  auto size = static_cast<size_t>(u.image_size);
  size_t whole = compressed_image_bytes(level.format, level.width, level.height, level.depth);
  bool merge = size >= whole - parts;
  size_t grow = merge ? whole - parts : size;
  if (grow > limit_ - bytes_) {
    lose(key, bound_reached());
    return;
  }
  bytes_ += grow;
  if (!merge) {
    level.parts.push_back(CompressedPart{region_of(u), std::string(data, size)});
    return;
  }
  level.bytes.assign(whole, '\0');
  for (const CompressedPart& p : level.parts)
    patch(level, &level.bytes, b, p.region, p.bytes.data());
  patch(level, &level.bytes, b, region_of(u), data);
  std::vector<CompressedPart>().swap(level.parts);
  level.whole = true;
}

void CompressedShadows::keep(const Key& key, const CompressedUpload& u) {
  size_t size = compressed_image_bytes(u.format, u.width, u.height, u.depth);
  auto it = levels_.find(key);
  size_t before = it != levels_.end() ? held(it->second) : 0;
  if (size == 0 && u.width > 0) {
    lose(key, "its format " + enum_text(u.format, "InternalFormat") + " is not a known one");
    return;
  }
  bool whole = u.data != nullptr;
  if (whole && static_cast<size_t>(u.image_size) != size) {
    lose(key, "its upload's imageSize is not its format's size");
    return;
  }
  size_t needed = whole ? size : 0;  // storage alone holds nothing yet
  if (needed > limit_ || bytes_ - before > limit_ - needed) {
    lose(key, bound_reached());
    return;
  }
  CompressedLevel& level = levels_[key];
  bytes_ = bytes_ - before + needed;
  level.format = u.format;
  level.width = u.width;
  level.height = u.height;
  level.depth = u.depth;
  level.whole = whole;
  level.lost.clear();
  std::vector<CompressedPart>().swap(level.parts);
  if (whole)
    level.bytes.assign(static_cast<const char*>(u.data), size);
  else
    std::string().swap(level.bytes);
}

std::string CompressedShadows::bound_reached() const {
  char why[128];
  snprintf(why, sizeof why,
           "the memory bound for copies of compressed uploads (%zu MB, "
           "debug.gltrace.shadow_mb) was reached",
           limit_ >> 20);
  return why;
}

void CompressedShadows::lose(const Key& key, const std::string& why) {
  CompressedLevel& level = levels_[key];
  bytes_ -= held(level);
  std::string().swap(level.bytes);
  std::vector<CompressedPart>().swap(level.parts);
  level.whole = false;
  level.lost = why;
}

void CompressedShadows::forget(const void* group, GLuint texture) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = levels_.lower_bound(Key{group, texture, 0, 0});
  while (it != levels_.end() && std::get<0>(it->first) == group &&
         std::get<1>(it->first) == texture) {
    bytes_ -= held(it->second);
    it = levels_.erase(it);
  }
}

void CompressedShadows::forget_group(const void* group) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = levels_.lower_bound(Key{group, 0, 0, 0});
  while (it != levels_.end() && std::get<0>(it->first) == group) {
    bytes_ -= held(it->second);
    it = levels_.erase(it);
  }
}

bool CompressedShadows::find(const void* group, GLuint texture, GLenum face, GLint level,
                             CompressedLevel* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = levels_.find(Key{group, texture, face, level});
  if (it == levels_.end()) return false;
  *out = it->second;
  return true;
}

size_t CompressedShadows::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

size_t CompressedShadows::uploaded_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return uploaded_;
}

}  // namespace gltrace::glstate
