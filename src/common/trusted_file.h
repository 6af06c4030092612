// Opening a file that code or configuration is taken from (layers, settings)
// only when no other user could have put it there or could swap it.
#pragma once

#include <string>

namespace gltrace {

enum class TrustResult { kOk, kMissing, kRefused };

struct TrustedFile {
  int fd = -1;       // open for reading; the caller closes it
  std::string path;  // the same file by a path without symbolic links, . or ..
};

// Opens `path` read-only after checking every step to it, by descriptor:
// each directory from / down, each symbolic link on the way and the file
// must belong to root or to this process's effective uid (root only, with
// `root_only`); no directory on the way may be writable by group or others
// unless it is sticky (others then cannot rename or remove the entries we
// pass, which belong to root or us); the file must be a regular file that
// group and others cannot write. `what` names the file in messages
// ("layer": "layer directory /x is writable by other users (mode 0777)").
// kMissing when a step does not exist; kRefused with *reason otherwise.
TrustResult open_trusted_file(const std::string& path, bool root_only, const char* what,
                              TrustedFile* file, std::string* reason);

}  // namespace gltrace
