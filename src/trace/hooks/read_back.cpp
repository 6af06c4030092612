#include "trace/hooks/read_back.h"

#include "trace/compsize.h"
#include "trace/next.h"

namespace gltrace::trace {

ReadBackScope::ReadBackScope(ThreadState* thread) {
  bool es3 = context_state(thread)->client_version >= 3;
  framebuffer_target_ = es3 ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER;
  GLenum app_error = NEXT(glGetError)();
  if (app_error != GL_NO_ERROR && thread->pending_gl_error == 0)
    thread->pending_gl_error = app_error;
  framebuffer_ = driver_integer(es3 ? GL_READ_FRAMEBUFFER_BINDING : GL_FRAMEBUFFER_BINDING);
  packing_.emplace(PixelStoreCalls{NEXT(glGetIntegerv), NEXT(glPixelStorei), NEXT(glBindBuffer)},
                   es3, PixelStoreScope::Direction::kPack);
}

ReadBackScope::~ReadBackScope() {
  packing_.reset();
  NEXT(glBindFramebuffer)(framebuffer_target_, static_cast<GLuint>(framebuffer_));
  for (int k = 0; k < 8 && NEXT(glGetError)() != GL_NO_ERROR; ++k) {
  }
}

void ReadBackScope::prepare(GLuint framebuffer, GLuint pack_buffer) {
  NEXT(glBindFramebuffer)(framebuffer_target_, framebuffer);
  packing_->set_tightly_packed(pack_buffer);
}

namespace {

// Whether pixel (x, y) of the default framebuffer exists: a read outside
// the buffer writes nothing (the driver clips it), so a pixel that keeps
// each of two different fillings was not read.
bool has_pixel(GLint x, GLint y) {
  for (uint8_t fill : {0x5a, 0xa5}) {
    uint8_t pixel[4] = {fill, fill, fill, fill};
    NEXT(glReadPixels)(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, pixel);
    if (pixel[0] != fill || pixel[1] != fill || pixel[2] != fill || pixel[3] != fill) return true;
  }
  return false;
}

}  // namespace

bool buffers_have_size(ThreadState* thread, uint32_t width, uint32_t height) {
  ReadBackScope scope(thread);
  scope.prepare(0, 0);
  auto w = static_cast<GLint>(width), h = static_cast<GLint>(height);
  return has_pixel(w - 1, h - 1) && !has_pixel(w, 0) && !has_pixel(0, h);
}

}  // namespace gltrace::trace
