#include "common/trusted_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

namespace gltrace {
namespace {

// How the walk works, and why it has no check-then-use race: it starts at /
// and opens one component at a time with openat(parent, name, O_PATH |
// O_NOFOLLOW), so each check (fstat) is made on the very object the next
// step starts from, never on a path that could be re-resolved. A symbolic
// link is not followed by the kernel: its owner is checked, its target read
// with readlinkat and walked the same way (from / or from the directory that
// holds it). The file itself is opened from its verified directory, and its
// identity (device, inode) compared with the checked one. Every directory
// that holds a step is one only root or this user can change, so the path
// returned (no links, . or ..) keeps naming the checked file: loading it by
// that path (dlopen takes no descriptor) cannot be redirected by another
// user, and root and this user could run code here anyway.
constexpr int kMaxSymlinks = 40;

std::string mode_string(mode_t mode) {
  char buffer[16];
  snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

std::string join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// Appends the components of `path` to `pending` so that the first one is at its back.
void push_components(const std::string& path, std::vector<std::string>* pending) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  pending->insert(pending->end(), parts.rbegin(), parts.rend());
}

struct Step {
  int fd;
  std::string path;
};

// The directories walked so far, / first; closes them at the end.
struct Chain {
  std::vector<Step> steps;
  ~Chain() {
    for (const Step& s : steps) close(s.fd);
  }
  void back_to_root() {
    while (steps.size() > 1) {
      close(steps.back().fd);
      steps.pop_back();
    }
  }
};

std::string owner_problem(const struct stat& st, bool root_only, const std::string& what,
                          const std::string& path) {
  if (st.st_uid == 0 || (!root_only && st.st_uid == geteuid())) return "";
  return what + " " + path + " is owned by uid " + std::to_string(st.st_uid) +
         (root_only ? ", not root" : ", neither root nor this user");
}

}  // namespace

TrustResult open_trusted_file(const std::string& path, bool root_only, const char* what,
                              TrustedFile* file, std::string* reason) {
  std::string kind(what);
  std::string full = path;
  if (full.empty()) {
    *reason = "empty " + kind + " path";
    return TrustResult::kRefused;
  }
  if (full[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr) {
      *reason = "cannot resolve " + path + ": " + strerror(errno);
      return TrustResult::kRefused;
    }
    full = std::string(cwd) + "/" + path;
  }
  Chain chain;
  int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    *reason = std::string("cannot open /: ") + strerror(errno);
    return TrustResult::kRefused;
  }
  chain.steps.push_back({root, "/"});
  struct stat st {};
  if (fstat(root, &st) != 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    *reason = kind + " directory / is not root's alone";
    return TrustResult::kRefused;
  }
  std::vector<std::string> pending;
  push_components(full, &pending);
  int links = 0;
  std::string problem;
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (name == ".") continue;
    if (name == "..") {
      if (chain.steps.size() > 1) {
        close(chain.steps.back().fd);
        chain.steps.pop_back();
      }
      continue;
    }
    const Step& dir = chain.steps.back();
    std::string here = join(dir.path, name);
    int fd = openat(dir.fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        *reason = "not found at " + here;
        return TrustResult::kMissing;
      }
      *reason = "cannot open " + here + ": " + strerror(errno);
      return TrustResult::kRefused;
    }
    if (fstat(fd, &st) != 0) {
      *reason = "cannot stat " + here + ": " + strerror(errno);
      close(fd);
      return TrustResult::kRefused;
    }
    const char* type = S_ISLNK(st.st_mode) ? "link" : S_ISDIR(st.st_mode) ? "directory" : "file";
    // The first problem refuses the file, but only once it is found: a
    // file missing from an untrusted directory is just missing.
    if (problem.empty()) problem = owner_problem(st, root_only, kind + " " + type, here);
    if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = ++links > kMaxSymlinks ? -1 : readlinkat(fd, "", target, sizeof target);
      close(fd);
      if (n <= 0 || static_cast<size_t>(n) >= sizeof target) {
        *reason = "cannot follow the link " + here +
                  (links > kMaxSymlinks ? ": too many links" : std::string());
        return TrustResult::kRefused;
      }
      std::string to(target, static_cast<size_t>(n));
      if (to[0] == '/') chain.back_to_root();
      push_components(to, &pending);
      continue;
    }
    bool writable = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if (S_ISDIR(st.st_mode)) {
      // Sticky: others may add entries but not replace ours (checked above).
      if (writable && (st.st_mode & S_ISVTX) == 0 && problem.empty())
        problem = kind + " directory " + here + " is writable by other users (mode " +
                  mode_string(st.st_mode) + ")";
      chain.steps.push_back({fd, here});
      continue;
    }
    close(fd);
    if (!pending.empty()) {  // "file/more"
      *reason = "not found at " + here + " (not a directory)";
      return TrustResult::kMissing;
    }
    if (!S_ISREG(st.st_mode)) {
      *reason = here + " is not a regular file";
      return TrustResult::kRefused;
    }
    if (writable && problem.empty())
      problem = kind + " file " + here + " is writable by other users (mode " +
                mode_string(st.st_mode) + ")";
    if (!problem.empty()) {
      *reason = problem;
      return TrustResult::kRefused;
    }
    // O_NONBLOCK, O_NOCTTY: harmless on a regular file, and what was
    // checked may not be what opens if a trusted user swapped it meanwhile.
    int opened =
        openat(dir.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat now {};
    if (opened < 0 || fstat(opened, &now) != 0 || now.st_dev != st.st_dev ||
        now.st_ino != st.st_ino) {
      *reason = here + " changed while it was checked";
      if (opened >= 0) close(opened);
      return TrustResult::kRefused;
    }
    file->fd = opened;
    file->path = here;
    reason->clear();
    return TrustResult::kOk;
  }
  *reason = path + " is a directory";
  return TrustResult::kRefused;
}

}  // namespace gltrace
