// The PNG writer of framebuffers out of traces (8-bit RGBA), on libpng.
#pragma once

#include <cstdint>
#include <string>

namespace gltrace::consumers {

// `rgba` holds height rows of width*4 bytes, the bottom row first (as
// glReadPixels returns them); the PNG is written top row first. On failure
// no file is left at `path`.
bool write_png(const std::string& path, uint32_t width, uint32_t height, const uint8_t* rgba,
               std::string* error);

}  // namespace gltrace::consumers
