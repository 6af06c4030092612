// A window's size, known without asking the window system each frame.
//
// The frame hooks (hooks/frames.cpp) notice a resized window at a frame's
// first draw by eglQuerySurface, which on Mesa's X11 platform is a round
// trip to the X server (two: width and height): at hundreds of frames a
// second, a quarter of a light app's frame rate. An X11 window made into a
// surface while recording is watched instead: the layer's own connection to
// the server selects StructureNotify on it, and each ConfigureNotify stores
// the window's size. A frame's check reads that word, and asks the kernel
// (poll(2), no wait) whether an event is waiting on the connection: while
// none is and the word holds the size the trace last recorded, the window
// was not resized, and no query is made. When it differs (or the window is
// not watched: another platform, a surface made before the capture began, a
// window the layer cannot reach), the frame asks as before.
//
// The events are read by the frames' checks, not by a thread of the
// watch's own: a thread would learn of a resize some microseconds after the
// server sent it, and an app that resizes its window and draws at once
// (XResizeWindow, XSync, draw) would draw first. The server sends the
// event to the watch's connection before it answers the app's request that
// follows the resize, so a check after that answer finds it waiting.
//
// libxcb is loaded (dlopen) at the first window that may be an X11 one: the
// layer links no X library, and apps of other platforms load none.
#pragma once

#include <EGL/egl.h>

#include <atomic>
#include <cstdint>

namespace gltrace::trace {

// One watched surface. Entries live as long as the process (a static
// table): a thread may keep a pointer to its surface's.
struct WindowWatch {
  static constexpr uint64_t kWatched = uint64_t{1} << 63;
  std::atomic<const void*> surface{nullptr};
  // kWatched | width << 32 | height while watched, else 0.
  std::atomic<uint64_t> size{0};
  // Under the watch's mutex (window_watch.cpp).
  uint32_t window = 0;
  uint32_t since = 0;  // events older than this request are not the window's latest
};

// `surface` was made for `native_window` (eglCreateWindowSurface's value, or
// what eglCreatePlatformWindowSurface's pointer points at: an X11 window is
// a 32-bit XID either way) and has the size `width` x `height` now. Watched
// when it is an X11 window of $DISPLAY's server of that size; otherwise the
// surface is not (its frames keep asking).
void watch_window_surface(const void* surface, uint64_t native_window, uint32_t width,
                          uint32_t height);

// The watch of `surface`, nullptr when it has none.
const WindowWatch* find_window_watch(const void* surface);

// Whether `surface`'s window still has the size width x height as far as
// its watch knows, events that arrived read first: false when not watched
// (then ask the window system).
bool window_size_known(const WindowWatch* watch, const void* surface, uint32_t width,
                       uint32_t height);

}  // namespace gltrace::trace
