// A state snapshot of the replay's driver: the calls that recreate, in a
// fresh replay, the GL objects of the current context's share group and the
// context's own objects and state as they are now, written as the trace
// names things (docs/trace-format.md, "Snapshots"). `gltrace trim` writes
// one before the frames it keeps. Exact where GLES reads back; an object it
// cannot recreate exactly is written as near as it can be and said so
// (SnapshotOut::inexact), never silently.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "format/records.h"
#include "glreplay/session.h"

namespace gltrace::glreplay {

// Where a snapshot's calls go, in order, on the thread and context it was
// taken on.
class SnapshotOut {
 public:
  virtual ~SnapshotOut() = default;
  // One call; ret is null for void functions. Values point into memory
  // valid during the call only.
  virtual void call(uint32_t function, std::span<const format::Value> args,
                    const format::Value* ret) = 0;
  // A Blob for bytes too large to inline; returns its id.
  virtual uint64_t blob(std::string_view bytes) = 0;
  // The object the next call recreates is not exact: why.
  virtual void inexact(const std::string& why) = 0;
  // The calls that follow recreate one object or part of the state
  // ("texture 3", "context 1 state"): for readers that compare snapshots.
  virtual void section(const std::string& /*name*/) {}
  // The size of the draw surface the call just written (an eglMakeCurrent)
  // made current: a replay sizes its surface so (Call.surface_width/height).
  virtual void surface_size(uint32_t /*width*/, uint32_t /*height*/) {}
  // The calls that follow are on this recorded thread, with this Context
  // index current (0: none).
  virtual void begin_thread(uint32_t /*thread*/, uint32_t /*context*/) {}
};

// Runs on the thread of the recorded thread whose context it reads
// (Session::set_thread done), with that context current. with_share_group:
// also the objects the context shares (once per share group). The driver's
// bindings it touches to read are put back.
// False with *error when no context is current.
bool write_snapshot(Session& session, SnapshotOut& out, bool with_share_group, std::string* error);

// Replays `trace` headless up to and including call `last_call` (its seq)
// and writes the snapshot there: for each recorded thread with a context
// current, an eglMakeCurrent of it and the context's state (each share
// group's objects once). driver_dir: the replay's --driver. False with
// *error.
bool snapshot_after_call(const std::string& trace, uint64_t last_call, const std::string& program,
                         const std::string& driver_dir, SnapshotOut& out, std::string* error);

}  // namespace gltrace::glreplay
