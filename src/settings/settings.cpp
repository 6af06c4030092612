#include "settings/settings.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/process.h"
#include "common/trusted_file.h"

namespace gltrace::settings {
namespace {

constexpr char kSystemDefault[] = "/etc/gltrace/settings.conf";
constexpr char kRelativeFile[] = "gltrace/settings.conf";
// A hostile file could otherwise produce half a million messages.
constexpr int kMaxReportedErrors = 20;

// strerror() is not thread-safe and we run inside arbitrary, threaded apps.
std::string errno_text(int err) {
  char buffer[128];
  return strerror_r(err, buffer, sizeof buffer);  // GNU variant: returns the text
}

// Names from a hostile file are echoed in messages: keep them short and printable.
std::string printable(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMax) out += "...";
  return out;
}

void append_line(std::string* errors, const std::string& line) {
  if (errors == nullptr || line.empty()) return;
  if (!errors->empty() && errors->back() != '\n') *errors += '\n';
  *errors += line;
}

bool is_absolute(const char* path) { return path != nullptr && path[0] == '/'; }

// Reads the whole file, refusing anything that is not a small regular file.
// Returns false with *error set on failure; a missing file reads as empty.
bool read_small_file(const std::string& path, std::string* data, bool* missing,
                     std::string* error) {
  *missing = false;
  // Settings choose layers and make a process traceable: a file another user
  // could write or swap (itself, a link or a directory on its way) is
  // refused, as layers are (common/trusted_file.h). That also refuses a FIFO
  // or device planted at the path without opening it.
  TrustedFile file;
  std::string reason;
  switch (open_trusted_file(path, false, "settings", &file, &reason)) {
    case TrustResult::kMissing:
      *missing = true;
      return true;
    case TrustResult::kRefused:
      *error = path + ": refused: " + reason;
      return false;
    case TrustResult::kOk:
      break;
  }
  int fd = file.fd;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *error = path + ": " + errno_text(errno);
    close(fd);
    return false;
  }
  if (static_cast<unsigned long long>(st.st_size) > kMaxFileSize) {
    *error = path + ": file too large (" + std::to_string(st.st_size) + " bytes, limit " +
             std::to_string(kMaxFileSize) + ")";
    close(fd);
    return false;
  }
  // Read with a hard cap too: the file may grow between fstat and read.
  data->resize(kMaxFileSize + 1);
  size_t total = 0;
  while (total < data->size()) {
    ssize_t n = read(fd, data->data() + total, data->size() - total);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = path + ": " + errno_text(errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    total += static_cast<size_t>(n);
  }
  close(fd);
  if (total > kMaxFileSize) {
    *error = path + ": file too large (limit " + std::to_string(kMaxFileSize) + " bytes)";
    return false;
  }
  data->resize(total);
  return true;
}

void parse(const std::string& path, const std::string& data, LoadResult* result) {
  int reported = 0, suppressed = 0;
  auto report = [&](size_t line_no, const std::string& message) {
    if (reported >= kMaxReportedErrors) {
      ++suppressed;
      return;
    }
    ++reported;
    append_line(&result->error, path + ":" + std::to_string(line_no) + ": " + message);
  };
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t newline = data.find('\n', pos);
    size_t end = newline == std::string::npos ? data.size() : newline;
    std::string_view line(data.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      report(line_no, "expected name=value, got '" + printable(line) + "'");
      continue;
    }
    std::string name(line.substr(0, eq));
    std::string value(line.substr(eq + 1));
    if (!valid_name(name)) {
      report(line_no, "invalid name '" + printable(name) + "'");
      continue;
    }
    if (!valid_value(value)) {
      report(line_no, value.size() > kMaxValueLength ? "value of '" + name + "' is too long"
                                                     : "value of '" + name + "' contains NUL");
      continue;
    }
    result->values[name] = std::move(value);
  }
  if (suppressed > 0)
    append_line(&result->error,
                path + ": " + std::to_string(suppressed) + " more malformed lines not shown");
}

// mkdir -p; only directories created here get `mode` (exactly, despite umask).
bool make_parent_dirs(const std::string& dir, mode_t mode, std::string* error) {
  if (dir.empty() || dir == "." || dir == "/") return true;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    std::string prefix = dir.substr(0, pos);
    if (prefix.empty() || prefix.back() == '/') continue;
    if (mkdir(prefix.c_str(), mode) == 0) {
      chmod(prefix.c_str(), mode);
      continue;
    }
    if (errno == EEXIST) continue;
    *error = "cannot create directory " + prefix + ": " + errno_text(errno);
    return false;
  }
  return true;
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool save_file_impl(const std::string& path, const Values& values, std::string* error,
                    FileKind kind) {
  if (path.empty()) {
    *error = "no settings file path (is HOME set?)";
    return false;
  }
  std::string content = "# gltrace settings: name=value per line (see `gltrace help settings`)\n";
  for (const auto& [name, value] : values) {
    if (!valid_name(name)) {
      *error = "invalid name '" + printable(name) + "'";
      return false;
    }
    if (!valid_value(value)) {
      *error = "invalid value for '" + name + "'";
      return false;
    }
    content += name;
    content += '=';
    content += value;
    content += '\n';
  }
  const bool user = kind == FileKind::kUser;
  const std::string dir = dirname_of(path);
  if (!make_parent_dirs(dir, user ? 0700 : 0755, error)) return false;

  // Same directory as the target so rename() is atomic; hidden so a crash
  // leaves no file that looks like settings.
  std::string temp = dir + "/." + basename_of(path) + ".tmp-XXXXXX";
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + errno_text(errno);
    return false;
  }
  auto fail = [&](const char* what) {
    int err = errno;
    if (fd >= 0) close(fd);
    unlink(temp.c_str());
    *error = std::string(what) + " " + path + ": " + errno_text(err);
    return false;
  };
  if (fchmod(fd, user ? 0600 : 0644) != 0) return fail("cannot set the mode of");
  if (!write_all(fd, content)) return fail("cannot write");
  if (fsync(fd) != 0) return fail("cannot sync");
  int rc = close(fd);
  fd = -1;
  if (rc != 0) return fail("cannot write");
  if (rename(temp.c_str(), path.c_str()) != 0) return fail("cannot replace");
  // Make the rename itself durable; failure here loses nothing already written.
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return true;
}

}  // namespace

std::string user_file_path() {
  const char* xdg = env_get("XDG_CONFIG_HOME");
  // The XDG spec says relative values are invalid and must be ignored.
  if (is_absolute(xdg)) return std::string(xdg) + "/" + kRelativeFile;
  const char* home = env_get("HOME");
  if (is_absolute(home)) return std::string(home) + "/.config/" + kRelativeFile;
  return "";
}

std::string system_file_path() {
  const char* override_path = env_get("GLTRACE_SYSTEM_SETTINGS");
  if (override_path != nullptr && override_path[0] != '\0') return override_path;
  return kSystemDefault;
}

LoadResult load_file(const std::string& path) {
  LoadResult result;
  try {
    std::string data;
    bool missing = false;
    if (!read_small_file(path, &data, &missing, &result.error)) {
      result.read_ok = false;
      return result;
    }
    if (!missing) parse(path, data, &result);
  } catch (...) {  // allocation failure: never let it escape into the app
    result.values.clear();
    result.error = "out of memory";
    result.read_ok = false;
  }
  return result;
}

bool save_file(const std::string& path, const Values& values, std::string* error, FileKind kind) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  try {
    return save_file_impl(path, values, error, kind);
  } catch (...) {
    *error = "out of memory";
    return false;
  }
}

Values load_effective_from(const std::string& system_path, const std::string& user_path,
                           std::string* errors) {
  Values values;
  try {
    if (!system_path.empty()) {
      LoadResult system = load_file(system_path);
      append_line(errors, system.error);
      values = std::move(system.values);
    }
    if (!user_path.empty()) {
      LoadResult user = load_file(user_path);
      append_line(errors, user.error);
      for (auto& [name, value] : user.values) values[name] = std::move(value);
    }
  } catch (...) {
    values.clear();
    if (errors != nullptr) *errors = "out of memory";
  }
  return values;
}

Values load_effective(std::string* errors) {
  try {
    // user_file_path() is already "" in a secure process; checking here too
    // keeps the rule visible and independent of how that path is derived.
    std::string user = is_secure_process() ? std::string() : user_file_path();
    return load_effective_from(system_file_path(), user, errors);
  } catch (...) {
    return Values();
  }
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool valid_value(const std::string& value) {
  return value.size() <= kMaxValueLength && value.find('\n') == std::string::npos &&
         value.find('\0') == std::string::npos;
}

}  // namespace gltrace::settings
