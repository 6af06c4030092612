// The pixel-store state of one direction (pack or unpack) that a read-back
// or an upload of the replay's own changes in the app's context: saved, set
// for tightly packed rows in client memory, and put back when the scope ends.
#pragma once

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES3/gl32.h>

#include "gltrace/api/pfn.h"

namespace gltrace::glreplay {

class PixelStoreScope {
 public:
  enum class Direction { kPack, kUnpack };

  // The functions must not be null; es3: the context has the ES 3 buffer
  // binding and row parameters (ES 2 has the alignment only).
  PixelStoreScope(PFN_gltrace_glGetIntegerv get, PFN_gltrace_glPixelStorei store,
                  PFN_gltrace_glBindBuffer bind_buffer, bool es3, Direction direction)
      : store_(store),
        bind_buffer_(bind_buffer),
        target_(direction == Direction::kPack ? GL_PIXEL_PACK_BUFFER : GL_PIXEL_UNPACK_BUFFER),
        count_(es3 ? 4 : 1) {
    bool pack = direction == Direction::kPack;
    names_[0] = pack ? GL_PACK_ALIGNMENT : GL_UNPACK_ALIGNMENT;
    names_[1] = pack ? GL_PACK_ROW_LENGTH : GL_UNPACK_ROW_LENGTH;
    names_[2] = pack ? GL_PACK_SKIP_PIXELS : GL_UNPACK_SKIP_PIXELS;
    names_[3] = pack ? GL_PACK_SKIP_ROWS : GL_UNPACK_SKIP_ROWS;
    if (es3) get(pack ? GL_PIXEL_PACK_BUFFER_BINDING : GL_PIXEL_UNPACK_BUFFER_BINDING, &buffer_);
    for (int i = 0; i < count_; ++i) get(names_[i], &values_[i]);
    if (buffer_ != 0) bind_buffer_(target_, 0);
    for (int i = 0; i < count_; ++i) store_(names_[i], i == 0 ? 1 : 0);
  }
  ~PixelStoreScope() {
    for (int i = 0; i < count_; ++i) store_(names_[i], values_[i]);
    if (buffer_ != 0) bind_buffer_(target_, static_cast<GLuint>(buffer_));
  }
  PixelStoreScope(const PixelStoreScope&) = delete;
  PixelStoreScope& operator=(const PixelStoreScope&) = delete;

 private:
  PFN_gltrace_glPixelStorei store_;
  PFN_gltrace_glBindBuffer bind_buffer_;
  GLenum target_;
  int count_;
  GLenum names_[4] = {};
  GLint values_[4] = {};
  GLint buffer_ = 0;
};

}  // namespace gltrace::glreplay
