#include "control/client.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "control/server.h"

namespace gltrace::control {
namespace {

int connect_endpoint(const Endpoint& endpoint, std::string* error) {
  if (!endpoint.unix_path.empty()) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (endpoint.unix_path.size() >= sizeof address.sun_path) {
      *error = "socket path too long: " + endpoint.unix_path;
      return -1;
    }
    memcpy(address.sun_path, endpoint.unix_path.c_str(), endpoint.unix_path.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      *error = "cannot connect to " + endpoint.unix_path + ": " + strerror(errno);
      if (fd >= 0) close(fd);
      return -1;
    }
    return fd;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(endpoint.tcp_port));
  if (inet_pton(AF_INET, endpoint.tcp_host.c_str(), &address.sin_addr) != 1) {
    *error = "not a numeric IPv4 address: " + endpoint.tcp_host;
    return -1;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    *error = "cannot connect to " + endpoint.describe() + ": " + strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

// A socket left behind by an app that died without removing it: its name
// is gltrace-PID.sock, no process PID exists, and nothing listens on it.
// (Both: a pid from another pid namespace is not visible here.)
bool stale_socket(const std::string& dir, const std::string& name) {
  unsigned pid = 0;
  int end = 0;
  if (sscanf(name.c_str(), "gltrace-%u.sock%n", &pid, &end) != 1 ||
      static_cast<size_t>(end) != name.size() || pid == 0)
    return false;
  if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string path = dir + "/" + name;
  if (path.size() >= sizeof address.sun_path) return false;
  memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool refused = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
                 errno == ECONNREFUSED;
  close(fd);
  return refused;
}

}  // namespace

std::string Endpoint::describe() const {
  return !unix_path.empty() ? unix_path : tcp_host + ":" + std::to_string(tcp_port);
}

bool parse_tcp_endpoint(const std::string& text, Endpoint* endpoint, std::string* error) {
  size_t colon = text.rfind(':');
  char* end = nullptr;
  long port = colon == std::string::npos ? -1 : strtol(text.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || colon == 0 || end == text.c_str() + colon + 1 || *end != '\0' ||
      port <= 0 || port > 65535) {
    *error = "expected HOST:PORT, got '" + text + "'";
    return false;
  }
  endpoint->unix_path.clear();
  endpoint->tcp_host = text.substr(0, colon);
  endpoint->tcp_port = static_cast<int>(port);
  return true;
}

std::unique_ptr<Client> Client::connect(const Endpoint& endpoint, const std::string& client_name,
                                        std::string* error, Status* status) {
  int fd = connect_endpoint(endpoint, error);
  if (fd < 0) return nullptr;
  std::unique_ptr<Client> client(new Client(fd));
  Request hello;
  hello.command = Command::kHello;
  hello.token = endpoint.token;
  hello.client = client_name;
  Reply reply;
  if (!client->call(hello, &reply, error, 5000)) {
    *error = endpoint.describe() + ": " + *error;
    return nullptr;
  }
  if (status != nullptr && reply.status) *status = *reply.status;
  return client;
}

Client::~Client() { close(fd_); }

bool Client::call(Request request, Reply* reply, std::string* error, int timeout_ms) {
  request.id = next_id_++;
  std::string send_error;
  bool sent = send_message(fd_, encode(request), &send_error);
  std::vector<uint8_t> message;
  for (;;) {
    // A refused peer may find the connection closed before it could send:
    // the refusal is still there to read.
    if (!receive_message(fd_, &reader_, &message, sent ? timeout_ms : 1000, error)) {
      if (!sent) *error = send_error;
      return false;
    }
    if (!decode(message.data(), message.size(), reply, error)) return false;
    // A refusal at accept has id 0; anything else answers this request.
    if (reply->id == request.id || reply->id == 0) break;
  }
  if (!reply->ok) {
    *error = reply->error.empty() ? "the app refused the request" : reply->error;
    return false;
  }
  return true;
}

int open_data_channel(const Endpoint& endpoint, std::string* error) {
  auto client = Client::connect(endpoint, "gltrace data channel", error);
  if (client == nullptr) return -1;
  Request request;
  request.command = Command::kDataChannel;
  Reply reply;
  if (!client->call(request, &reply, error, 5000)) return -1;
  int fd = dup(client->fd());
  if (fd < 0) *error = std::string("dup: ") + strerror(errno);
  return fd;
}

std::vector<ProcessEntry> list_processes(std::string* error) {
  std::vector<ProcessEntry> entries;
  std::string dir = socket_directory(error);
  if (dir.empty()) return entries;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    *error = "cannot list " + dir + ": " + strerror(errno);
    return entries;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) names.emplace_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string path = dir + "/" + name;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (stale_socket(dir, name)) {
      unlink(path.c_str());  // our own directory: nobody else's file
      continue;
    }
    ProcessEntry entry;
    entry.socket_path = path;
    Endpoint endpoint;
    endpoint.unix_path = path;
    std::string why;
    auto client = Client::connect(endpoint, "gltrace ps", &why, &entry.status);
    entry.reachable = client != nullptr;
    entry.error = why;
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string find_process_socket(const std::string& what, std::string* error) {
  std::vector<ProcessEntry> entries = list_processes(error);
  if (!error->empty() && entries.empty()) return "";
  std::vector<const ProcessEntry*> matches;
  for (const ProcessEntry& e : entries) {
    if (!e.reachable) continue;
    std::string file = e.socket_path.substr(e.socket_path.rfind('/') + 1);
    if (std::to_string(e.status.pid) == what || e.status.process_name == what || file == what)
      matches.push_back(&e);
  }
  if (matches.size() == 1) return matches[0]->socket_path;
  if (matches.empty()) {
    *error = "no traceable process '" + what + "' (see gltrace ps)";
  } else {
    *error = "'" + what + "' names " + std::to_string(matches.size()) +
             " traceable processes; give a pid:";
    for (const ProcessEntry* e : matches) *error += " " + std::to_string(e->status.pid);
  }
  return "";
}

}  // namespace gltrace::control
