// Snapshots from the replay's driver (glstate/snapshot.h is the writer):
// what `gltrace trim` writes before the frames it keeps.
#pragma once

#include <string>

#include "glreplay/session.h"
#include "glstate/snapshot.h"

namespace gltrace::glreplay {

using glstate::SnapshotOut;

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
