// The PNG writer: what a PNG decoder (libpng's) reads back is the
// framebuffer, top row first; the file is compressed; a failure says why
// and leaves no partial file.
#include "consumers/png.h"

#include <gtest/gtest.h>
#include <png.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace gltrace {
namespace {

namespace fs = std::filesystem;
using test::make_temp_dir;

struct Decoded {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;  // top row first
};

Decoded decode(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  Decoded out;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) {
    ADD_FAILURE() << path << ": " << image.message;
    return out;
  }
  image.format = PNG_FORMAT_RGBA;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr) == 0)
    ADD_FAILURE() << path << ": " << image.message;
  out.width = image.width;
  out.height = image.height;
  return out;
}

TEST(Png, DecodesToTheFramebufferTopRowFirst) {
  // 3x2, bottom row first as glReadPixels returns it; every byte different.
  const uint32_t width = 3, height = 2;
  std::vector<uint8_t> bottom_first(width * height * 4);
  for (size_t i = 0; i < bottom_first.size(); ++i) bottom_first[i] = static_cast<uint8_t>(i * 7);
  std::string path = make_temp_dir() + "/small.png";
  std::string error;
  ASSERT_TRUE(consumers::write_png(path, width, height, bottom_first.data(), &error)) << error;
  Decoded png = decode(path);
  EXPECT_EQ(png.width, width);
  EXPECT_EQ(png.height, height);
  std::vector<uint8_t> top_first(bottom_first.begin() + width * 4, bottom_first.end());
  top_first.insert(top_first.end(), bottom_first.begin(), bottom_first.begin() + width * 4);
  EXPECT_EQ(png.rgba, top_first);
}

TEST(Png, IsCompressed) {
  // A rendered-like 320x240 frame: a clear colour, a gradient, an edge.
  const uint32_t width = 320, height = 240;
  std::vector<uint8_t> rgba(width * height * 4);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      uint8_t* p = &rgba[(y * width + x) * 4];
      bool inside = x > 80 && x < 240 && y > 60 && y < 180;
      p[0] = inside ? static_cast<uint8_t>(x) : 30;
      p[1] = inside ? static_cast<uint8_t>(y) : 30;
      p[2] = inside ? 200 : 60;
      p[3] = 255;
    }
  }
  std::string path = make_temp_dir() + "/frame.png";
  std::string error;
  ASSERT_TRUE(consumers::write_png(path, width, height, rgba.data(), &error)) << error;
  EXPECT_LT(fs::file_size(path), rgba.size() / 20);  // stored, it is larger than rgba
  Decoded png = decode(path);
  ASSERT_EQ(png.rgba.size(), rgba.size());
  for (uint32_t y = 0; y < height; ++y)
    ASSERT_TRUE(std::equal(rgba.begin() + (height - 1 - y) * width * 4,
                           rgba.begin() + (height - y) * width * 4,
                           png.rgba.begin() + y * width * 4))
        << "row " << y;
}

TEST(Png, FailuresSayWhyAndLeaveNoFile) {
  uint8_t pixel[4] = {1, 2, 3, 4};
  std::string dir = make_temp_dir();
  std::string error;
  EXPECT_FALSE(consumers::write_png(dir + "/missing/f.png", 1, 1, pixel, &error));
  EXPECT_EQ(error, dir + "/missing/f.png: No such file or directory");

  // libpng refuses the image: its message, and the file it began is gone.
  EXPECT_FALSE(consumers::write_png(dir + "/empty.png", 0, 1, pixel, &error));
  EXPECT_NE(error.find(dir + "/empty.png: "), std::string::npos) << error;
  EXPECT_NE(error.find("width"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir + "/empty.png"));

  // A full disk; the device itself stays.
  EXPECT_FALSE(consumers::write_png("/dev/full", 1, 1, pixel, &error));
  EXPECT_EQ(error, "/dev/full: No space left on device");
  EXPECT_TRUE(fs::exists("/dev/full"));
}

}  // namespace
}  // namespace gltrace
