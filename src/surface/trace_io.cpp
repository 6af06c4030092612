#include "surface/trace_io.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace gltrace::surface {
namespace {

bool read_file(const std::string& path, std::string& bytes, std::string& error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    ::close(fd);
    return false;
  }
  // Memory grows with the file's real size, never with a length it claims.
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(done);
  return true;
}

bool read_stream(const std::string& path, std::string_view bytes, Trace& trace, std::string& error,
                 std::string* warning) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.Skip(sizeof kStreamMagic);
  while (true) {
    const uint64_t offset = static_cast<uint64_t>(in.CurrentPosition());
    if (offset == bytes.size()) return true;
    uint64_t length = 0;
    const bool have_length = in.ReadVarint64(&length);
    if (have_length && length > kMaxIncrementBytes) {
      error = path + ": increment at byte " + std::to_string(offset) + " claims " +
              std::to_string(length) + " bytes, more than the limit of " +
              std::to_string(kMaxIncrementBytes);
      return false;
    }
    if (!have_length || length > bytes.size() - static_cast<uint64_t>(in.CurrentPosition())) {
      // A recorder killed mid-write: keep what is complete.
      if (warning) {
        *warning = path + ": cut inside the increment at byte " + std::to_string(offset) +
                   "; read the " + std::to_string(trace.increment_size()) +
                   " complete increments before it";
      }
      return true;
    }
    auto limit = in.PushLimit(static_cast<int>(length));
    if (!trace.add_increment()->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      error = path + ": the increment at byte " + std::to_string(offset) + " does not decode";
      return false;
    }
    in.PopLimit(limit);
  }
}

}  // namespace

bool read_trace(const std::string& path, Trace& trace, std::string& error, std::string* warning) {
  std::string bytes;
  if (!read_file(path, bytes, error)) return false;
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    error = path + ": larger than 2 GiB; record it as a stream of increments";
    return false;
  }
  trace.Clear();
  if (bytes.size() >= sizeof kStreamMagic &&
      std::memcmp(bytes.data(), kStreamMagic, sizeof kStreamMagic) == 0) {
    return read_stream(path, bytes, trace, error, warning);
  }
  if (!trace.ParseFromString(bytes)) {
    error = path +
            ": not a surface trace (neither a gltrace.surface.Trace message nor a "
            "stream of increments)";
    return false;
  }
  return true;
}

bool write_trace(const std::string& path, const Trace& trace, std::string& error) {
  std::string bytes;
  if (!trace.SerializeToString(&bytes)) {
    error = path + ": the trace does not serialize (larger than 2 GiB?)";
    return false;
  }
  FILE* f = std::fopen(path.c_str(), "wbe");
  if (!f) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) {
    error = path + ": write failed: " + std::strerror(errno);
    return false;
  }
  return true;
}

StreamWriter::~StreamWriter() {
  std::string ignored;
  close(ignored);
}

bool StreamWriter::open(const std::string& path, std::string& error) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "wbe");
  if (!file_ || std::fwrite(kStreamMagic, 1, sizeof kStreamMagic, file_) != sizeof kStreamMagic ||
      std::fflush(file_) != 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool StreamWriter::append(const Increment& increment, std::string& error) {
  buffer_.clear();
  {
    google::protobuf::io::StringOutputStream out(&buffer_);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.WriteVarint64(increment.ByteSizeLong());
    if (!increment.SerializeToCodedStream(&coded)) {
      error = path_ + ": an increment does not serialize";
      return false;
    }
  }
  if (!file_ || std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size() ||
      std::fflush(file_) != 0) {
    error = path_ + ": write failed: " + std::strerror(errno);
    return false;
  }
  return true;
}

bool StreamWriter::close(std::string& error) {
  if (!file_) return true;
  const bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok) error = path_ + ": close failed: " + std::strerror(errno);
  return ok;
}

}  // namespace gltrace::surface
