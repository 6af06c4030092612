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
#include <ctime>
#include <thread>
#include <vector>

#include "common/log.h"
#include "common/process.h"

namespace gltrace::control {
namespace {

// Authenticated peers (Unix peers of our uid, TCP peers after a Hello with
// the token) hold these slots.
constexpr size_t kMaxConnections = 16;
// TCP peers that have not shown the token wait in a pool of their own, so
// anyone who can reach the port (every local user) never takes the slots of
// authenticated peers; when it is full, the oldest is dropped.
constexpr size_t kMaxUnauthenticated = 4;
// A peer must send its first complete message within this time of
// connecting, and finish every message it starts within it too: one that
// sends nothing, or a byte at a time, is dropped.
constexpr int64_t kMessageDeadlineMs = 2000;
// Replies wait here while the peer does not read; a peer that lets more
// pile up is dropped (the thread never blocks on a write).
constexpr size_t kMaxQueuedBytes = 1 << 20;
constexpr int kTickMs = 50;

int64_t now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1000 + t.tv_nsec / 1000000;
}

struct Connection {
  int fd = -1;
  bool tcp = false;
  bool authenticated = false;  // Unix peers are checked at accept
  bool got_message = false;    // a first complete message arrived
  int64_t deadline_ms = 0;     // 0: none (an idle peer between messages)
  FrameReader reader;
  std::vector<uint8_t> out;  // queued reply bytes, not yet taken by the socket
  size_t out_done = 0;       // bytes of `out` already sent
  bool failed = false;       // a send failed or the queue overflowed: drop it
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
  if (st.st_uid != geteuid()) {
    *error = path + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user";
    return false;
  }
  if ((st.st_mode & 0077) != 0) {
    *error = path + " is open to other users (mode " + std::to_string(st.st_mode & 0777) + ")";
    return false;
  }
  return true;
}

// Removing the socket file when a signal kills the app. Only signals whose
// action is the default (terminate) are caught: an app that handles or
// ignores one goes on running after it, so its socket must stay, and it
// is removed at exit (Server::shutdown) or by `gltrace ps` once the
// process is gone. The handler unlinks, puts the default action back and
// re-raises, so the app dies of the signal as it would have; unlink,
// sigaction and raise are async-signal-safe.
constexpr int kTerminatingSignals[] = {SIGTERM, SIGINT, SIGHUP};
char g_signal_socket_path[sizeof(sockaddr_un::sun_path)];
volatile sig_atomic_t g_signal_socket_set = 0;

void unlink_socket_and_reraise(int sig) {
  int saved_errno = errno;
  if (g_signal_socket_set != 0) unlink(g_signal_socket_path);
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
  raise(sig);  // blocked while this handler runs: delivered as it returns
  errno = saved_errno;
}

void remove_socket_on_signals(const std::string& path) {
  g_signal_socket_set = 0;  // no handler reads the path while it changes
  memcpy(g_signal_socket_path, path.c_str(), path.size() + 1);  // fits: checked at bind
  g_signal_socket_set = 1;
  for (int sig : kTerminatingSignals) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
        old.sa_handler != SIG_DFL)
      continue;
    struct sigaction action {};
    action.sa_handler = &unlink_socket_and_reraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, nullptr);
  }
}

// The server is gone or never started: the handlers leave the path alone.
void forget_socket(const std::string& path) {
  g_signal_socket_set = 0;
  unlink(path.c_str());
}

}  // namespace

std::string socket_directory(std::string* error) {
  // env_get: in a secure (setuid/setgid) process XDG_RUNTIME_DIR is the
  // caller's to choose, so it is ignored and the directory is the one an
  // unset XDG_RUNTIME_DIR gives, for the effective uid.
  const char* runtime = env_get("XDG_RUNTIME_DIR");
  std::string dir;
  if (runtime != nullptr && *runtime == '/') {
    dir = std::string(runtime) + "/gltrace";
  } else {
    dir = "/tmp/gltrace-" + std::to_string(geteuid());
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

  // Queues the reply and sends what the socket takes now; never waits.
  void reply(Connection& c, const Request& q, bool ok, const std::string& error, bool with_status,
             const std::string& path = "") {
    Reply p;
    p.id = q.id;
    p.ok = ok;
    p.error = error;
    p.path = path;
    if (with_status) p.status = controller->status();
    std::vector<uint8_t> bytes = frame(encode(p));
    if (c.out.size() - c.out_done + bytes.size() > kMaxQueuedBytes) {
      if (!c.failed)
        GLTRACE_LOG_WARN(
            "control: dropped a peer that does not read its replies (%zu bytes queued)",
            c.out.size() - c.out_done);
      c.failed = true;
      return;
    }
    c.out.insert(c.out.end(), bytes.begin(), bytes.end());
    flush(c);
  }

  // Non-blocking: sends what the socket buffer takes, keeps the rest.
  static void flush(Connection& c) {
    while (!c.failed && c.out_done < c.out.size()) {
      ssize_t n = send(c.fd, c.out.data() + c.out_done, c.out.size() - c.out_done,
                       MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {
        c.failed = true;  // the peer is gone
        break;
      }
      c.out_done += static_cast<size_t>(n);
    }
    // Forget what was sent, so a peer that reads slowly but steadily keeps
    // the queue's memory bounded too.
    if (c.out_done == c.out.size() || c.out_done >= kMaxQueuedBytes / 4) {
      c.out.erase(c.out.begin(), c.out.begin() + static_cast<long>(c.out_done));
      c.out_done = 0;
    }
  }

  size_t count(bool authenticated) const {
    size_t n = 0;
    for (const Connection& c : connections) n += c.authenticated == authenticated && !c.failed;
    return n;
  }

  // Makes room for one more authenticated peer by dropping the oldest one
  // that has not sent a message yet; false if every slot is in real use.
  bool free_authenticated_slot(const Connection* except) {
    if (count(true) < kMaxConnections) return true;
    for (Connection& c : connections) {
      if (&c != except && c.authenticated && !c.failed && !c.got_message) {
        GLTRACE_LOG_WARN("control: dropped a silent connection to make room for a new one");
        c.failed = true;
        return true;
      }
    }
    return false;
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
      if (!free_authenticated_slot(&c)) {
        reply(c, q, false, "refused: too many connections", false);
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
      case Command::kDataChannel: {
        reply(c, q, true, "", false);
        // The writer thread owns the channel from here and writes to it
        // blocking, with a send timeout (a host that stops reading ends the
        // capture); the reply must have left before that.
        int flags = fcntl(c.fd, F_GETFL);
        timeval timeout{1, 0};
        if (c.failed || !c.out.empty() || flags < 0 ||
            fcntl(c.fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
            setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) != 0) {
          GLTRACE_LOG_WARN("control: dropped a data channel whose peer does not read");
          return false;
        }
        if (pending_data_fd >= 0) close(pending_data_fd);
        pending_data_fd = c.fd;
        c.fd = -1;  // handed over
        return false;
      }
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
      case Command::kFlight: {
        std::string path;
        bool ok = controller->write_flight(&path, &error);
        reply(c, q, ok, error, true, path);
        return true;
      }
    }
    return true;
  }

  // Sends a refusal if the socket takes it at once, and closes.
  void refuse(int fd, const std::string& why) {
    Connection c;
    c.fd = fd;
    reply(c, Request(), false, why, false);
    close(fd);
  }

  // Takes every waiting connection (a bounded number per turn).
  void accept_all(int listen_fd, bool tcp) {
    for (int i = 0; i < 16; ++i) {
      int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) return;
      admit(fd, tcp);
    }
  }

  void admit(int fd, bool tcp) {
    Connection c;
    c.fd = fd;
    c.tcp = tcp;
    c.deadline_ms = now_ms() + kMessageDeadlineMs;
    if (!tcp) {
      ucred cred{};
      socklen_t size = sizeof cred;
      if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 || cred.uid != options.uid) {
        refuse(fd, "refused: peer uid " + std::to_string(cred.uid) + " is not this process's uid " +
                       std::to_string(options.uid));
        GLTRACE_LOG_WARN("control: refused a connection from uid %u (pid %d)",
                         static_cast<unsigned>(cred.uid), static_cast<int>(cred.pid));
        return;
      }
      if (!free_authenticated_slot(nullptr)) {
        refuse(fd, "refused: too many connections");
        return;
      }
      c.authenticated = true;
    } else if (count(false) >= kMaxUnauthenticated) {
      for (Connection& old : connections) {
        if (!old.authenticated && !old.failed) {
          GLTRACE_LOG_WARN("control: dropped the oldest TCP peer still without a token");
          old.failed = true;
          break;
        }
      }
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

  // Reads what the peer sent and answers every complete message.
  void receive(Connection& c, int64_t now) {
    uint8_t buffer[4096];
    ssize_t n = recv(c.fd, buffer, sizeof buffer, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      c.failed = true;
      return;
    }
    c.reader.append(buffer, static_cast<size_t>(n));
    std::vector<uint8_t> message;
    bool completed = false;
    while (!c.failed) {
      FrameReader::Result r = c.reader.next(&message);
      if (r == FrameReader::Result::kNeedMore) break;
      if (r == FrameReader::Result::kTooLarge) {
        reply(c, Request(), false,
              "message larger than " + std::to_string(kMaxMessageSize) +
                  " bytes: closing the connection",
              false);
        c.failed = true;
        break;
      }
      completed = true;
      c.got_message = true;
      if (!handle(c, message)) c.failed = true;
    }
    // The first message is due a fixed time after connecting; after that,
    // each message is due a fixed time after its first byte.
    if (!c.got_message) return;
    if (c.reader.buffered() == 0) {
      c.deadline_ms = 0;
    } else if (completed || c.deadline_ms == 0) {
      c.deadline_ms = now + kMessageDeadlineMs;
    }
  }

  void run() {
    std::vector<pollfd> fds;
    for (;;) {
      fds.clear();
      fds.push_back({wake[0], POLLIN, 0});
      fds.push_back({unix_fd, POLLIN, 0});
      fds.push_back({tcp_fd, static_cast<short>(tcp_fd >= 0 ? POLLIN : 0), 0});
      for (const Connection& c : connections)
        fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
      int ready = poll(fds.data(), fds.size(), kTickMs);
      if (ready < 0 && errno != EINTR) break;
      controller->tick();
      if (ready > 0 && fds[0].revents != 0) break;
      int64_t now = now_ms();
      // fds[3 + i] is connections[i]: the list only grows (accept) or
      // shrinks (drop) after this loop.
      size_t polled = connections.size();
      for (size_t i = 0; ready > 0 && i < polled; ++i) {
        Connection& c = connections[i];
        short revents = fds[3 + i].revents;
        if (c.failed || revents == 0) continue;
        if ((revents & POLLOUT) != 0) flush(c);
        if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) receive(c, now);
      }
      if (ready > 0 && fds[1].revents != 0) accept_all(unix_fd, false);
      if (ready > 0 && tcp_fd >= 0 && fds[2].revents != 0) accept_all(tcp_fd, true);
      for (size_t i = connections.size(); i-- > 0;) {
        Connection& c = connections[i];
        if (!c.failed && c.deadline_ms != 0 && now >= c.deadline_ms) {
          GLTRACE_LOG_WARN("control: dropped a %s peer that sent %s within %lld ms",
                           c.tcp ? "TCP" : "local", c.got_message ? "no whole message" : "nothing",
                           static_cast<long long>(kMessageDeadlineMs));
          c.failed = true;
        }
        if (c.failed || c.fd < 0) drop(i);
      }
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
  // The socket is bound under a temporary name and renamed into place once
  // it listens: a client that sees the path can connect (bound but not yet
  // listening, it would be refused; tests that waited for the file were).
  const std::string bound_path = options.socket_path + ".new";
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (options.socket_path.empty() || bound_path.size() >= sizeof address.sun_path) {
    *error = "bad control socket path '" + options.socket_path + "'";
    return nullptr;
  }
  memcpy(address.sun_path, bound_path.c_str(), bound_path.size() + 1);
  state->unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (state->unix_fd < 0) {
    *error = std::string("cannot create a socket: ") + strerror(errno);
    return nullptr;
  }
  // A socket left by a process that died (pids are reused) is ours to replace.
  for (const std::string& path : {options.socket_path, bound_path}) {
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
      unlink(path.c_str());
  }
  // Before bind: the socket file must not outlive a signal that comes
  // as soon as it exists.
  remove_socket_on_signals(bound_path);
  if (bind(state->unix_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    *error = "cannot listen on " + options.socket_path + ": " + strerror(errno);
    g_signal_socket_set = 0;  // a file there is not ours
    return nullptr;
  }
  if (listen(state->unix_fd, 8) != 0 || chmod(bound_path.c_str(), 0600) != 0 ||
      rename(bound_path.c_str(), options.socket_path.c_str()) != 0) {
    *error = "cannot listen on " + options.socket_path + ": " + strerror(errno);
    forget_socket(bound_path);
    return nullptr;
  }
  remove_socket_on_signals(options.socket_path);
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
      forget_socket(state->socket_path);
      return nullptr;
    }
    state->tcp_port = ntohs(in.sin_port);
  }
  if (pipe2(state->wake, O_CLOEXEC) != 0) {
    *error = std::string("cannot create a pipe: ") + strerror(errno);
    forget_socket(state->socket_path);
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
    forget_socket(state->socket_path);
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
  forget_socket(state_->socket_path);
}

}  // namespace gltrace::control
