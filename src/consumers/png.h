// The PNG writer of framebuffers out of traces (8-bit RGBA), on libpng.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gltrace::consumers {

// `rgba` holds height rows of width*4 bytes, the bottom row first (as
// glReadPixels returns them) unless `bottom_row_first` is false (as read_png
// returns them); the PNG is written top row first. On failure no file is
// left at `path`.
bool write_png(const std::string& path, uint32_t width, uint32_t height, const uint8_t* rgba,
               std::string* error, bool bottom_row_first = true);

// The same PNG in memory, its rows given bottom first or top first; empty
// when libpng fails (out of memory).
std::string encode_png(uint32_t width, uint32_t height, const uint8_t* rgba, bool bottom_row_first);

// A PNG file as 8-bit RGBA, top row first. An image of more than
// `max_pixels` is refused before its pixels are allocated (a file may claim
// any size). False with *error ("PATH: why").
bool read_png(const std::string& path, uint32_t* width, uint32_t* height,
              std::vector<uint8_t>* rgba, std::string* error, uint64_t max_pixels = 1u << 26);

}  // namespace gltrace::consumers
