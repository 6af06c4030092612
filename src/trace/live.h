// Live tracing: the trace layer loaded as a live layer (include/gltrace/
// live_layer.h). Threads switch between the idle and the trace table at
// their switch points, their frame ends (eglSwapBuffers, as the seed's
// libGLES_trace did, or an off-screen program's glFinish or read-back) and
// eglMakeCurrent; a control server (src/control) starts and stops captures
// for a host tool.
#pragma once

#include <cstdint>

#include "gltrace/live_layer.h"

namespace gltrace::trace {

// Called from GltraceLiveLayer_Initialize.
void live_initialize(const GltraceLiveHost* host);

// The idle table's function for `id` (a switch point), or nullptr.
void* live_idle_function(uint32_t id);
// The active table's function for `id` when it is not the plain trace
// wrapper (eglInitialize also starts the control server), or nullptr.
void* live_active_function(uint32_t id);

// After eglSwapBuffers (swap = true) or eglMakeCurrent returned on this
// thread, in either table: joins or leaves the capture. A no-op when the
// trace layer is an ordinary layer.
void live_switch_point(bool swap);

// Whether the process swapped once, as live tracing saw it (false when the
// trace layer is an ordinary layer: its session began with the process).
bool live_process_swapped();

// After glFinish returned on this thread, in either table: at a frame end
// (the off-screen rule of hooks/frames.cpp), joins or leaves the capture.
// `recorded`: the call was recorded and `ends_frame` is the rule's answer;
// else the answer comes from the draws the thread made since its last
// glFinish or eglMakeCurrent (note_unrecorded_draw, trace_decls.h).
void live_finish_point(bool recorded, bool ends_frame);

// Records, as a synthetic eglMakeCurrent, what is current on this thread
// now: the first call a thread records when it joins a capture
// (hooks/contexts.cpp, which knows contexts).
void record_current_binding();

// Stops the control server and finishes a running capture (process exit).
void live_shutdown();

}  // namespace gltrace::trace
