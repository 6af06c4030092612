// gltrace-demo: the small, deterministic GLES 3.0 program that gltrace traces
// and replays in its examples and tests. Linked directly against libEGL and
// libGLESv2 like an ordinary app.
#include <EGL/egl.h>
#include <GLES3/gl3.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "egl_target.h"
#include "scene.h"

namespace {

constexpr int kExitFailure = 1;  // --verify mismatch, GL error, unseen provoked error
constexpr int kExitSetup = 2;    // bad arguments, EGL or GL setup failure

struct Options {
  int frames = 60;
  int width = 320, height = 240;
  demo::Platform platform = demo::Platform::kSurfaceless;
  bool checksum = false, verify = false, provoke_error = false, realtime = false;
  int fps = 0;  // 0: as fast as it can
  int dump_frame = -1;
  std::string dump_file;
};

void usage(FILE* out) {
  std::fputs(
      "usage: gltrace-demo [options]\n"
      "  --frames N            frames to render (default 60)\n"
      "  --size WxH            surface size (default 320x240, each 32..4096)\n"
      "  --platform P          surfaceless (default; pbuffer) or x11 (window, needs DISPLAY)\n"
      "  --checksum            print 'frame N crc 0xXXXXXXXX' (CRC32 of RGBA) per frame\n"
      "  --dump-frame N FILE   write frame N as a binary PPM\n"
      "  --verify              check known pixels of the last frame; exit 1 on mismatch\n"
      "  --provoke-error       make one GL_INVALID_ENUM and check the app sees it\n"
      "  --realtime            animate by wall clock instead of frame index\n"
      "  --fps N               at most N frames per second (pixels stay frame-indexed)\n"
      "  -h, --help            this text\n"
      "exit status: 0 ok, 1 check failed, 2 usage or EGL/GL setup error\n",
      out);
}

bool parse_int(const char* s, int min, int max, int* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > max) return false;
  *out = static_cast<int>(v);
  return true;
}

// Returns false (after printing why) on a bad command line.
bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--frames" && has_value) {
      if (!parse_int(argv[++i], 1, 1000000, &o->frames)) {
        std::fprintf(stderr, "demo: bad --frames '%s'\n", argv[i]);
        return false;
      }
    } else if (a == "--size" && has_value) {
      std::string v = argv[++i];
      size_t x = v.find('x');
      if (x == std::string::npos || !parse_int(v.substr(0, x).c_str(), 32, 4096, &o->width) ||
          !parse_int(v.substr(x + 1).c_str(), 32, 4096, &o->height)) {
        std::fprintf(stderr, "demo: bad --size '%s' (want WxH, each 32..4096)\n", v.c_str());
        return false;
      }
    } else if (a == "--platform" && has_value) {
      std::string v = argv[++i];
      if (v == "surfaceless") {
        o->platform = demo::Platform::kSurfaceless;
      } else if (v == "x11") {
        o->platform = demo::Platform::kX11;
      } else {
        std::fprintf(stderr, "demo: bad --platform '%s' (surfaceless or x11)\n", v.c_str());
        return false;
      }
    } else if (a == "--dump-frame" && i + 2 < argc) {
      if (!parse_int(argv[++i], 0, 1000000, &o->dump_frame)) {
        std::fprintf(stderr, "demo: bad --dump-frame frame '%s'\n", argv[i]);
        return false;
      }
      o->dump_file = argv[++i];
    } else if (a == "--checksum") {
      o->checksum = true;
    } else if (a == "--verify") {
      o->verify = true;
    } else if (a == "--provoke-error") {
      o->provoke_error = true;
    } else if (a == "--fps" && has_value) {
      if (!parse_int(argv[++i], 1, 1000, &o->fps)) {
        std::fprintf(stderr, "demo: bad --fps '%s'\n", argv[i]);
        return false;
      }
    } else if (a == "--realtime") {
      o->realtime = true;
    } else {
      std::fprintf(stderr, "demo: unknown or incomplete option '%s'\n", a.c_str());
      usage(stderr);
      return false;
    }
  }
  if (o->dump_frame >= o->frames) {
    std::fprintf(stderr, "demo: --dump-frame %d but only %d frames\n", o->dump_frame, o->frames);
    return false;
  }
  return true;
}

// CRC-32 (IEEE 802.3, as zlib's crc32), so checksums can be cross-checked with
// any standard tool.
uint32_t crc32(const uint8_t* data, size_t size) {
  static const auto kTable = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

// Binary PPM, top row first (GL rows are bottom-up), alpha dropped.
bool write_ppm(const std::string& path, const std::vector<uint8_t>& rgba, int w, int h) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "demo: cannot open '%s': %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::fprintf(f, "P6\n%d %d\n255\n", w, h);
  std::vector<uint8_t> row(w * 3);
  for (int y = h - 1; y >= 0; --y) {
    for (int x = 0; x < w; ++x) std::memcpy(&row[x * 3], &rgba[(y * w + x) * 4], 3);
    std::fwrite(row.data(), 1, row.size(), f);
  }
  bool ok = std::fclose(f) == 0;
  if (!ok) std::fprintf(stderr, "demo: writing '%s' failed\n", path.c_str());
  return ok;
}

uint32_t pack(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

bool verify(const demo::Scene& scene, float t, const std::vector<uint8_t>& rgba, int w) {
  bool ok = true;
  auto checks = scene.expected_pixels(t);
  for (const auto& c : checks) {
    const uint8_t* got = &rgba[(c.y * w + c.x) * 4];
    for (int k = 0; k < 4; ++k) {
      if (std::abs(got[k] - c.rgba[k]) > c.tolerance) {
        std::fprintf(stderr,
                     "demo: verify FAILED at %s, pixel (%d,%d): expected 0x%08X, got 0x%08X "
                     "(RGBA, tolerance %d)\n",
                     c.what.c_str(), c.x, c.y, pack(c.rgba), pack(got), c.tolerance);
        ok = false;
        break;
      }
    }
  }
  if (ok) std::printf("demo: verify OK (%zu pixels)\n", checks.size());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, &opt)) return kExitSetup;

  demo::EglTarget egl;
  if (!demo::egl_open(opt.platform, opt.width, opt.height, &egl)) {
    demo::egl_close(&egl);
    return kExitSetup;
  }
  demo::Scene scene;
  if (!scene.init(opt.width, opt.height)) {
    scene.destroy();
    demo::egl_close(&egl);
    return kExitSetup;
  }

  int status = 0;
  std::vector<uint8_t> pixels(size_t{4} * opt.width * opt.height);
  uint32_t crc = 0;
  float t = 0;
  int frame = 0;
  auto start = std::chrono::steady_clock::now();
  for (; frame < opt.frames && status == 0; ++frame) {
    // Frame-indexed time by default: identical pixels on every run.
    t = opt.realtime
            ? std::chrono::duration<float>(std::chrono::steady_clock::now() - start).count()
            : frame / 60.f;
    scene.draw(t);

    if (GLenum error = glGetError(); error != GL_NO_ERROR) {
      std::fprintf(stderr, "demo: GL error 0x%04X in frame %d\n", error, frame);
      status = kExitFailure;
    }

    // Read back before the swap: a window's back buffer is undefined after it.
    bool last = frame == opt.frames - 1;
    if (opt.checksum || last || frame == opt.dump_frame) {
      glReadPixels(0, 0, opt.width, opt.height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
      crc = crc32(pixels.data(), pixels.size());
      if (opt.checksum) std::printf("frame %d crc 0x%08x\n", frame, crc);
      if (frame == opt.dump_frame && !write_ppm(opt.dump_file, pixels, opt.width, opt.height)) {
        status = kExitFailure;
      }
    }
    if (opt.fps != 0)  // paced at absolute deadlines: no drift
      std::this_thread::sleep_until(start +
                                    std::chrono::microseconds(1000000LL * (frame + 1) / opt.fps));
    // The error is made before the swap and read after it: a GL error stays
    // until the app reads it, whatever a tracer does at the swap (completing
    // read-backs of the frame's draws, reading the back buffer).
    if (opt.provoke_error && frame == 0) glEnable(0xFFFF);  // not a capability: GL_INVALID_ENUM
    if (!eglSwapBuffers(egl.display, egl.surface)) {
      EGLint error = eglGetError();
      std::fprintf(stderr, "demo: eglSwapBuffers failed in frame %d: %s (0x%04x)\n", frame,
                   demo::egl_error_name(error), static_cast<unsigned>(error));
      status = kExitSetup;
    }
    if (opt.provoke_error && frame == 0) {
      GLenum seen = glGetError();
      if (seen == GL_INVALID_ENUM) {
        std::printf("demo: provoked GL error 0x%04X seen by app\n", seen);
      } else {
        std::fprintf(stderr,
                     "demo: provoked GL error NOT seen by app: glGetError returned 0x%04X, "
                     "expected 0x0500\n",
                     seen);
        status = kExitFailure;
      }
    }
  }

  if (status == 0 && opt.verify && !verify(scene, t, pixels, opt.width)) status = kExitFailure;
  scene.destroy();
  demo::egl_close(&egl);
  std::printf("demo: %d frames %dx%d, final crc 0x%08x\n", frame, opt.width, opt.height, crc);
  return status;
}
