// Ctrl-C while a replay runs: a SIGINT handler that counts presses and writes
// to a self-pipe (the only safe way out of a handler), installed by the
// constructor and the previous handler restored by the destructor. Only one
// watch is active in a process at a time; a second one stays inactive.
// Internal to the engine.
#pragma once

#include <cstdint>

namespace gltrace::replay {

class SigintWatch {
 public:
  SigintWatch();
  ~SigintWatch();
  SigintWatch(const SigintWatch&) = delete;
  SigintWatch& operator=(const SigintWatch&) = delete;

  bool active() const { return active_; }
  // Readable after a press; -1 when inactive.
  int fd() const;
  // Presses not yet consumed. A third unconsumed press (the replay is stuck
  // and did not react to two) restores the default action and re-raises, so
  // Ctrl-C always ends a hung process.
  uint64_t pending() const;
  void consume();
  // Empties the self-pipe (the counts are the truth; the pipe only wakes).
  void drain();

 private:
  bool active_ = false;
};

}  // namespace gltrace::replay
