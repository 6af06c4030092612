// A minimal PNG writer (8-bit RGBA, stored deflate blocks): framebuffers out
// of traces without a zlib dependency. Files are larger than compressed PNGs;
// every viewer reads them.
#pragma once

#include <cstdint>
#include <string>

namespace gltrace::consumers {

// `rgba` holds height rows of width*4 bytes, the bottom row first (as
// glReadPixels returns them); the PNG is written top row first.
// The same PNG in memory; rows bottom first or top first.
std::string encode_png(uint32_t width, uint32_t height, const uint8_t* rgba, bool bottom_row_first);

bool write_png(const std::string& path, uint32_t width, uint32_t height, const uint8_t* rgba,
               std::string* error);

}  // namespace gltrace::consumers
