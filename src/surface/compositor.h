// surfacereplayer's compositor: draws a display's surfaces (Scene::frame())
// with GLES 2 on a thread of its own, which owns the EGL context: headless
// by default (Mesa's surfaceless platform, a framebuffer object per
// display), or an X11 window per display with --x11. Each frame may be
// written as a PNG. EGL and GLES are loaded at run time, as glreplay loads
// them, so the gltrace command needs no GL library unless it replays.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "surface/scene.h"

namespace gltrace::surface {

class Compositor {
 public:
  explicit Compositor(bool x11);
  ~Compositor();  // draws what is queued, then ends the thread
  Compositor(const Compositor&) = delete;
  Compositor& operator=(const Compositor&) = delete;

  // Starts the thread and opens EGL there. False with *error.
  bool start(std::string* error);

  // Queues a frame to draw (and, when png_path is not empty, write). Waits
  // while two frames wait already, so a fast replay's memory stays bounded.
  // False with *error once drawing has failed (the first failure). An image
  // not `counted` (a snapshot) is left out of images_written().
  bool submit(DisplayFrame frame, std::string png_path, std::string* error, bool counted = true);

  // Waits until every queued frame is drawn and written; false with the
  // first failure.
  bool finish(std::string* error);

  // PNG files written for counted frames.
  uint64_t images_written() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gltrace::surface
