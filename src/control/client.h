// The host side of the control protocol: find traceable processes, connect,
// send requests, open the data channel a capture streams into.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "control/protocol.h"

namespace gltrace::control {

// Where a control server listens: a Unix socket, or 127.0.0.1:port + token.
struct Endpoint {
  std::string unix_path;
  std::string tcp_host;  // numeric IPv4 (loopback, or an ssh forward)
  int tcp_port = -1;
  std::string token;
  std::string describe() const;
};

// Parses "HOST:PORT" for an Endpoint (token given separately).
bool parse_tcp_endpoint(const std::string& text, Endpoint* endpoint, std::string* error);

class Client {
 public:
  // Connects and says Hello; null with *error if refused or unreachable.
  static std::unique_ptr<Client> connect(const Endpoint& endpoint, const std::string& client_name,
                                         std::string* error, Status* status = nullptr);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends `request` (its id is assigned here) and waits for its reply.
  // False with *error on a transport failure or a reply with ok = false.
  bool call(Request request, Reply* reply, std::string* error, int timeout_ms = 15000);
  int fd() const { return fd_; }

 private:
  explicit Client(int fd) : fd_(fd) {}
  int fd_;
  uint64_t next_id_ = 1;
  FrameReader reader_;
};

// A new connection turned into a data channel: the returned fd receives the
// trace of the next Start. -1 with *error on failure.
int open_data_channel(const Endpoint& endpoint, std::string* error);

struct ProcessEntry {
  std::string socket_path;
  bool reachable = false;
  std::string error;  // why not, when unreachable
  Status status;
};

// Every control socket of this user (socket_directory()), asked for its
// status. Sockets of processes that are gone are removed, not listed.
std::vector<ProcessEntry> list_processes(std::string* error);

// The one process `what` names: a pid, a process name, or a socket file
// name; "" (with *error) for none or several.
std::string find_process_socket(const std::string& what, std::string* error);

}  // namespace gltrace::control
