// The pixel-store state of one direction (pack or unpack) that a read-back
// or an upload of ours changes inside the app's context: saved, set for
// tightly packed rows, and put back when the scope ends. The capture's
// read-backs and the replay's reads and uploads share it; it calls GL only
// through the functions it is given (the trace layer's next layer, or the
// replay's driver), so it links to no GL loader.
#pragma once

#ifndef GL_GLES_PROTOTYPES
#define GL_GLES_PROTOTYPES 0
#endif
#include <GLES3/gl32.h>

#include "gltrace/api/pfn.h"

namespace gltrace {

// None may be null.
struct PixelStoreCalls {
  PFN_gltrace_glGetIntegerv get_integer;
  PFN_gltrace_glPixelStorei pixel_store;
  PFN_gltrace_glBindBuffer bind_buffer;
};

class PixelStoreScope {
 public:
  enum class Direction { kPack, kUnpack };

  // Saves the state; es3: the context has the ES 3 buffer binding and row
  // parameters (ES 2 has the alignment only).
  PixelStoreScope(const PixelStoreCalls& calls, bool es3, Direction direction)
      : calls_(calls),
        target_(direction == Direction::kPack ? GL_PIXEL_PACK_BUFFER : GL_PIXEL_UNPACK_BUFFER),
        count_(es3 ? 4 : 1) {
    bool pack = direction == Direction::kPack;
    names_[0] = pack ? GL_PACK_ALIGNMENT : GL_UNPACK_ALIGNMENT;
    names_[1] = pack ? GL_PACK_ROW_LENGTH : GL_UNPACK_ROW_LENGTH;
    names_[2] = pack ? GL_PACK_SKIP_PIXELS : GL_UNPACK_SKIP_PIXELS;
    names_[3] = pack ? GL_PACK_SKIP_ROWS : GL_UNPACK_SKIP_ROWS;
    if (es3)
      calls_.get_integer(pack ? GL_PIXEL_PACK_BUFFER_BINDING : GL_PIXEL_UNPACK_BUFFER_BINDING,
                         &buffer_);
    for (int i = 0; i < count_; ++i) calls_.get_integer(names_[i], &values_[i]);
  }

  // Rows tightly packed (alignment 1, no row length or skips), in `buffer`
  // (ES 3; 0: client memory).
  void set_tightly_packed(GLuint buffer = 0) {
    if (count_ > 1 && static_cast<GLint>(buffer) != buffer_) calls_.bind_buffer(target_, buffer);
    for (int i = 0; i < count_; ++i) calls_.pixel_store(names_[i], i == 0 ? 1 : 0);
  }

  // Puts the parameters and (ES 3) the buffer binding back, whoever changed
  // the binding meanwhile.
  ~PixelStoreScope() {
    for (int i = 0; i < count_; ++i) calls_.pixel_store(names_[i], values_[i]);
    if (count_ > 1) calls_.bind_buffer(target_, static_cast<GLuint>(buffer_));
  }
  PixelStoreScope(const PixelStoreScope&) = delete;
  PixelStoreScope& operator=(const PixelStoreScope&) = delete;

 private:
  PixelStoreCalls calls_;
  GLenum target_;
  int count_;
  GLenum names_[4] = {};
  GLint values_[4] = {};
  GLint buffer_ = 0;
};

}  // namespace gltrace
