#include "consumers/png.h"

#include <png.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gltrace::consumers {
namespace {

// Framebuffers compress best with the "up" filter alone (rows repeat their
// neighbours) and zlib level 1: on glmark2's and the demo's 320x240 frames,
// 15-52 KB in 0.9-1.7 ms an image, where libpng's defaults (every filter,
// level 6) save 5-10% of the bytes in 3-5 times the time.
constexpr int kFilters = PNG_FILTER_UP;
constexpr int kCompressionLevel = 1;

struct ErrorMessage {
  char text[256] = "";
  char warning[128] = "";  // why, before an error such as "Invalid IHDR data"
};

[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* error = static_cast<ErrorMessage*>(png_get_error_ptr(png));
  if (error->warning[0] != '\0')
    snprintf(error->text, sizeof error->text, "%s (%s)", message, error->warning);
  else
    snprintf(error->text, sizeof error->text, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp png, png_const_charp message) {
  auto* error = static_cast<ErrorMessage*>(png_get_error_ptr(png));
  if (error->warning[0] == '\0') snprintf(error->warning, sizeof error->warning, "%s", message);
}

void append_to_string(png_structp png, png_bytep data, size_t size) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), size);
}

void no_flush(png_structp /*png*/) {}

// Into `file`, or into `memory` when file is null. libpng reports errors by
// longjmp: nothing in this frame has a destructor, and nothing set before
// setjmp changes after it.
bool encode(FILE* file, std::string* memory, uint32_t width, uint32_t height, const uint8_t* rgba,
            bool bottom_row_first, ErrorMessage* error) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error, on_error, on_warning);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    snprintf(error->text, sizeof error->text, "out of memory");
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png)) != 0) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  if (file != nullptr)
    png_init_io(png, file);
  else
    png_set_write_fn(png, memory, append_to_string, no_flush);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, kFilters);
  png_set_compression_level(png, kCompressionLevel);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
  png_write_info(png, info);
  size_t row_bytes = size_t{width} * 4;
  for (uint32_t i = 0; i < height; ++i)
    png_write_row(png, rgba + size_t{bottom_row_first ? height - 1 - i : i} * row_bytes);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

std::string encode_png(uint32_t width, uint32_t height, const uint8_t* rgba,
                       bool bottom_row_first) {
  std::string png;
  ErrorMessage message;
  if (!encode(nullptr, &png, width, height, rgba, bottom_row_first, &message)) png.clear();
  return png;
}

bool write_png(const std::string& path, uint32_t width, uint32_t height, const uint8_t* rgba,
               std::string* error, bool bottom_row_first) {
  FILE* file = fopen(path.c_str(), "wb");
  if (file == nullptr) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  struct stat st;
  bool regular = fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode);
  ErrorMessage message;
  bool ok = encode(file, nullptr, width, height, rgba, bottom_row_first, &message);
  // A failed write (a full disk) is libpng's "Write Error", or shows only at
  // fclose for the buffered rest: errno says why.
  std::string why = ferror(file) != 0 ? strerror(errno) : message.text;
  if (fclose(file) != 0 && ok) {
    ok = false;
    why = strerror(errno);
  }
  if (ok) return true;
  *error = path + ": " + why;
  if (regular) remove(path.c_str());  // a partial image; never a device or a pipe
  return false;
}

bool read_png(const std::string& path, uint32_t* width, uint32_t* height,
              std::vector<uint8_t>* rgba, std::string* error, uint64_t max_pixels) {
  // libpng's simplified API: any PNG to RGBA8, its errors in image.message.
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) {
    *error = path + ": " + image.message;
    return false;
  }
  if (uint64_t{image.width} * image.height > max_pixels) {
    png_image_free(&image);
    *error = path + ": " + std::to_string(image.width) + "x" + std::to_string(image.height) +
             " is larger than an image this reads";
    return false;
  }
  image.format = PNG_FORMAT_RGBA;
  rgba->assign(PNG_IMAGE_SIZE(image), 0);
  if (png_image_finish_read(&image, nullptr, rgba->data(), 0, nullptr) == 0) {
    *error = path + ": " + image.message;
    png_image_free(&image);
    return false;
  }
  *width = image.width;
  *height = image.height;
  return true;
}

}  // namespace gltrace::consumers
