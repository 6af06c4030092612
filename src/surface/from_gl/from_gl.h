// `gltrace surface from-gl`: what a GL trace (.gltrace) showed, as a surface
// trace: each EGL window surface a surface, each swap a buffer update at the
// size the frame was drawn at, then a VSync; the captured framebuffers
// (gltrace trace --framebuffer swap) as the updates' contents.
#pragma once

#include <cstdint>
#include <string>

#include "surface/surface.pb.h"

namespace gltrace::surface {

struct FromGlSummary {
  uint64_t surfaces = 0;
  uint64_t swaps = 0;
  uint64_t with_contents = 0;
};

// Reads the GL trace at `path` into `out`. False with `error` set when it is
// no readable GL trace; `warning` says when it was cut short (what was read
// is converted) or when it holds no window surface swaps.
bool convert_gl_trace(const std::string& path, Trace& out, FromGlSummary& summary,
                      std::string& error, std::string& warning);

}  // namespace gltrace::surface
