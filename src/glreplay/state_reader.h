// The state worker's state reading: the GL/EGL state current at the call
// it is parked at, as the table spec/gles_state.json lists it (state_table.h),
// and a shader's or program's source, status and log. Runs on that call's
// thread, with its context current. Internal to the state worker.
#pragma once

#include <cstdint>

#include "glreplay/state_query.h"

namespace gltrace::glreplay {

// The "state" reply: call, thread, context (the trace's Context.index of the
// call) and the state.
void read_state(Session& session, uint64_t call, uint32_t thread, uint32_t context,
                StateJson& reply);
// The "shader" reply for the request's "name" (a shader or a program).
void read_shader(Session& session, uint64_t call, const StateJson& request, StateJson& reply);

}  // namespace gltrace::glreplay
