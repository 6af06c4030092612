// What the frame hooks (frames.cpp) share with the context hooks.
#pragma once

#include <EGL/egl.h>

#include <cstdint>

#include "trace/session.h"

namespace gltrace::trace {

class CallRecorder;

// What a context draws to: an EGL surface, or a GLX drawable (its XID as
// `surface`, an X Display* as `display`).
struct Drawable {
  void* display = nullptr;
  void* surface = nullptr;
  bool glx = false;
};

// The size of `drawable`, false when it has none (or no surface).
bool query_surface_size(const Drawable& drawable, uint32_t* width, uint32_t* height);
// A make-current bound `draw` on this thread: its size now (Call.surface_width/
// height), and a check at the first draw (the app may resize the window before
// drawing).
void record_bound_surface(CallRecorder& rec, const Drawable& draw);
// Call.surface_width/height, and the thread's last recorded size.
void record_surface_size(CallRecorder& rec, uint32_t width, uint32_t height);
// Every read-back of the current context in flight, oldest first: before the
// context stops being current.
void complete_pending_reads(ThreadState* thread);

}  // namespace gltrace::trace
