// The generated per-function replay code (codegen/gltrace_codegen/replay.py)
// and the id-indexed table built from it.
#include <vector>

#include "glreplay/args.h"
#include "glreplay/calls.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"
#include "gltrace/api/replay_decls.h"

namespace gltrace::glreplay {

#include "gltrace/api/replay_calls.inc"

std::span<const ReplayEntry> replay_entries() {
  static const std::vector<ReplayEntry> table = [] {
    std::vector<ReplayEntry> t(api::kFunctionIdLimit,
                               ReplayEntry{0, ReplayKind::kNone, nullptr, nullptr});
    for (const ReplayEntry& e : kReplayEntries)
      if (e.id < t.size()) t[e.id] = e;
    return t;
  }();
  return table;
}

const ReplayEntry& replay_entry(uint32_t id) {
  static const std::span<const ReplayEntry> table = replay_entries();
  static const ReplayEntry kNone{0, ReplayKind::kNone, nullptr, nullptr};
  return id < table.size() ? table[id] : kNone;
}

}  // namespace gltrace::glreplay
