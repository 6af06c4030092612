// The viewer's handle on one state worker process: `gltrace replay
// --state-worker TRACE` (protocol A of docs/viewer.md) as a child process on
// pipes. Started on the first
// request, kept running (paused at the last call asked for), restarted when
// it died; one request at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gltrace::view {

class WorkerProcess {
 public:
  // `command`: the worker's argv without the trace (executable first).
  WorkerProcess(std::vector<std::string> command, std::string trace);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends {"op":..., ...} (the id is added) and returns the reply; the
  // bytes of its binary frame, if it has one, are its "bytes" (a JSON
  // binary value). When the
  // worker cannot run, dies or breaks the protocol: throws QueryError 503
  // saying why. A reply with "ok": false is returned as it is.
  nlohmann::json request(nlohmann::json request);
  // goto (skipped when the worker is already there), then the request; the
  // goto reply in *go (see go_to).
  nlohmann::json request_at(uint64_t call, nlohmann::json request, nlohmann::json* go);
  // Moves the worker to `call` and returns the goto reply (call, replayed,
  // restarted, ms, warnings; "ok": false and "error" when the worker refused)
  // with "from": the call it went on from, null when it replayed from the
  // trace's start (a new worker, or one that went backward). Throws as
  // request() does.
  nlohmann::json go_to(uint64_t call);
  // The call it is parked at; nullopt before its first goto, after a failed
  // one, or when it died (which this notices).
  std::optional<uint64_t> position();
  // Its process id (-1: not running); for the viewer's worker list.
  pid_t pid();

  // Replies bigger than this end the worker (a texture PNG, a 16 MiB buffer,
  // fit well below it).
  static constexpr size_t kMaxReplyBytes = size_t{64} << 20;

 private:
  void start();  // throws QueryError
  // Ends the worker (EOF, then SIGKILL after half a second); `why` (null:
  // a normal end) and its exit status go to last_failure_. reaped_status:
  // the status when waitpid already reaped it.
  void stop(const char* why, const int* reaped_status = nullptr);
  void reap_if_ended();
  nlohmann::json exchange(nlohmann::json request);
  // The bytes after a reply line: reply["bytes"] (their count) becomes them.
  void read_frame(nlohmann::json& reply);
  nlohmann::json go_to_locked(uint64_t call);
  std::string stderr_tail();

  std::vector<std::string> command_;
  std::string trace_;
  std::mutex mutex_;  // one request at a time
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffered_;  // read from the worker, not yet a whole line
  int64_t next_id_ = 1;
  bool at_call_valid_ = false;
  uint64_t at_call_ = 0;
  std::string last_failure_;

  std::thread stderr_thread_;
  std::mutex stderr_mutex_;
  std::string stderr_head_, stderr_tail_;
};

}  // namespace gltrace::view
