// What the frame hooks (frames.cpp) share with the context hooks.
#pragma once

#include <EGL/egl.h>

#include <cstdint>

#include "trace/session.h"

namespace gltrace::trace {

class CallRecorder;

// The size of `surface`, false when it has none (or no surface).
bool query_surface_size(EGLDisplay display, EGLSurface surface, uint32_t* width, uint32_t* height);
// Call.surface_width/height, and the thread's last recorded size.
void record_surface_size(CallRecorder& rec, uint32_t width, uint32_t height);
// Every read-back of the current context in flight, oldest first: before the
// context stops being current.
void complete_pending_reads(ThreadState* thread);

}  // namespace gltrace::trace
