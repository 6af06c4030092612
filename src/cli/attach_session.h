// Attaching to a traceable process and streaming its capture into a file:
// what `gltrace attach` and `gltrace view --attach` both do.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "command_line/command_line.h"
#include "control/client.h"

namespace gltrace::cli {

// The process a live command talks to: PID|NAME, --socket, or --tcp with --token.
struct Target {
  std::string what;  // PID or NAME
  std::string tcp;   // HOST:PORT
  control::Endpoint endpoint;
};

// The options every live command shares: PID|NAME, --socket, --tcp, --token.
void add_target_options(CLI::App& app, Target* target);

// Fills in the endpoint for a PID, NAME or --tcp; kExitOk, or the exit
// status after printing why not (messages start "gltrace COMMAND: ").
int resolve_target(const CommandLine& line, const char* command, Target* target);

// The values of --framebuffer (attach, options, view --attach): swap, draw,
// swap,draw and off.
const std::vector<std::string>& framebuffer_choices();
// Sets the framebuffer read-backs one of them asks for.
void parse_framebuffer(const std::string& value, control::CaptureSettings* options);

struct AttachRequest {
  const char* command = "attach";  // messages start "gltrace COMMAND: "
  control::Endpoint endpoint;
  control::Request start;  // its command is set to Start
  // The trace file; empty: a new file in the current directory named
  // PROCESS-PID-YYYYMMDD-HHMMSS.gltrace.
  std::string output;
  double duration = 0;    // seconds; 0: until stopped
  bool progress = false;  // the frames/calls/MB line on stderr
};

class AttachSession {
 public:
  AttachSession();
  ~AttachSession();
  AttachSession(const AttachSession&) = delete;
  AttachSession& operator=(const AttachSession&) = delete;

  // Connects, checks that the process is idle, creates the output (0600),
  // opens the data channel and starts the capture; prints "tracing PROCESS
  // (pid N) ... to FILE". False after printing why, nothing left behind.
  bool start(const AttachRequest& request);
  // The output file (chosen by start() when the request named none).
  const std::string& output() const { return output_; }

  // Copies the capture into the output until it ends (the app exits, is
  // detached, --frames or the duration is reached); `stop` set (from a
  // signal handler or another thread) asks the app to stop, which then
  // finishes the trace. `written` is called after each write. False after
  // printing why when the output could not be written.
  bool stream(const std::atomic<bool>& stop, const std::function<void()>& written = {});

  // Closes the output and reports: reads a full trace back (`wrote N calls,
  // M frames ...`), says when the app stalled or the trace is cut short.
  // kExitOk when the trace is written and complete, else kExitFailure.
  int finish(bool streamed);

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string output_;
};

}  // namespace gltrace::cli
