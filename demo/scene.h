// The demo's GL work: an offscreen pass into an FBO (depth-tested cubes and an
// instanced ring), then a grid of 24 quads and a panel showing the FBO on the
// default framebuffer. Everything is a pure function of (t, size), so two runs
// with the same frame times give identical pixels.
#pragma once

#include <GLES3/gl3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace demo {

// A pixel --verify checks, with the value the program expects there.
struct PixelCheck {
  std::string what;  // e.g. "bottom-left corner (clear colour)"
  int x = 0, y = 0;  // GL window coordinates (origin bottom-left)
  uint8_t rgba[4] = {};
  int tolerance = 0;  // per channel, for float -> unorm8 rounding
};

class Scene {
 public:
  // Creates programs, buffers, textures and the FBO. Prints the failing step
  // and returns false on error.
  bool init(int width, int height);
  // Renders one frame at animation time t (seconds) into the default framebuffer.
  void draw(float t);
  void destroy();

  // Pixels whose value is known from the scene description alone at time t.
  std::vector<PixelCheck> expected_pixels(float t) const;

 private:
  int width_ = 0, height_ = 0;
  GLuint cube_program_ = 0, quad_program_ = 0, panel_program_ = 0;
  GLuint buffers_[5] = {};  // cube VBO, cube IBO, ring VBO, quad VBO, quad IBO
  GLuint cube_vao_ = 0, ring_vao_ = 0, quad_vao_ = 0;
  GLuint checker_tex_ = 0, fbo_tex_ = 0, depth_rb_ = 0, fbo_ = 0;
  // Uniform locations, looked up once.
  GLint cube_mvp_ = -1, cube_tint_ = -1, cube_spread_ = -1;
  GLint quad_mvp_ = -1, quad_color_ = -1, quad_texmix_ = -1, quad_tex_ = -1;
  GLint panel_mvp_ = -1, panel_brightness_ = -1, panel_tex_ = -1;
};

}  // namespace demo
