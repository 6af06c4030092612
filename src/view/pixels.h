// Texture uploads decoded to RGBA8, for the formats a viewer shows without a
// replay: RGBA, RGB, LUMINANCE, ALPHA, LUMINANCE_ALPHA, RED, RG with
// UNSIGNED_BYTE, FLOAT or HALF_FLOAT, and the packed 565, 4444 and 5551.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gltrace::view {

// Bytes per pixel of a decodable format/type pair; 0 when not decodable.
uint32_t decodable_pixel_size(uint32_t format, uint32_t type);

// Decodes `rows` rows of `width` pixels from `data` (rows `stride` bytes
// apart, the first row first) into RGBA8 in the same row order. False with
// *why when the pair is not decodable or the data is too short.
bool decode_pixels(uint32_t format, uint32_t type, uint32_t width, uint32_t rows, size_t stride,
                   std::string_view data, std::vector<uint8_t>* rgba, std::string* why);

// The row stride of an upload of width x rows pixels of pixel_size bytes that
// recorded `size` bytes: the unpack alignment (4, 1, 2 or 8) whose image
// size matches. 0 when none does (other unpack state was set).
size_t infer_row_stride(uint32_t width, uint32_t rows, uint32_t pixel_size, size_t size);

}  // namespace gltrace::view
