#include "replay/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace gltrace::replay {
namespace {

constexpr int kMaxThreads = 256;

bool parse_threads(const std::string& text, int* out, std::string* error) {
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < 0 || value > kMaxThreads) {
    *error = "-t wants a number of threads from 0 to " + std::to_string(kMaxThreads) + ", not '" +
             text + "'";
    return false;
  }
  *out = static_cast<int>(value);
  return true;
}

}  // namespace

bool parse_time_spec(const std::string& text, TimeSpec* out, std::string* error) {
  size_t digits_end = 0;
  while (
      digits_end < text.size() &&
      (std::isdigit(static_cast<unsigned char>(text[digits_end])) != 0 || text[digits_end] == '.'))
    ++digits_end;
  std::string number = text.substr(0, digits_end);
  std::string unit = text.substr(digits_end);
  auto bad = [&] {
    *error = "'" + text +
             "' is no time: give trace nanoseconds (as `l` prints them) or an offset "
             "from the start with a unit (1.5s, 200ms, 10us, 500ns)";
    return false;
  };
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1)
    return bad();
  if (unit.empty()) {
    // Absolute timestamps are exact integers: CLOCK_MONOTONIC values do not
    // survive a trip through double.
    if (number.find('.') != std::string::npos) return bad();
    errno = 0;
    unsigned long long value = std::strtoull(number.c_str(), nullptr, 10);
    if (errno != 0 || value > static_cast<unsigned long long>(INT64_MAX)) return bad();
    *out = {static_cast<int64_t>(value), false};
    return true;
  }
  double scale = 0;
  if (unit == "s")
    scale = 1e9;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "ns")
    scale = 1;
  else
    return bad();
  double value = std::strtod(number.c_str(), nullptr) * scale;
  if (!std::isfinite(value) || value > 9e18) return bad();
  *out = {static_cast<int64_t>(std::llround(value)), true};
  return true;
}

ReplayOptions parse_replay_options(int argc, const char* const* argv, std::string* error) {
  ReplayOptions options;
  error->clear();
  auto fail = [&](const std::string& message) {
    *error = message;
    return ReplayOptions{};
  };
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-' || arg[1] == '-') {
      if (!options_done && arg == "--")
        options_done = true;
      else
        options.args.push_back(arg);
      continue;
    }
    // A bundle of our short options ("-mn", "-t4", "-ls 5s"); a token with
    // any letter that is not ours belongs to the front end, whole.
    bool ours = true;
    for (size_t k = 1; k < arg.size(); ++k) {
      char c = arg[k];
      if (std::strchr("mnlh", c) != nullptr) continue;
      if (c == 't' || c == 's') break;  // the rest of the token is its value
      ours = false;
      break;
    }
    if (!ours) {
      options.args.push_back(arg);
      continue;
    }
    for (size_t k = 1; k < arg.size(); ++k) {
      char c = arg[k];
      if (c == 'm') {
        options.manual = true;
      } else if (c == 'n') {
        options.wait = false;
      } else if (c == 'l') {
        options.loops = 0;
      } else if (c == 'h') {
        options.help = true;
      } else {  // 't' or 's': the value is the rest of the token or the next argument
        std::string value = arg.substr(k + 1);
        if (value.empty()) {
          if (i + 1 >= argc) return fail(std::string("-") + c + " needs a value");
          value = argv[++i];
        }
        if (c == 't') {
          if (!parse_threads(value, &options.threads, error)) return fail(*error);
        } else {
          TimeSpec at;
          if (!parse_time_spec(value, &at, error)) return fail("-s: " + *error);
          options.stop_at = at;
        }
        break;
      }
    }
  }
  return options;
}

void add_replay_options(CLI::App& app, ReplayOptions* options) {
  const std::string group = "replay engine options";
  app.add_flag_callback(
         "-m", [options] { options->manual = true; }, "start paused, in manual mode")
      ->group(group);
  app.add_option_function<std::string>(
         "-t",
         [options](const std::string& text) {
           std::string error;
           if (!parse_threads(text, &options->threads, &error)) throw CLI::ValidationError(error);
         },
         "N threads prepare calls ahead (default " + std::to_string(options->threads) +
             (options->threads == 0 ? ": each is prepared just before it runs)" : ")"))
      ->type_name("N")
      ->group(group);
  app.add_option_function<std::string>(
         "-s",
         [options](const std::string& text) {
           TimeSpec at;
           std::string error;
           if (!parse_time_spec(text, &at, &error)) throw CLI::ValidationError("-s: " + error);
           options->stop_at = at;
         },
         "switch to manual mode at TIMESTAMP: trace nanoseconds, or an offset from the start "
         "with a unit (1.5s, 200ms)")
      ->type_name("TIMESTAMP")
      ->group(group);
  app.add_flag_callback(
         "-n", [options] { options->wait = false; },
         "ignore timestamps: replay as fast as possible")
      ->group(group);
  app.add_flag_callback(
         "-l", [options] { options->loops = 0; }, "loop forever")
      ->group(group);
}

const char* replay_options_help() {
  return "  -m            start paused, in manual mode\n"
         "  -t N          N worker threads prepare increments ahead of time (default 3;\n"
         "                0: prepare each one just before it runs)\n"
         "  -s TIMESTAMP  switch to manual mode at TIMESTAMP: trace nanoseconds, or an\n"
         "                offset from the start with a unit (1.5s, 200ms)\n"
         "  -n            ignore timestamps: replay as fast as possible\n"
         "  -l            loop forever\n"
         "  -h            this help\n"
         "Ctrl-C while replaying enters manual mode; a second Ctrl-C exits.\n";
}

const char* manual_help_text() {
  return "Manual mode commands (Enter repeats the last one; Ctrl-C exits):\n"
         "  n [COUNT]     run to the end of the next frame (its eglSwapBuffers / VSync)\n"
         "  ni [COUNT]    run the next increment (one call)\n"
         "  c             continue replaying at the recorded times\n"
         "  c MS          continue for MS milliseconds of trace time\n"
         "  s TIMESTAMP   continue to TIMESTAMP: trace nanoseconds as `l` prints them,\n"
         "                or an offset from the start with a unit (1.5s, 200ms)\n"
         "  f N           continue to the start of frame N (frames count from 0)\n"
         "  call N        continue to call N (stop before it runs)\n"
         "  l             print the current time and position\n"
         "  info          current call, frame and target (context)\n"
         "  snap FILE     save the current framebuffer to FILE (PNG)\n"
         "  h             this help\n"
         "  q             quit\n";
}

}  // namespace gltrace::replay
