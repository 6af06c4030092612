// The X11 window watch (window_watch.h): the layer's own connection to the X
// server, whose events the frames' checks read.
//
// An app's window belongs to the app's connection; the watch's connection
// selects StructureNotify on it too (event masks are per client: the app's
// own stays as it is) and hears of every change of its size. Registration
// happens on the thread that made the surface, in the call that made it
// (one round trip per window, while recording). Every use of the
// connection is under one mutex, so events are read and stored in the
// server's order, and none is left in libxcb's queue when it is released:
// a check that finds the socket empty has nothing to read. No thread is
// started and nothing is left to end at exit (the table is
// constant-initialised, the mutex never destroyed, libxcb never unloaded).
// A child the app forks shares the connection's socket with its parent:
// its watches end (its frames ask), and a window it makes opens another
// connection. The socket is closed on exec.
#include "trace/window_watch.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <xcb/xcb.h>
#include <xcb/xproto.h>

#include <cstdlib>
#include <mutex>

namespace gltrace::trace {
namespace {

// The libxcb functions used, from dlopen.
struct Xcb {
  decltype(&xcb_connect) connect = nullptr;
  decltype(&xcb_connection_has_error) connection_has_error = nullptr;
  decltype(&xcb_disconnect) disconnect = nullptr;
  decltype(&xcb_get_file_descriptor) get_file_descriptor = nullptr;
  decltype(&xcb_change_window_attributes_checked) change_window_attributes_checked = nullptr;
  decltype(&xcb_request_check) request_check = nullptr;
  decltype(&xcb_get_geometry) get_geometry = nullptr;
  decltype(&xcb_get_geometry_reply) get_geometry_reply = nullptr;
  decltype(&xcb_poll_for_event) poll_for_event = nullptr;
};

enum class Link { kUntried, kConnected, kUnavailable };

// A process watches at most this many windows at once; a window destroyed
// frees its entry. Past that, surfaces are not watched (their frames ask).
constexpr size_t kWatches = 64;
WindowWatch g_watches[kWatches];

// Guards the watches' windows, the link and the connection. Never destroyed
// (app threads may draw while the process exits).
std::mutex& g_mutex = *new std::mutex();
Link g_link = Link::kUntried;
Xcb g_xcb;
xcb_connection_t* g_connection = nullptr;
// The connection's socket, read without the mutex by the checks (-1: none).
std::atomic<int> g_fd{-1};

uint64_t packed(uint32_t width, uint32_t height) {
  return WindowWatch::kWatched | uint64_t{width} << 32 | height;
}

// Every watch ends (under g_mutex).
void end_watches() {
  for (WindowWatch& watch : g_watches) {
    watch.size.store(0, std::memory_order_relaxed);
    watch.window = 0;
  }
}

// A child the app forked: the connection's socket is its parent's (what
// one read, the other would not).
void fork_prepare() { g_mutex.lock(); }
void fork_parent() { g_mutex.unlock(); }
void fork_child() {
  end_watches();
  int fd = g_fd.exchange(-1);
  if (fd >= 0) close(fd);  // the parent's descriptor stays open
  g_connection = nullptr;  // left as it is: disconnecting would shut the parent's socket
  g_link = Link::kUntried;
  g_mutex.unlock();
}

bool load_xcb(Xcb* xcb) {
  void* library = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return false;
  bool ok = true;
  auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    ok = ok && fn != nullptr;
  };
  get(xcb->connect, "xcb_connect");
  get(xcb->connection_has_error, "xcb_connection_has_error");
  get(xcb->disconnect, "xcb_disconnect");
  get(xcb->get_file_descriptor, "xcb_get_file_descriptor");
  get(xcb->change_window_attributes_checked, "xcb_change_window_attributes_checked");
  get(xcb->request_check, "xcb_request_check");
  get(xcb->get_geometry, "xcb_get_geometry");
  get(xcb->get_geometry_reply, "xcb_get_geometry_reply");
  get(xcb->poll_for_event, "xcb_poll_for_event");
  return ok;  // kept loaded either way
}

// The connection to $DISPLAY's server, made once (under g_mutex).
bool connect_once() {
  if (g_link == Link::kUntried) {
    g_link = Link::kUnavailable;
    const char* display = getenv("DISPLAY");
    if (display == nullptr || display[0] == '\0' || !load_xcb(&g_xcb)) return false;
    xcb_connection_t* connection = g_xcb.connect(nullptr, nullptr);
    if (g_xcb.connection_has_error(connection) != 0) {
      g_xcb.disconnect(connection);
      return false;
    }
    int fd = g_xcb.get_file_descriptor(connection);
    fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
    static bool at_fork = pthread_atfork(fork_prepare, fork_parent, fork_child) == 0;
    (void)at_fork;
    g_connection = connection;
    g_fd.store(fd);
    g_link = Link::kConnected;
  }
  return g_link == Link::kConnected;
}

// The server went away (or $DISPLAY's did): no watch knows any more, and the
// next window connects again (under g_mutex).
void drop_connection() {
  end_watches();
  g_fd.store(-1);
  g_xcb.disconnect(g_connection);
  g_connection = nullptr;
  g_link = Link::kUntried;
}

// An event's size for the watches of its window (under g_mutex). Events the
// server made before a watch's registration was answered are older than
// what the registration read: not the window's latest.
void apply(uint32_t window, uint32_t sequence, uint64_t size) {
  for (WindowWatch& watch : g_watches) {
    if (watch.window != window || static_cast<int32_t>(sequence - watch.since) < 0) continue;
    watch.size.store(size, std::memory_order_relaxed);
    if (size == 0) watch.window = 0;
  }
}

// Reads every event that arrived, in order (under g_mutex).
void read_events() {
  if (g_connection == nullptr) return;
  while (xcb_generic_event_t* event = g_xcb.poll_for_event(g_connection)) {
    // Sent by a client (a window manager's, ICCCM 4.1.5), not the server:
    // not necessarily the window's size now.
    uint8_t type = (event->response_type & 0x80) != 0 ? 0 : event->response_type;
    switch (type) {
      case XCB_CONFIGURE_NOTIFY: {
        auto* configure = reinterpret_cast<xcb_configure_notify_event_t*>(event);
        if (configure->window == configure->event)  // the window itself, not a child
          apply(configure->window, event->full_sequence,
                packed(configure->width, configure->height));
        break;
      }
      case XCB_DESTROY_NOTIFY: {
        auto* destroy = reinterpret_cast<xcb_destroy_notify_event_t*>(event);
        if (destroy->window == destroy->event) apply(destroy->window, event->full_sequence, 0);
        break;
      }
      default:
        break;
    }
    free(event);
  }
  if (g_xcb.connection_has_error(g_connection) != 0) drop_connection();
}

// The entry of `surface`, or a free one (under g_mutex).
WindowWatch* entry_for(const void* surface) {
  WindowWatch* free_entry = nullptr;
  for (WindowWatch& watch : g_watches) {
    if (watch.surface.load(std::memory_order_relaxed) == surface) return &watch;
    if (free_entry == nullptr && watch.size.load(std::memory_order_relaxed) == 0)
      free_entry = &watch;
  }
  return free_entry;
}

// Selects StructureNotify on `window` and reads its size: watched when it is
// a window of the server and has width x height (an app of another
// platform, whose value happened to name some X window, is not).
bool select_window(WindowWatch* watch, uint32_t window, uint32_t width, uint32_t height) {
  const uint32_t mask = XCB_EVENT_MASK_STRUCTURE_NOTIFY;
  xcb_void_cookie_t select =
      g_xcb.change_window_attributes_checked(g_connection, window, XCB_CW_EVENT_MASK, &mask);
  xcb_get_geometry_cookie_t geometry = g_xcb.get_geometry(g_connection, window);
  xcb_get_geometry_reply_t* reply = g_xcb.get_geometry_reply(g_connection, geometry, nullptr);
  xcb_generic_error_t* error = g_xcb.request_check(g_connection, select);
  bool same =
      reply != nullptr && error == nullptr && reply->width == width && reply->height == height;
  free(reply);
  free(error);
  if (!same) return false;
  watch->window = window;
  watch->since = geometry.sequence;
  watch->size.store(packed(width, height), std::memory_order_relaxed);
  return true;
}

}  // namespace

void watch_window_surface(const void* surface, uint64_t native_window, uint32_t width,
                          uint32_t height) {
  // No window given (a snapshot writes a surface as the call that made it):
  // its watch, if any, stays.
  if (surface == nullptr || native_window == 0) return;
  // The top three bits of an X resource id are zero (X11 protocol, 1): a
  // larger value is a pointer, another platform's window. An app's window
  // has its client's resource base, 1 << 18 at least (the X server's own
  // ids are below, the root window's too: an app drawing on it is not
  // watched): a smaller value is another platform's (the version field a
  // Wayland wl_egl_window starts with), and no X connection is made for it.
  bool maybe_x11 = native_window >= (uint64_t{1} << 18) && native_window < (uint64_t{1} << 29);
  std::lock_guard<std::mutex> lock(g_mutex);
  WindowWatch* watch = entry_for(surface);
  if (watch != nullptr) {
    // A handle the driver gave before, to a surface since destroyed: that
    // one's watch ends.
    watch->size.store(0, std::memory_order_relaxed);
    watch->window = 0;
  }
  if (watch == nullptr || !maybe_x11 || width == 0 || height == 0) return;
  watch->surface.store(surface, std::memory_order_relaxed);
  // Twice when the connection turns out broken (a server since restarted).
  for (int attempt = 0; attempt < 2 && connect_once(); ++attempt) {
    bool watched = select_window(watch, static_cast<uint32_t>(native_window), width, height);
    read_events();  // those that came with the reply: none is left in libxcb's queue
    if (watched || g_connection != nullptr) break;
  }
}

const WindowWatch* find_window_watch(const void* surface) {
  if (surface == nullptr) return nullptr;
  for (const WindowWatch& watch : g_watches)
    if (watch.surface.load(std::memory_order_relaxed) == surface) return &watch;
  return nullptr;
}

bool window_size_known(const WindowWatch* watch, const void* surface, uint32_t width,
                       uint32_t height) {
  if (watch == nullptr || watch->surface.load(std::memory_order_relaxed) != surface ||
      watch->size.load(std::memory_order_relaxed) == 0)
    return false;
  // Events that arrived since the last read (a resize the app just made) are
  // read before the answer (whatever the answer would be without them: the
  // size stored must follow the window's).
  int fd = g_fd.load(std::memory_order_relaxed);
  pollfd socket = {fd, POLLIN, 0};
  if (fd >= 0 && poll(&socket, 1, 0) != 0) {
    std::lock_guard<std::mutex> lock(g_mutex);
    read_events();
  }
  return watch->size.load(std::memory_order_relaxed) == packed(width, height);
}

}  // namespace gltrace::trace
