#include "replay/event.h"

#include <chrono>
#include <utility>

namespace gltrace::replay {
namespace {

// How often a waiter re-checks its give_up(); it bounds how late a Ctrl-C is
// seen while the main thread waits for a slow preparation.
constexpr std::chrono::milliseconds kGiveUpPoll{10};

}  // namespace

template <typename Done>
bool Event::wait_(std::unique_lock<std::mutex>& lock, const GiveUp& give_up, Done done) {
  while (!done() && !failed_ && !cancelled_) {
    if (!give_up) {
      cv_.wait(lock);
      continue;
    }
    if (give_up()) return false;
    cv_.wait_for(lock, kGiveUpPoll);
  }
  return true;
}

void Event::reset() {
  state_ = State::kSettingUp;
  prepared_ = false;
  failed_ = false;
  cancelled_ = false;
  message_.clear();
}

void Event::prepared() {
  std::lock_guard<std::mutex> lock(mutex_);
  prepared_ = true;
  cv_.notify_all();
}

void Event::fail(std::string message) {
  std::lock_guard<std::mutex> lock(mutex_);
  failed_ = true;
  message_ = std::move(message);
  cv_.notify_all();
}

Event::Wait Event::ready_to_execute(const GiveUp& give_up) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!wait_(lock, give_up, [this] { return prepared_; })) return Wait::kGaveUp;
  if (failed_) return Wait::kFailed;
  if (cancelled_) return Wait::kCancelled;
  if (state_ == State::kSettingUp) {
    state_ = State::kWaiting;
    cv_.notify_all();
  }
  if (!wait_(lock, give_up, [this] { return state_ == State::kSignaled; })) return Wait::kGaveUp;
  if (cancelled_) return Wait::kCancelled;
  state_ = State::kRunning;
  cv_.notify_all();
  return Wait::kOk;
}

Event::Wait Event::complete(const GiveUp& give_up) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!wait_(lock, give_up, [this] { return state_ == State::kWaiting; })) return Wait::kGaveUp;
  if (failed_) return Wait::kFailed;
  if (cancelled_) return Wait::kCancelled;
  state_ = State::kSignaled;
  cv_.notify_all();
  // No giving up from here: the executing thread is bound to resume.
  wait_(lock, {}, [this] { return state_ == State::kRunning; });
  return cancelled_ && state_ != State::kRunning ? Wait::kCancelled : Wait::kOk;
}

Event::Wait Event::wait_prepared(const GiveUp& give_up) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!wait_(lock, give_up, [this] { return prepared_; })) return Wait::kGaveUp;
  if (failed_) return Wait::kFailed;
  if (cancelled_) return Wait::kCancelled;
  return Wait::kOk;
}

void Event::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
  cv_.notify_all();
}

void Event::poke() {
  std::lock_guard<std::mutex> lock(mutex_);
  cv_.notify_all();
}

Event::State Event::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_;
}

bool Event::is_prepared() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return prepared_;
}

bool Event::failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}

std::string Event::message() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return message_;
}

const char* to_string(Event::State state) {
  switch (state) {
    case Event::State::kSettingUp:
      return "SettingUp";
    case Event::State::kWaiting:
      return "Waiting";
    case Event::State::kSignaled:
      return "Signaled";
    case Event::State::kRunning:
      return "Running";
  }
  return "?";
}

}  // namespace gltrace::replay
