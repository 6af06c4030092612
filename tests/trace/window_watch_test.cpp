// The X11 window watch (src/trace/window_watch.h) against a private Xvfb:
// a resize, by the window's owner or another client, is known as soon as
// the client that made it has the server's answer to its next request (the
// frame's check reads the event then: no thread to wait for); what is not
// an X11 window of the surface's size is not watched; a forked child
// neither watches nor takes its parent's events. Each test has a server of
// its own: the watch connects again when the one it had went away.
#include "trace/window_watch.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include <cstdint>
#include <cstdlib>

#include "support/xvfb.h"

namespace gltrace::trace {
namespace {

using test::XvfbServer;

// A client of the server: the app, or another one (a window manager).
class Client {
 public:
  explicit Client(const std::string& display) : c_(xcb_connect(display.c_str(), nullptr)) {}
  ~Client() { xcb_disconnect(c_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  bool ok() const { return xcb_connection_has_error(c_) == 0; }

  uint32_t create_window(uint16_t width, uint16_t height) {
    const xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c_)).data;
    uint32_t window = xcb_generate_id(c_);
    xcb_create_window(c_, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, width, height, 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, 0, nullptr);
    xcb_map_window(c_, window);
    sync();
    return window;
  }
  void resize(uint32_t window, uint32_t width, uint32_t height) {
    const uint32_t size[] = {width, height};
    xcb_configure_window(c_, window, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, size);
    sync();
  }
  void move(uint32_t window, uint32_t x, uint32_t y) {
    const uint32_t position[] = {x, y};
    xcb_configure_window(c_, window, XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, position);
    sync();
  }
  void destroy(uint32_t window) {
    xcb_destroy_window(c_, window);
    sync();
  }
  // Returns once the server has done every request sent (XSync).
  void sync() { free(xcb_get_input_focus_reply(c_, xcb_get_input_focus(c_), nullptr)); }

 private:
  xcb_connection_t* c_;
};

// Stands for an EGLSurface: the watch only compares handles.
int g_surfaces[4];

class WindowWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(xvfb_.display().empty());
    setenv("DISPLAY", xvfb_.display().c_str(), 1);
  }
  XvfbServer xvfb_;
};

TEST_F(WindowWatchTest, AResizeByTheAppOrAnotherClientIsKnownAtOnce) {
  Client app(xvfb_.display()), other(xvfb_.display());
  ASSERT_TRUE(app.ok() && other.ok());
  const void* surface = &g_surfaces[0];
  uint32_t window = app.create_window(320, 200);
  watch_window_surface(surface, window, 320, 200);
  const WindowWatch* watch = find_window_watch(surface);
  ASSERT_NE(watch, nullptr);
  EXPECT_TRUE(window_size_known(watch, surface, 320, 200));
  EXPECT_FALSE(window_size_known(watch, surface, 320, 240));
  EXPECT_FALSE(window_size_known(watch, &g_surfaces[1], 320, 200));  // another surface
  // No wait between the resize's answer and the check, many times over.
  for (uint32_t k = 0; k < 200; ++k) {
    uint32_t width = 100 + k, height = 300 - k;
    (k % 2 == 0 ? app : other).resize(window, width, height);
    EXPECT_FALSE(window_size_known(watch, surface, 320, 200)) << k;
    ASSERT_TRUE(window_size_known(watch, surface, width, height)) << k;
  }
  // Moved, not resized: still known.
  uint32_t width = 100 + 199, height = 300 - 199;
  other.move(window, 10, 20);
  EXPECT_TRUE(window_size_known(watch, surface, width, height));
  // Destroyed: no longer watched.
  app.destroy(window);
  EXPECT_FALSE(window_size_known(watch, surface, width, height));
}

TEST_F(WindowWatchTest, WhatIsNotAnX11WindowOfTheSurfacesSizeIsNotWatched) {
  Client app(xvfb_.display());
  ASSERT_TRUE(app.ok());
  uint32_t window = app.create_window(320, 200);
  // Another platform's window (a pointer).
  const void* surface = &g_surfaces[0];
  watch_window_surface(surface, reinterpret_cast<uintptr_t>(&window), 320, 200);
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 320, 200));
  // What a Wayland wl_egl_window starts with (its version), read as an id.
  watch_window_surface(surface, 3, 320, 200);
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 320, 200));
  // No such window on this server.
  watch_window_surface(surface, 0x1ffffff0, 320, 200);
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 320, 200));
  // A window of another size than the surface's.
  watch_window_surface(surface, window, 64, 64);
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 64, 64));
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 320, 200));
  // The right one; then the handle made again for another platform's window
  // (the driver reused it): that watch ends.
  watch_window_surface(surface, window, 320, 200);
  EXPECT_TRUE(window_size_known(find_window_watch(surface), surface, 320, 200));
  watch_window_surface(surface, uint64_t{1} << 40, 320, 200);
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 320, 200));
  // A snapshot's call names no window: the watch stays.
  watch_window_surface(surface, window, 320, 200);
  watch_window_surface(surface, 0, 320, 200);
  EXPECT_TRUE(window_size_known(find_window_watch(surface), surface, 320, 200));
}

TEST_F(WindowWatchTest, AForkedChildNeitherWatchesNorTakesItsParentsEvents) {
  Client app(xvfb_.display());
  ASSERT_TRUE(app.ok());
  const void* surface = &g_surfaces[2];
  uint32_t window = app.create_window(320, 200);
  watch_window_surface(surface, window, 320, 200);
  const WindowWatch* watch = find_window_watch(surface);
  ASSERT_TRUE(window_size_known(watch, surface, 320, 200));
  // The event of this resize waits on the watch's socket, unread.
  app.resize(window, 200, 150);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // No watch here (its frames ask): the socket is the parent's.
    bool known =
        window_size_known(watch, surface, 320, 200) || window_size_known(watch, surface, 200, 150);
    _exit(known ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(window_size_known(watch, surface, 200, 150));
  app.resize(window, 400, 300);
  EXPECT_TRUE(window_size_known(watch, surface, 400, 300));
}

TEST(WindowWatch, WithoutAnX11DisplayNothingIsWatched) {
  unsetenv("DISPLAY");
  const void* surface = &g_surfaces[3];
  watch_window_surface(surface, 0x200001, 320, 200);
  EXPECT_FALSE(window_size_known(find_window_watch(surface), surface, 320, 200));
}

}  // namespace
}  // namespace gltrace::trace
