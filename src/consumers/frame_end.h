// The one rule by which every reader counts a trace's frames (info, stats,
// dump, frames, view, replay; docs/trace-format.md, "Frames").
#pragma once

#include "format/records.h"
#include "gltrace/api/roles.h"

namespace gltrace::consumers {

// Whether the call ends a frame: a swap (spec/api.toml's role swap), or a
// glFinish or glReadPixels (role ends_frame) the trace layer marked
// ends_frame (an off-screen program's frame end). A frame is counted at
// this call, not at its Frame record: the record follows the call and the
// swap's image, often in the thread's next chunk, which a trace cut short
// may lack, while the call is there and a replay replays it.
inline bool ends_frame(const format::Call& call) {
  return api::has_role(call.function, api::kRoleSwap) ||
         (call.ends_frame && api::has_role(call.function, api::kRoleEndsFrame));
}

}  // namespace gltrace::consumers
