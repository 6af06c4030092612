// The state worker's read-backs at the call it is parked at: the bound
// draw framebuffer's color image, a texture level (both as PNG), a buffer's
// bytes, a draw's vertices decoded from its buffers. The reply's JSON says what they are; the bytes
// travel apart from it (state_worker.h's binary frames), never inside the JSON. Runs on that call's
// thread, with its context current. Internal to the state worker.
#pragma once

#include <cstdint>
#include <string>

#include "glreplay/state_query.h"

namespace gltrace::glreplay {

// "framebuffer": width, height, framebuffer (null: the window); *bytes the PNG.
void read_back_framebuffer(Session& session, uint64_t call, StateJson& reply, std::string* bytes);
// "texture" (name, target, level, layer, face): width, height,
// internal_format; *bytes the PNG.
void read_back_texture(Session& session, uint64_t call, const StateJson& request, StateJson& reply,
                       std::string* bytes);
// "buffer" (name, offset, size): size, buffer_size; *bytes the bytes read.
void read_back_buffer(Session& session, uint64_t call, const StateJson& request, StateJson& reply,
                      std::string* bytes);
// "vertices" (vertices, or index_type, index_offset, first, count; and
// base_vertex): attributes and rows, the draw's vertex table decoded from
// the buffers of its enabled attributes.
void read_back_vertices(Session& session, uint64_t call, const StateJson& request,
                        StateJson& reply);

}  // namespace gltrace::glreplay
