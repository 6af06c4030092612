// How each function is replayed: the generated table (one entry per
// function id) of generic calls, hand-written ones, skipped and unsupported
// ones.
#pragma once

#include <cstdint>
#include <span>

namespace gltrace::glreplay {

class Session;
class Args;

enum class ReplayKind : uint8_t {
  kNone,         // no function has this id
  kGeneric,      // generated
  kCustom,       // hand-written (egl_calls.cpp)
  kSkip,         // not replayed: its result was the traced process's
  kUnsupported,  // cannot be replayed yet; `reason` says why
};

using ReplayFn = bool (*)(Session&, Args&);

struct ReplayEntry {
  uint32_t id;
  ReplayKind kind;
  ReplayFn fn;         // kGeneric, kCustom
  const char* reason;  // kUnsupported
};

// The entry of a function id; kind kNone for an id no function has.
const ReplayEntry& replay_entry(uint32_t id);
// Every id's entry below api::kFunctionIdLimit, by id: what the executor
// indexes per call (a call of replay_entry cost a replay ~15 instructions).
std::span<const ReplayEntry> replay_entries();

}  // namespace gltrace::glreplay
