// The control server inside a traceable app: one thread, started at
// eglInitialize, never blocking the app. It listens on a Unix socket under
// $XDG_RUNTIME_DIR/gltrace (peers of another uid are refused, SO_PEERCRED)
// and, when asked, on a 127.0.0.1 TCP port whose peers must present a
// random token. Requests go to a Controller (the trace layer).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "control/protocol.h"

namespace gltrace::control {

class Controller {
 public:
  virtual ~Controller() = default;
  virtual Status status() = 0;
  // data_fd: the data channel, owned by the controller from here on (also on failure).
  virtual bool start(const Request& request, int data_fd, std::string* error) = 0;
  virtual bool stop(std::string* error) = 0;
  virtual bool set_options(const CaptureSettings& options, std::string* error) = 0;
  // The host that started the capture closed its control connection.
  virtual void host_gone() = 0;
  // A flight recorder's trace of what it keeps now, written to a new file
  // (*path); false with *error when the process has none or it failed.
  virtual bool write_flight(std::string* path, std::string* error) = 0;
  // Called about every 50 ms on the server thread (finish a capture that
  // ended by itself, notice a dead data channel).
  virtual void tick() = 0;
};

struct ServerOptions {
  std::string socket_path;  // the Unix socket to create
  int tcp_port = -1;        // -1: none; 0: any free port
  uid_t uid = 0;            // the only uid allowed to connect (the effective uid)
};

class Server {
 public:
  // Binds and starts the thread; null with *error on failure.
  static std::unique_ptr<Server> start(Controller* controller, const ServerOptions& options,
                                       std::string* error);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  const std::string& socket_path() const;
  int tcp_port() const;              // the bound port, -1 if none
  const std::string& token() const;  // what TCP peers must send in Hello

  // Stops the thread, closes every connection and removes the socket file.
  void shutdown();

  struct State;

 private:
  explicit Server(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// $XDG_RUNTIME_DIR/gltrace (created 0700), or /tmp/gltrace-EUID when
// XDG_RUNTIME_DIR is unset or the process is secure (setuid/setgid: the
// environment is the caller's). "" with *error when it is not safe to use
// (not ours, or open to others).
std::string socket_directory(std::string* error);

}  // namespace gltrace::control
