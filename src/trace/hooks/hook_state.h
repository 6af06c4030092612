// What a trace hook learns before a call for the hooks after it (the
// `state` of spec/api.toml's hooks): one object per call, on the stack of
// the generated wrapper.
#pragma once

#include <cstdint>

namespace gltrace::trace {

struct ThreadState;

// A swap image read at once (ES 2, a capture's last frame), kept in the
// thread's pixels until the swap's call is recorded: an app killed inside
// the swap would otherwise leave an image of a call the trace does not hold.
struct HeldSwapImage {
  bool held = false;
  uint64_t frame = 0;
  uint64_t seq = 0;
  int32_t width = 0;
  int32_t height = 0;
};

// eglSwapBuffers*: the frame's size, measured before the swap (a replay
// checks it drew the frame so), and its image when read at once.
struct SwapFrame {
  bool sized = false;
  uint32_t width = 0;
  uint32_t height = 0;
  HeldSwapImage held;
};

// glFinish, glReadPixels: whether it ended a frame (a program that never
// swaps).
struct OffscreenFrameEnd {
  bool ends_frame = false;
};

// glUnmapBuffer*: what the app wrote, read while it was still mapped.
struct UnmapWrite {
  ThreadState* thread = nullptr;  // recording: the mapping is forgotten after the call
  uint64_t blob = 0;              // 0: nothing to record
  int64_t offset = 0;
};

}  // namespace gltrace::trace
