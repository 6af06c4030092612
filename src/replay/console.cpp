#include "replay/console.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace gltrace::replay {
namespace {

bool parse_count(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) return false;
  *out = value;
  return true;
}

}  // namespace

bool parse_command(const std::string& line, Command* out, std::string* error) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  *out = Command{};
  if (words.empty()) {
    *error = "empty command";
    return false;
  }
  const std::string& name = words[0];
  auto args_must_be = [&](size_t low, size_t high) {
    if (words.size() - 1 >= low && words.size() - 1 <= high) return true;
    *error =
        "'" + name + "' takes " +
        (low == high ? std::to_string(low) : std::to_string(low) + " or " + std::to_string(high)) +
        " argument" + (high == 1 ? "" : "s") + "; h lists the commands";
    return false;
  };
  auto count_arg = [&](const char* what) {
    if (parse_count(words[1], &out->count)) return true;
    *error = "'" + name + "' wants " + what + ", not '" + words[1] + "'";
    return false;
  };

  using Kind = Command::Kind;
  if (name == "n" || name == "next" || name == "ni" || name == "nexti") {
    out->kind = name == "n" || name == "next" ? Kind::kNext : Kind::kNextI;
    if (!args_must_be(0, 1)) return false;
    if (words.size() == 2 && !count_arg("a count")) return false;
    if (out->count == 0) out->count = 1;
    return true;
  }
  if (name == "c" || name == "continue") {
    out->kind = Kind::kContinue;
    if (!args_must_be(0, 1)) return false;
    if (words.size() == 2) {
      char* end = nullptr;
      double ms = std::strtod(words[1].c_str(), &end);
      if (*end != '\0' || !std::isfinite(ms) || ms < 0 || ms > 1e12) {
        *error = "'c' wants milliseconds, not '" + words[1] + "'";
        return false;
      }
      out->ms = ms;
    }
    return true;
  }
  if (name == "s") {
    out->kind = Kind::kUntil;
    return args_must_be(1, 1) && parse_time_spec(words[1], &out->time, error);
  }
  if (name == "f" || name == "frame") {
    out->kind = Kind::kFrame;
    return args_must_be(1, 1) && count_arg("a frame number");
  }
  if (name == "call") {
    out->kind = Kind::kCall;
    return args_must_be(1, 1) && count_arg("a call number");
  }
  if (name == "snap") {
    out->kind = Kind::kSnap;
    if (!args_must_be(1, 1)) return false;
    out->path = words[1];
    return true;
  }
  struct Simple {
    const char* name;
    Kind kind;
  };
  static const Simple kSimple[] = {{"l", Kind::kList}, {"info", Kind::kInfo},
                                   {"h", Kind::kHelp}, {"help", Kind::kHelp},
                                   {"q", Kind::kQuit}, {"quit", Kind::kQuit}};
  for (const Simple& simple : kSimple) {
    if (name != simple.name) continue;
    out->kind = simple.kind;
    return args_must_be(0, 0);
  }
  *error = "unknown command '" + name + "'; h lists the commands";
  return false;
}

LineReader::Result LineReader::read_line(std::string* line, int interrupt_fd, int wake_fd) {
  for (;;) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      *line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return Result::kLine;
    }
    if (eof_) {
      if (buffer_.empty()) return Result::kEof;
      *line = std::move(buffer_);  // a last line without its newline
      buffer_.clear();
      return Result::kLine;
    }
    pollfd fds[3] = {{fd_, POLLIN, 0}, {interrupt_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return Result::kEof;
    }
    // Ctrl-C first: it must win over typed-ahead input.
    if (interrupt_fd >= 0 && (fds[1].revents & POLLIN) != 0) return Result::kInterrupt;
    if (wake_fd >= 0 && (fds[2].revents & POLLIN) != 0) return Result::kWake;
    if (fds[0].revents == 0) continue;
    char chunk[4096];
    ssize_t got = read(fd_, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0)
      eof_ = true;
    else
      buffer_.append(chunk, static_cast<size_t>(got));
  }
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;
    done += static_cast<size_t>(wrote);
  }
}

}  // namespace gltrace::replay
