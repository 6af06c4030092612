#include "format/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace gltrace::format {
namespace {

// An open-file-description lock: held by the file description, so closing
// another descriptor of the file in the same process (a viewer reading the
// trace it streams) does not drop it, and every way the process ends does.
bool lock_whole_file(int fd) {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  return fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

std::string_view extension_of(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? std::string_view() : name.substr(dot);
}

std::string safe_process_name(std::string_view process) {
  std::string name;
  for (char c : process.substr(0, 32))
    name +=
        (isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '+') ? c : '_';
  return name.empty() ? "process" : name;
}

std::string error_text(const std::string& what) { return what + ": " + strerror(errno); }

// link() cannot be used on this file system: FAT, some FUSE and network ones.
bool link_unsupported(int error) {
  return error == EPERM || error == EOPNOTSUPP || error == ENOSYS || error == EMLINK;
}

}  // namespace

std::string derived_file_name(const std::string& wanted, std::string_view process, uint32_t pid,
                              unsigned n) {
  size_t slash = wanted.rfind('/');
  size_t name_begin = slash == std::string::npos ? 0 : slash + 1;
  std::string_view ext = extension_of(std::string_view(wanted).substr(name_begin));
  std::string stem = wanted.substr(0, wanted.size() - ext.size());
  std::string name = stem + "." + safe_process_name(process) + "." + std::to_string(pid);
  if (n >= 2) name += "." + std::to_string(n);
  return name + std::string(ext);
}

std::string file_in_directory(const std::string& dir, std::string_view process, uint32_t pid,
                              std::string_view ext) {
  std::string base = dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base + "/" + safe_process_name(process) + "." + std::to_string(pid) + std::string(ext);
}

ClaimedFile claim_new_file(const std::string& wanted, std::string_view process, uint32_t pid,
                           std::string* error) {
  ClaimedFile claimed;
  struct stat st {};
  if (stat(wanted.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    claimed.fd = open(wanted.c_str(), O_WRONLY | O_CLOEXEC);
    if (claimed.fd < 0) *error = error_text("cannot open " + wanted);
    claimed.path = wanted;
    return claimed;
  }
  // The private name, in the same directory (a link stays in one file system).
  static std::atomic<unsigned> serial{0};
  size_t slash = wanted.rfind('/');
  std::string dir = slash == std::string::npos ? "" : wanted.substr(0, slash + 1);
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temp = dir + ".gltrace-claim." + std::to_string(pid) + "." + std::to_string(serial++);
    fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    *error = error_text("cannot create " + wanted);
    return claimed;
  }
  lock_whole_file(fd);  // a file system without locks still gets a file of its own
  bool linked_names = true;
  for (unsigned n = 0; n < 1000; ++n) {
    std::string candidate = n == 0 ? wanted : derived_file_name(wanted, process, pid, n);
    if (linked_names) {
      if (link(temp.c_str(), candidate.c_str()) == 0) {
        unlink(temp.c_str());
        claimed.fd = fd;
        claimed.path = candidate;
        return claimed;
      }
      if (errno == EEXIST) continue;
      if (!link_unsupported(errno)) {
        *error = error_text("cannot create " + candidate);
        break;
      }
      // Created in place instead: the file is briefly there unlocked.
      linked_names = false;
      unlink(temp.c_str());
      close(fd);
      fd = -1;
    }
    int own = open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (own >= 0) {
      lock_whole_file(own);
      claimed.fd = own;
      claimed.path = candidate;
      return claimed;
    }
    if (errno != EEXIST) {
      *error = error_text("cannot create " + candidate);
      return claimed;
    }
  }
  if (error->empty()) *error = "every name derived from " + wanted + " is taken";
  if (linked_names) {
    unlink(temp.c_str());
    close(fd);
  }
  return claimed;
}

bool being_written(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  bool held = fcntl(fd, F_OFD_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
  close(fd);
  return held;
}

Previous replace_finished(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Previous::kNone;
  if (!S_ISREG(st.st_mode)) return Previous::kKept;
  if (being_written(path)) return Previous::kBeingWritten;
  return unlink(path.c_str()) == 0 ? Previous::kRemoved : Previous::kKept;
}

}  // namespace gltrace::format
