// Reads of ours inside the app's GL state: framebuffer and image captures.
#pragma once

#include <cstdint>
#include <optional>

#include "common/pixel_store.h"
#include "trace/hooks/context_state.h"

namespace gltrace::trace {

// A read-back of ours inside the app's GL state. Errors stay the app's: one
// it had not read yet is kept for its next glGetError, and ours (an
// unreadable attachment format...) are dropped at the end. The read
// framebuffer and pixel-pack buffer bindings and the pack parameters are
// saved, set for a tightly packed read by prepare(), and put back.
class ReadBackScope {
 public:
  explicit ReadBackScope(ThreadState* thread);
  ~ReadBackScope();
  ReadBackScope(const ReadBackScope&) = delete;
  ReadBackScope& operator=(const ReadBackScope&) = delete;

  // Reads from `framebuffer` into `pack_buffer` (ES 3; 0: client memory),
  // RGBA rows tightly packed.
  void prepare(GLuint framebuffer, GLuint pack_buffer);
  // Where prepare() bound the framebuffer (only the read binding on ES 3).
  GLenum framebuffer_target() const { return framebuffer_target_; }

 private:
  GLenum framebuffer_target_;
  GLint framebuffer_ = 0;
  std::optional<PixelStoreScope> packing_;  // reset before the errors are drained
};

// Whether the default framebuffer is width x height (a pixel inside, none
// beyond).
bool buffers_have_size(ThreadState* thread, uint32_t width, uint32_t height);

}  // namespace gltrace::trace
