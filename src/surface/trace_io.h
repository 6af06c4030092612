// Reading and writing surface traces (proto/surface.proto). Two file forms:
// a plain serialized `Trace` (what protoc decodes directly), and a stream of
// length-delimited `Increment`s after the 8-byte kStreamMagic, which a
// recorder can append to as it goes and which survives being cut short.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "surface/surface.pb.h"

namespace gltrace::surface {

inline constexpr char kStreamMagic[8] = {'G', 'L', 'S', 'U', 'R', 'F', '1', '\n'};
// No increment of a real trace comes near this (a 4K ARGB buffer's contents
// are 33 MiB); a larger length is damage, refused before allocating.
inline constexpr uint64_t kMaxIncrementBytes = 256u << 20;

// Reads either form into `trace`. On failure returns false and sets `error`
// to a message naming the file and the byte offset. A stream cut inside its
// last increment keeps every complete increment and says so in `warning`.
bool read_trace(const std::string& path, Trace& trace, std::string& error,
                std::string* warning = nullptr);

// Writes a plain `Trace` (decodable with protoc --decode=gltrace.surface.Trace).
bool write_trace(const std::string& path, const Trace& trace, std::string& error);

// Appends increments to a stream file as they happen; each write is flushed
// so a recorder killed mid-run leaves every increment it wrote readable.
class StreamWriter {
 public:
  StreamWriter() = default;
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;
  ~StreamWriter();

  bool open(const std::string& path, std::string& error);
  bool append(const Increment& increment, std::string& error);
  bool close(std::string& error);

 private:
  FILE* file_ = nullptr;
  std::string path_;
  std::string buffer_;
};

}  // namespace gltrace::surface
