// Copies of compressed texture uploads. GLES cannot read a compressed
// texture back (no glGetCompressedTexImage, and a framebuffer read gives
// decoded texels a driver may have decoded lossily), so whoever must write
// one again later keeps the bytes the app uploaded: the trace layer while an
// app is traceable (a mid-run capture's snapshot) and the replay (`gltrace
// trim`'s). A level is kept whole, as one upload of it would give it:
// sub-uploads patch its blocks in place, so the memory held is at most the
// bytes of the levels that live, never the sum of every upload.
#pragma once

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES3/gl32.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "glstate/gl_reader.h"

namespace gltrace::glstate {

// A compressed format's blocks: texels across and down, bytes each.
struct BlockFormat {
  uint8_t width, height, bytes;
};
// Nothing for a format that is not a known compressed one.
std::optional<BlockFormat> block_format(GLenum internal_format);
// The bytes of a w x h x d image of a compressed format (0 when unknown).
size_t compressed_image_bytes(GLenum internal_format, int64_t width, int64_t height, int64_t depth);

// One glCompressedTex[Sub]Image{2D,3D} call as the driver took it.
struct CompressedUpload {
  GLenum target = 0;  // a cube map's face, for a face
  GLint level = 0;
  GLenum format = 0;  // internalformat, or a sub-upload's format
  GLint x = 0, y = 0, z = 0;
  GLsizei width = 0, height = 0, depth = 1;
  GLsizei image_size = 0;
  const void* data = nullptr;
  bool sub = false;
};

// Where in a level an upload went (whole blocks).
struct CompressedRegion {
  GLint x = 0, y = 0, z = 0;
  GLsizei width = 0, height = 0, depth = 1;
};

// A region uploaded into a level whose other blocks are undefined.
struct CompressedPart {
  CompressedRegion region;
  std::string bytes;
};

// A level (one face of a cube map) as the uploads made it.
struct CompressedLevel {
  GLenum format = 0;
  GLsizei width = 0, height = 0, depth = 1;
  bool whole = false;  // `bytes` is the whole level; else `parts`, in upload order
  std::string bytes;
  std::vector<CompressedPart> parts;
  std::string lost;  // not empty: why the bytes are not what the texture holds
};

class CompressedShadows {
 public:
  // Levels are kept while they fit in `limit_bytes` in all; beyond it a
  // level is marked lost (the snapshot says so).
  explicit CompressedShadows(size_t limit_bytes) : limit_(limit_bytes) {}

  // After the driver took `upload` in the current context, whose share
  // group is `group`: the texture bound to its target keeps the bytes.
  // Reads the binding (and for a sub-upload into a level never uploaded
  // whole, as into immutable storage, the level's size) through `gl`.
  void note_upload(GlFunctions gl, const void* group, const CompressedUpload& upload);
  // The texture was deleted (its name freed).
  void forget(const void* group, GLuint texture);
  // The share group is gone.
  void forget_group(const void* group);

  // A copy of what is kept of a level (`face`: a cube map face, else the
  // texture's target); false when nothing is.
  bool find(const void* group, GLuint texture, GLenum face, GLint level,
            CompressedLevel* out) const;
  // The memory the copies take, and the bytes of every compressed upload
  // from the app's memory they were made of (what GLES cannot read back).
  size_t bytes() const;
  size_t uploaded_bytes() const;

 private:
  using Key = std::tuple<const void*, GLuint, GLenum, GLint>;  // group, texture, face, level
  void keep(const Key& key, const CompressedUpload& u);
  void add_part(const Key& key, CompressedLevel& level, BlockFormat b, const CompressedUpload& u);
  void lose(const Key& key, const std::string& why);
  std::string bound_reached() const;

  mutable std::mutex mutex_;
  std::map<Key, CompressedLevel> levels_;
  size_t bytes_ = 0;
  size_t uploaded_ = 0;
  size_t limit_;
};

}  // namespace gltrace::glstate
