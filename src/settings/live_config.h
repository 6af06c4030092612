// Per-process live tracing: the analogue of Android's debug.egl.trace,
// debug.egl.debug_proc and debug.egl.debug_portname. Plain logic: the loader
// and the trace layer both decide from the same settings and environment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "settings/settings.h"

namespace gltrace::settings {

// Setting names; the environment variable in parentheses wins over each.
inline constexpr char kLiveTrace[] = "debug.gltrace.trace";     // (GLTRACE_LIVE) mode
inline constexpr char kLiveProc[] = "debug.gltrace.proc";       // (GLTRACE_LIVE_PROC)
inline constexpr char kLiveStart[] = "debug.gltrace.start";     // (GLTRACE_LIVE_START)
inline constexpr char kLiveSocket[] = "debug.gltrace.socket";   // (GLTRACE_CONTROL_SOCKET)
inline constexpr char kLiveTcp[] = "debug.gltrace.tcp";         // (GLTRACE_CONTROL_TCP)
inline constexpr char kLiveOutput[] = "debug.gltrace.output";   // (GLTRACE_TRACE_FILE)
inline constexpr char kLiveFrames[] = "debug.gltrace.frames";   // (GLTRACE_LIVE_FRAMES)
inline constexpr char kShadowMb[] = "debug.gltrace.shadow_mb";  // (GLTRACE_SHADOW_MB)
// Copies of compressed uploads a traceable process keeps for snapshots, by
// default at most this many MiB.
inline constexpr uint64_t kDefaultShadowMb = 256;
inline constexpr char kFlight[] = "debug.gltrace.flight";       // (GLTRACE_FLIGHT)
inline constexpr char kFlightMb[] = "debug.gltrace.flight_mb";  // (GLTRACE_FLIGHT_MB)
inline constexpr char kFlightWatchdog[] =
    "debug.gltrace.flight_watchdog";  // (GLTRACE_FLIGHT_WATCHDOG)
inline constexpr uint64_t kDefaultFlightMb = 256;
inline constexpr double kDefaultFlightWatchdogS = 10;

struct LiveConfig {
  bool enabled = false;      // this process is traceable
  std::string mode = "off";  // full, log, error, systrace (what a start records)
  bool start_now = false;    // record from the first call, else wait for a host
  // A start of its own while the app runs, into `output`, as an attach
  // would start it (the trace begins with a snapshot): at the app's frame
  // start_frame, or start_after_s seconds after the layer loaded (0: none).
  uint64_t start_frame = 0;
  double start_after_s = 0;
  // Or each time this signal (SIGUSR1, SIGUSR2) arrives, a capture starts,
  // and the next one stops it (0: none).
  int start_signal = 0;
  uint64_t max_frames = 0;  // a start of its own stops after this many frames (0: no limit)
  // The memory bound of the copies of uploads GLES cannot read back (MiB; 0: none kept).
  uint64_t shadow_mb = kDefaultShadowMb;
  // The flight recorder (trace/flight.h): keep at least flight_frames
  // frames in memory (0: off), within flight_mb MiB, and write them on a
  // crash, a hang longer than flight_watchdog_s (0: no watchdog), the
  // start signal, or a host's request.
  uint64_t flight_frames = 0;
  uint64_t flight_mb = kDefaultFlightMb;
  double flight_watchdog_s = kDefaultFlightWatchdogS;
  std::string output;       // where a start "now" records: a pattern or a directory
  std::string socket_name;  // control socket name ("" = gltrace-PID)
  int tcp_port = -1;        // loopback TCP listener port (0 = any), -1 = none
  std::string source;       // where the decision came from, for the log
  std::string error;        // a value that was ignored, and why
};

// A lookup of an environment variable (nullptr when unset or not trusted).
using EnvLookup = const char* (*)(const char* name);

// mode: off (default), full, log, error or systrace.
// proc: the executable names it applies to, ':'-separated; a name ending in
//   '*' is a prefix; empty or unset: every process.
// start: "attach" (default: traceable, idle until a host attaches), "now",
//   "frame:N" (at the app's frame N, N >= 1), "after:S" (S > 0 seconds in)
//   or "signal:USR1" / "signal:USR2" (each signal starts or stops a capture).
// frames: how many frames a start of the process's own records (0: all).
// shadow_mb: the bound of the copies of compressed uploads kept for
//   snapshots, in MiB (0: none kept; their textures are then not exact).
// flight: frames the flight recorder keeps (0: none); any other number makes
//   the process traceable in full mode even without a mode (a text mode
//   refuses it). flight_mb: its bound in MiB (>= 1); flight_watchdog: the
//   seconds a frame may take before it writes a trace (0: no watchdog).
// output: the file a "now" start records to (%p, %n), or a directory.
// socket: a plain file name under $XDG_RUNTIME_DIR/gltrace.
// tcp: a port number (0..65535) for a 127.0.0.1 listener with a token.
LiveConfig choose_live_config(const Values& values, EnvLookup env, const std::string& process_name);

// A start value's frame, seconds or signal; false when it is none of the
// forms above (a start of "attach" or "now" leaves all 0).
bool parse_live_start(std::string_view value, uint64_t* frame, double* seconds, int* signal);

// A number of seconds: a decimal, 0 <= S < 1e7 (after:S and flight_watchdog);
// false for anything else.
bool parse_seconds(std::string_view value, double* seconds);

// True when process_name matches the ':'-separated list (names or prefix*).
bool process_matches(const std::string& list, const std::string& process_name);

}  // namespace gltrace::settings
