// What the replay engine replays: timestamped increments from a source. The
// engine never looks inside an increment's payload, so it knows nothing of GL
// (or of surfaces): a source makes increments, an Executor runs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

namespace gltrace::replay {

// The source's data for one increment (a decoded call, a buffer update...).
// Executors downcast it. It must own what it needs: it outlives the source's
// read position and is destroyed on whichever engine thread drops it last.
struct IncrementPayload {
  // Ends the payload: `delete this`, unless the source made it in memory of
  // its own (glreplay places a call among its values, saving a malloc and a
  // cross-thread free per call).
  virtual void destroy() { delete this; }

  // The memory it holds, roughly (its values, the bytes it refers to): what
  // a source that keeps payloads (PreloadSource) counts against its budget.
  virtual size_t memory_bytes() const { return 0; }

  // Set by a source that keeps the payload to serve it again (PreloadSource
  // on every loop pass): then the engine's PayloadPtr leaves it alone, and
  // that source ends it. An executor must then not change it.
  bool kept = false;

 protected:
  virtual ~IncrementPayload() = default;
};

struct DestroyPayload {
  void operator()(IncrementPayload* payload) const {
    if (!payload->kept) payload->destroy();
  }
};
using PayloadPtr = std::unique_ptr<IncrementPayload, DestroyPayload>;

struct Increment {
  // The source's number for it (a call number), shown to the user and used by
  // `call N`; it should grow through a pass.
  uint64_t index = 0;
  // Recorded time in ns, any clock: only differences matter, the first
  // increment of a pass is time 0.
  uint64_t timestamp_ns = 0;
  // What it acts on (a context, a surface, a recorded thread): increments of
  // one target execute in order, on one thread with ExecuteOn::kTargetThread
  // (and kTargetThreadInOrder).
  uint32_t target = 0;
  // eglSwapBuffers, or a VSync: ends a frame; frames are counted by these and
  // the manual `n` steps to the next one.
  bool ends_frame = false;
  PayloadPtr payload;
};

enum class SourceResult { kIncrement, kEnd, kError };

// Where increments come from, in order. Called from one thread at a time
// (the replay's calling thread between increments, or ReadAheadSource's
// reader). A source whose next() is slow (reading, decompressing, decoding
// into the payload) is wrapped in a ReadAheadSource, the one read-ahead, so
// the replay's thread never waits on it (or in a PreloadSource, which reads
// it into memory before the replay starts); Executor::prepare() is for work
// on an increment that may run out of order on the engine's workers.
class IncrementSource {
 public:
  virtual ~IncrementSource() = default;

  // kIncrement fills *out; kEnd at the end of the trace; kError (with *error,
  // e.g. "truncated record at offset 1234") when the trace is damaged: the
  // engine replays what came before and stops with that message.
  virtual SourceResult next(Increment* out, std::string* error) = 0;

  // next() on a thread that must not throw (a read-ahead, a preload): an
  // exception becomes kError with its message.
  SourceResult next_caught(Increment* out, std::string* error) noexcept {
    try {
      return next(out, error);
    } catch (const std::exception& e) {
      *error = std::string("exception: ") + e.what();
    } catch (...) {
      *error = "unknown exception";
    }
    return SourceResult::kError;
  }

  // Back to the first increment, for loop mode. The default cannot.
  virtual bool rewind(std::string* error) {
    *error = "this source cannot rewind, so it cannot loop";
    return false;
  }
};

}  // namespace gltrace::replay
