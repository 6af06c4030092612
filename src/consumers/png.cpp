#include "consumers/png.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "format/crc32.h"

namespace gltrace::consumers {
namespace {

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

void chunk(std::vector<uint8_t>& out, const char type[4], const std::vector<uint8_t>& data) {
  put_be32(out, static_cast<uint32_t>(data.size()));
  size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put_be32(out, format::crc32(out.data() + start, out.size() - start));
}

}  // namespace

std::string encode_png(uint32_t width, uint32_t height, const uint8_t* rgba,
                       bool bottom_row_first) {
  // The zlib stream: header, stored blocks of at most 65535 bytes, Adler-32.
  size_t row_bytes = size_t{width} * 4;
  std::vector<uint8_t> raw;
  raw.reserve((row_bytes + 1) * height);
  for (uint32_t y = 0; y < height; ++y) {
    raw.push_back(0);  // filter: none
    const uint8_t* row = rgba + size_t{bottom_row_first ? height - 1 - y : y} * row_bytes;
    raw.insert(raw.end(), row, row + row_bytes);
  }
  std::vector<uint8_t> z = {0x78, 0x01};
  for (size_t offset = 0; offset < raw.size() || offset == 0;) {
    size_t n = std::min<size_t>(65535, raw.size() - offset);
    bool last = offset + n == raw.size();
    z.push_back(last ? 1 : 0);
    z.push_back(static_cast<uint8_t>(n));
    z.push_back(static_cast<uint8_t>(n >> 8));
    z.push_back(static_cast<uint8_t>(~n));
    z.push_back(static_cast<uint8_t>(~n >> 8));
    z.insert(z.end(), raw.begin() + static_cast<std::ptrdiff_t>(offset),
             raw.begin() + static_cast<std::ptrdiff_t>(offset + n));
    offset += n;
    if (last) break;
  }
  uint32_t a = 1, b = 0;
  for (uint8_t byte : raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  put_be32(z, (b << 16) | a);

  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> header;
  put_be32(header, width);
  put_be32(header, height);
  header.insert(header.end(), {8, 6, 0, 0, 0});  // 8-bit, RGBA, deflate, no filter, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", {});
  return std::string(png.begin(), png.end());
}

bool write_png(const std::string& path, uint32_t width, uint32_t height, const uint8_t* rgba,
               std::string* error) {
  std::string png = encode_png(width, height, rgba, true);
  FILE* f = fopen(path.c_str(), "wb");
  if (f == nullptr || fwrite(png.data(), 1, png.size(), f) != png.size() || fclose(f) != 0) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace gltrace::consumers
