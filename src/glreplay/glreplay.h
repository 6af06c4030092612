// The replayer's command line, shared by `gltrace replay` and the `glreplay`
// executable.
#pragma once

#include <string>
#include <vector>

namespace gltrace::glreplay {

// The usage text, for a program name given as a string literal.
// clang-format off
#define GLTRACE_GLREPLAY_USAGE(PROGRAM) \
  "usage: " PROGRAM " [OPTIONS] TRACE\n"                                                  \
  "\n"                                                                                    \
  "Replays the EGL/GLES calls of TRACE (a .gltrace file) on this machine's driver,\n"     \
  "headless by default (EGL surfaceless platform: the app's windows become pbuffers\n"    \
  "of the recorded size), at the recorded times unless -n.\n"                             \
  "\n"                                                                                    \
  "  --compare[=T]      compare every framebuffer image the trace captured (gltrace\n"    \
  "                     trace --framebuffer swap|draw|swap,draw: at frame ends, after\n"  \
  "                     draws) with the replay's; T is the largest channel difference\n"  \
  "                     still counted as equal (default 0: exact); exit 1 if an\n"        \
  "                     image differs (each is reported with its call and why)\n"         \
  "  --snapshot FRAMES  write frames N, N-M, N- or all as PNG files to -o DIR\n"          \
  "  -o DIR             where --snapshot writes (created if missing)\n"                   \
  "  --benchmark        as fast as possible (-n), no checks; prints frames/s, calls/s\n"  \
  "  --x11              replay into X11 windows ($DISPLAY) instead of pbuffers\n"         \
  "  --check            load no GL: check every call's pointers and sizes against the\n" \
  "                     bytes the trace holds and print what a replay would refuse\n"   \
  "                     ('call N: would refuse glX: ...'); exit 1 if anything\n"       \
  "  --driver DIR       load the driver's libEGL.so.1 and libGLESv2.so.2 from DIR\n"       \
  "  --state-worker     serve the GL state at any call to `gltrace view`: JSON requests\n"  \
  "                     on stdin, one JSON reply a line on stdout (docs/replay.md)\n"     \
  "  --stop-on-error    stop at the first call that cannot be replayed\n"                 \
  "                     (default: report it as 'call N: ...' and go on)\n"                \
  "  --blob-memory MIB  blob bytes (textures, buffers) kept in memory (default 1024);\n"  \
  "                     past that the least recently used are read again when needed\n"  \
  "replay engine options:\n"                                                              \
  "  -m                 start paused, in manual mode\n"                                   \
  "  -t N               N threads prepare calls ahead (default 0: calls need no\n"        \
  "                     preparing; threads only add a handshake per call)\n"              \
  "  -s TIMESTAMP       switch to manual mode at TIMESTAMP (trace ns; 1.5s, 200ms)\n"     \
  "  -n                 ignore timestamps: replay as fast as possible\n"                  \
  "  -l                 loop forever\n"                                                   \
  "  -h, --help         this help\n"                                                      \
  "Ctrl-C enters manual mode (`h` there lists its commands); a second one exits.\n"       \
  "Exit status: 0 replayed (and every frame matched), 1 a call could not be\n"            \
  "replayed, a frame differs or the trace is damaged, 2 bad usage.\n"
// clang-format on

// Runs a replay; args are the words after the program name. Returns the
// exit status.
int run_replay(const std::vector<std::string>& args, const std::string& program, const char* usage);

}  // namespace gltrace::glreplay
