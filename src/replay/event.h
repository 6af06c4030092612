// The seed's Event: the handshake between the main thread, which decides when
// an increment runs, and the thread that runs it. States, in order:
//   kSettingUp  the increment is being prepared (or its thread is busy)
//   kWaiting    prepared; the executing thread waits for the main thread
//   kSignaled   the main thread said go
//   kRunning    the executing thread really resumed (not merely woken and
//               preempted): complete() returns only now, so the main thread
//               never runs ahead of the work it started.
// A failed preparation marks the Event failed and wakes whoever waits;
// cancel() (a stopping replay) wakes everyone too, so nothing hangs.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

namespace gltrace::replay {

class Event {
 public:
  enum class State { kSettingUp, kWaiting, kSignaled, kRunning };
  enum class Wait {
    kOk,
    kFailed,     // preparation failed: message() says why
    kCancelled,  // the replay is stopping
    kGaveUp,     // the caller's give_up() said so; state unchanged, call again later
  };
  // Checked while waiting, at least every few ms: a signal handler can set
  // what it reads without notifying anyone.
  using GiveUp = std::function<bool()>;

  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Back to a new Event's state, for a slot used again. No other thread may
  // use the Event (so no lock is taken).
  void reset();

  // The preparing worker: done, or failed.
  void prepared();
  void fail(std::string message);

  // The executing thread (seed: readyToExecute): waits until prepared, then
  // kWaiting until signaled, then kRunning and kOk: run the increment now.
  Wait ready_to_execute(const GiveUp& give_up = {});

  // The main thread (seed: complete): waits while kSettingUp, signals, and
  // waits until kRunning. Gives up only before signaling.
  Wait complete(const GiveUp& give_up = {});
  // The main thread, when it executes the increment itself.
  Wait wait_prepared(const GiveUp& give_up = {});

  void cancel();
  // Wakes waiters so they re-check their give_up().
  void poke();

  State state() const;
  bool is_prepared() const;
  bool failed() const;
  std::string message() const;

 private:
  // Waits until done() or a terminal condition; false when give_up() said so.
  template <typename Done>
  bool wait_(std::unique_lock<std::mutex>& lock, const GiveUp& give_up, Done done);

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  State state_ = State::kSettingUp;
  bool prepared_ = false;
  bool failed_ = false;
  bool cancelled_ = false;
  std::string message_;
};

const char* to_string(Event::State state);

}  // namespace gltrace::replay
