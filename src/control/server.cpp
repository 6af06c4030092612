#include "control/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "common/log.h"

namespace gltrace::control {
namespace {

constexpr size_t kMaxConnections = 16;
constexpr int kTickMs = 50;

struct Connection {
  int fd = -1;
  bool tcp = false;
  bool authenticated = false;  // Unix peers are checked at accept
  FrameReader reader;
};

std::string random_token() {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "";
    got += static_cast<size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (uint8_t b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

// Compares without an early exit, so timing says nothing about the token.
bool same_token(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || a.empty()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool ensure_private_dir(const std::string& path, std::string* error) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = "cannot create " + path + ": " + strerror(errno);
    return false;
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = path + " is not a directory";
    return false;
  }
  if (st.st_uid != getuid()) {
    *error = path + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user";
    return false;
  }
  if ((st.st_mode & 0077) != 0) {
    *error = path + " is open to other users (mode " + std::to_string(st.st_mode & 0777) + ")";
    return false;
  }
  return true;
}

}  // namespace

std::string socket_directory(std::string* error) {
  const char* runtime = getenv("XDG_RUNTIME_DIR");
  std::string dir;
  if (runtime != nullptr && *runtime == '/') {
    dir = std::string(runtime) + "/gltrace";
  } else {
    dir = "/tmp/gltrace-" + std::to_string(getuid());
  }
  if (!ensure_private_dir(dir, error)) return "";
  return dir;
}

struct Server::State {
  Controller* controller = nullptr;
  ServerOptions options;
  std::string socket_path;
  std::string token;
  int unix_fd = -1;
  int tcp_fd = -1;
  int tcp_port = -1;
  int wake[2] = {-1, -1};
  std::thread thread;
  std::vector<Connection> connections;
  int pending_data_fd = -1;
  int owner_fd = -1;  // the connection whose Start is running

  ~State() {
    for (Connection& c : connections) close(c.fd);
    for (int fd : {unix_fd, tcp_fd, wake[0], wake[1], pending_data_fd})
      if (fd >= 0) close(fd);
  }

  void reply(Connection& c, const Request& q, bool ok, const std::string& error, bool with_status) {
    Reply p;
    p.id = q.id;
    p.ok = ok;
    p.error = error;
    if (with_status) p.status = controller->status();
    std::string send_error;
    send_message(c.fd, encode(p), &send_error);  // a gone peer is noticed by poll
  }

  // Returns false when the connection is to be closed (or was handed over).
  bool handle(Connection& c, const std::vector<uint8_t>& message) {
    Request q;
    std::string error;
    if (!decode(message.data(), message.size(), &q, &error)) {
      reply(c, q, false, error, false);
      return c.authenticated;
    }
    if (q.version == 0 || q.version > kProtocolVersion) {
      reply(c, q, false,
            "unsupported protocol version " + std::to_string(q.version) + " (this app speaks " +
                std::to_string(kProtocolVersion) + ")",
            false);
      return c.authenticated;
    }
    if (!c.authenticated) {  // TCP: Hello with the token comes first
      if (q.command != Command::kHello || !same_token(q.token, token)) {
        reply(c, q, false, "refused: a TCP peer must start with Hello and the right token", false);
        return false;
      }
      c.authenticated = true;
    }
    switch (q.command) {
      case Command::kNone:
        reply(c, q, false, "unknown or missing command", false);
        return true;
      case Command::kHello:
      case Command::kGetStatus:
        reply(c, q, true, "", true);
        return true;
      case Command::kDataChannel:
        reply(c, q, true, "", false);
        if (pending_data_fd >= 0) close(pending_data_fd);
        pending_data_fd = c.fd;
        c.fd = -1;  // handed over
        return false;
      case Command::kStart: {
        if (pending_data_fd < 0) {
          reply(c, q, false, "no data channel: open one (DataChannel) before Start", false);
          return true;
        }
        int data_fd = pending_data_fd;
        pending_data_fd = -1;
        bool ok = controller->start(q, data_fd, &error);
        if (ok) owner_fd = c.fd;
        reply(c, q, ok, error, true);
        return true;
      }
      case Command::kStop: {
        bool ok = controller->stop(&error);
        owner_fd = -1;
        reply(c, q, ok, error, true);
        return true;
      }
      case Command::kSetOptions: {
        bool ok = controller->set_options(q.options, &error);
        reply(c, q, ok, error, true);
        return true;
      }
    }
    return true;
  }

  void accept_from(int listen_fd, bool tcp) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    // A peer that stops reading must not hold this thread for long.
    timeval timeout{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    Connection c;
    c.fd = fd;
    c.tcp = tcp;
    if (connections.size() >= kMaxConnections) {
      Request none;
      reply(c, none, false, "refused: too many connections", false);
      close(fd);
      return;
    }
    if (!tcp) {
      ucred cred{};
      socklen_t size = sizeof cred;
      if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 || cred.uid != options.uid) {
        Request none;
        reply(c, none, false,
              "refused: peer uid " + std::to_string(cred.uid) + " is not this process's uid " +
                  std::to_string(options.uid),
              false);
        GLTRACE_LOG_WARN("control: refused a connection from uid %u (pid %d)",
                         static_cast<unsigned>(cred.uid), static_cast<int>(cred.pid));
        close(fd);
        return;
      }
      c.authenticated = true;
    }
    connections.push_back(std::move(c));
  }

  void drop(size_t i) {
    Connection& c = connections[i];
    if (c.fd >= 0 && c.fd == owner_fd) {
      owner_fd = -1;
      controller->host_gone();
    }
    if (c.fd >= 0) close(c.fd);
    connections.erase(connections.begin() + static_cast<long>(i));
  }

  void run() {
    std::vector<pollfd> fds;
    for (;;) {
      fds.clear();
      fds.push_back({wake[0], POLLIN, 0});
      fds.push_back({unix_fd, POLLIN, 0});
      fds.push_back({tcp_fd, static_cast<short>(tcp_fd >= 0 ? POLLIN : 0), 0});
      for (const Connection& c : connections) fds.push_back({c.fd, POLLIN, 0});
      int ready = poll(fds.data(), fds.size(), kTickMs);
      if (ready < 0 && errno != EINTR) break;
      controller->tick();
      if (ready <= 0) continue;
      if (fds[0].revents != 0) break;
      // Connections first: their indices match fds until the list changes.
      for (size_t i = connections.size(); i-- > 0;) {
        short revents = fds[3 + i].revents;
        if (revents == 0) continue;
        uint8_t buffer[4096];
        ssize_t n = recv(connections[i].fd, buffer, sizeof buffer, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
          drop(i);
          continue;
        }
        Connection& c = connections[i];
        c.reader.append(buffer, static_cast<size_t>(n));
        std::vector<uint8_t> message;
        bool keep = true;
        for (;;) {
          FrameReader::Result r = c.reader.next(&message);
          if (r == FrameReader::Result::kNeedMore) break;
          if (r == FrameReader::Result::kTooLarge) {
            Request none;
            reply(c, none, false,
                  "message larger than " + std::to_string(kMaxMessageSize) +
                      " bytes: closing the connection",
                  false);
            keep = false;
            break;
          }
          if (!handle(c, message)) {
            keep = false;
            break;
          }
        }
        if (!keep) drop(i);
      }
      if (fds[1].revents != 0) accept_from(unix_fd, false);
      if (tcp_fd >= 0 && fds[2].revents != 0) accept_from(tcp_fd, true);
    }
  }
};

Server::Server(std::unique_ptr<State> state) : state_(std::move(state)) {}

Server::~Server() { shutdown(); }

const std::string& Server::socket_path() const { return state_->socket_path; }
int Server::tcp_port() const { return state_->tcp_port; }
const std::string& Server::token() const { return state_->token; }

std::unique_ptr<Server> Server::start(Controller* controller, const ServerOptions& options,
                                      std::string* error) {
  auto state = std::make_unique<State>();
  state->controller = controller;
  state->options = options;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (options.socket_path.empty() || options.socket_path.size() >= sizeof address.sun_path) {
    *error = "bad control socket path '" + options.socket_path + "'";
    return nullptr;
  }
  memcpy(address.sun_path, options.socket_path.c_str(), options.socket_path.size() + 1);
  state->unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (state->unix_fd < 0) {
    *error = std::string("cannot create a socket: ") + strerror(errno);
    return nullptr;
  }
  // A socket left by a process that died (pids are reused) is ours to replace.
  struct stat st {};
  if (lstat(options.socket_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == getuid())
    unlink(options.socket_path.c_str());
  if (bind(state->unix_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(state->unix_fd, 8) != 0) {
    *error = "cannot listen on " + options.socket_path + ": " + strerror(errno);
    return nullptr;
  }
  chmod(options.socket_path.c_str(), 0600);
  state->socket_path = options.socket_path;
  if (options.tcp_port >= 0) {
    state->token = random_token();
    state->tcp_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_port = htons(static_cast<uint16_t>(options.tcp_port));
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // never another interface
    int one = 1;
    socklen_t size = sizeof in;
    if (state->token.empty() || state->tcp_fd < 0 ||
        setsockopt(state->tcp_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(state->tcp_fd, reinterpret_cast<sockaddr*>(&in), sizeof in) != 0 ||
        listen(state->tcp_fd, 8) != 0 ||
        getsockname(state->tcp_fd, reinterpret_cast<sockaddr*>(&in), &size) != 0) {
      *error =
          "cannot listen on 127.0.0.1:" + std::to_string(options.tcp_port) + ": " + strerror(errno);
      unlink(state->socket_path.c_str());
      return nullptr;
    }
    state->tcp_port = ntohs(in.sin_port);
  }
  if (pipe2(state->wake, O_CLOEXEC) != 0) {
    *error = std::string("cannot create a pipe: ") + strerror(errno);
    unlink(state->socket_path.c_str());
    return nullptr;
  }
  // The thread gets no signals: the app's handlers never run on it.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  State* raw = state.get();
  try {
    state->thread = std::thread([raw] { raw->run(); });
  } catch (const std::exception& e) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    *error = std::string("cannot start the control thread: ") + e.what();
    unlink(state->socket_path.c_str());
    return nullptr;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return std::unique_ptr<Server>(new Server(std::move(state)));
}

void Server::shutdown() {
  if (state_ == nullptr || !state_->thread.joinable()) return;
  char byte = 1;
  if (write(state_->wake[1], &byte, 1) < 0) {
    // The thread then ends at process exit.
  }
  state_->thread.join();
  unlink(state_->socket_path.c_str());
}

}  // namespace gltrace::control
