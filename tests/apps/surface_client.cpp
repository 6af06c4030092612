// gltrace-surface-client: a Wayland client whose surfaces change in known
// ways, for the surface recorder's tests. An xdg_toplevel (app id
// org.gltrace.surface-client, title "surface client") with an shm buffer and
// a subsurface cropped and scaled through wp_viewporter:
//
//   frames 1..N/2:    toplevel 200x150, subsurface at (20,30) above it
//   frames N/2+1..N:  toplevel 300x200, subsurface at (100,50) below it
//
// The subsurface's buffer is 64x64 (ARGB 0xffcc3333), its viewport source
// (16,16,32,32), its destination 48x48; at frame N/2+1 it shows a second
// buffer (0xff3333cc), at N/2+2 the first again (three updates in all). A second subsurface, above
// the first, at (150,10), has a 40x20 buffer (0xff33cc33) at buffer scale 2, rotated 90 degrees (a
// 10x20 surface); it is unmapped (a NULL buffer attached) from frame 3N/4+1 on. Each toplevel
// buffer is filled with ARGB 0xff0000NN, NN the frame number, so recorded contents can be matched
// to frames. Frames are paced by the toplevel's frame callbacks. Exits 0 after N frames.
//
//   gltrace-surface-client [--frames N] [--crash-after N]
//
// --crash-after N: dies of SIGSEGV once frame N has been shown.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <wayland-client.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "viewporter-client-protocol.h"
#include "xdg-shell-client-protocol.h"

namespace {

struct Buffer {
  wl_buffer* buffer = nullptr;
  uint32_t* pixels = nullptr;
  size_t bytes = 0;
  int width = 0, height = 0;
  bool busy = false;
};

struct Client {
  wl_display* display = nullptr;
  wl_compositor* compositor = nullptr;
  wl_subcompositor* subcompositor = nullptr;
  wl_shm* shm = nullptr;
  xdg_wm_base* wm_base = nullptr;
  wp_viewporter* viewporter = nullptr;
  bool configured = false;
  bool frame_done = true;
  std::vector<std::unique_ptr<Buffer>> buffers;
};

void fail(const char* what) {
  fprintf(stderr, "gltrace-surface-client: %s\n", what);
  exit(1);
}

const wl_buffer_listener kBufferListener = {
    [](void* data, wl_buffer*) { static_cast<Buffer*>(data)->busy = false; }};

Buffer* new_buffer(Client& c, int width, int height) {
  auto b = std::make_unique<Buffer>();
  b->width = width;
  b->height = height;
  b->bytes = static_cast<size_t>(width) * static_cast<size_t>(height) * 4;
  int fd = memfd_create("gltrace-surface-client", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(b->bytes)) != 0) fail("cannot make shm memory");
  void* map = mmap(nullptr, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) fail("cannot map shm memory");
  b->pixels = static_cast<uint32_t*>(map);
  wl_shm_pool* pool = wl_shm_create_pool(c.shm, fd, static_cast<int32_t>(b->bytes));
  b->buffer = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4, WL_SHM_FORMAT_ARGB8888);
  wl_shm_pool_destroy(pool);
  close(fd);
  wl_buffer_add_listener(b->buffer, &kBufferListener, b.get());
  c.buffers.push_back(std::move(b));
  return c.buffers.back().get();
}

// A buffer of this size the compositor has released, or a new one.
Buffer* free_buffer(Client& c, int width, int height) {
  for (auto& b : c.buffers)
    if (!b->busy && b->width == width && b->height == height) return b.get();
  return new_buffer(c, width, height);
}

void fill(Buffer* b, uint32_t argb) {
  for (size_t i = 0; i < b->bytes / 4; ++i) b->pixels[i] = argb;
}

const wl_registry_listener kRegistryListener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
      auto* c = static_cast<Client*>(data);
      if (strcmp(interface, wl_compositor_interface.name) == 0)
        c->compositor = static_cast<wl_compositor*>(
            wl_registry_bind(registry, name, &wl_compositor_interface, 4));
      else if (strcmp(interface, wl_subcompositor_interface.name) == 0)
        c->subcompositor = static_cast<wl_subcompositor*>(
            wl_registry_bind(registry, name, &wl_subcompositor_interface, 1));
      else if (strcmp(interface, wl_shm_interface.name) == 0)
        c->shm = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
      else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
        c->wm_base =
            static_cast<xdg_wm_base*>(wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
      else if (strcmp(interface, wp_viewporter_interface.name) == 0)
        c->viewporter = static_cast<wp_viewporter*>(
            wl_registry_bind(registry, name, &wp_viewporter_interface, 1));
    },
    [](void*, wl_registry*, uint32_t) {}};

const xdg_wm_base_listener kWmBaseListener = {
    [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); }};

const xdg_surface_listener kXdgSurfaceListener = {
    [](void* data, xdg_surface* surface, uint32_t serial) {
      xdg_surface_ack_configure(surface, serial);
      static_cast<Client*>(data)->configured = true;
    }};

const xdg_toplevel_listener kToplevelListener = {
    [](void*, xdg_toplevel*, int32_t, int32_t, wl_array*) {},
    [](void*, xdg_toplevel*) { fail("closed by the compositor"); },
    [](void*, xdg_toplevel*, int32_t, int32_t) {}, [](void*, xdg_toplevel*, wl_array*) {}};

const wl_callback_listener kFrameListener = {[](void* data, wl_callback* callback, uint32_t) {
  static_cast<Client*>(data)->frame_done = true;
  wl_callback_destroy(callback);
}};

}  // namespace

int main(int argc, char** argv) {
  int frames = 20;
  int crash_after = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 2) {
      frames = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--crash-after") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1) {
      crash_after = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: gltrace-surface-client [--frames N (>= 2)] [--crash-after N]\n");
      return 2;
    }
  }
  Client c;
  c.display = wl_display_connect(nullptr);
  if (c.display == nullptr) fail("cannot connect to the Wayland display (WAYLAND_DISPLAY)");
  wl_registry* registry = wl_display_get_registry(c.display);
  wl_registry_add_listener(registry, &kRegistryListener, &c);
  wl_display_roundtrip(c.display);
  if (!c.compositor || !c.subcompositor || !c.shm || !c.wm_base || !c.viewporter)
    fail(
        "the compositor lacks wl_compositor, wl_subcompositor, wl_shm, xdg_wm_base or "
        "wp_viewporter");
  xdg_wm_base_add_listener(c.wm_base, &kWmBaseListener, &c);

  wl_surface* surface = wl_compositor_create_surface(c.compositor);
  xdg_surface* xsurface = xdg_wm_base_get_xdg_surface(c.wm_base, surface);
  xdg_surface_add_listener(xsurface, &kXdgSurfaceListener, &c);
  xdg_toplevel* toplevel = xdg_surface_get_toplevel(xsurface);
  xdg_toplevel_add_listener(toplevel, &kToplevelListener, &c);
  xdg_toplevel_set_app_id(toplevel, "org.gltrace.surface-client");
  xdg_toplevel_set_title(toplevel, "surface client");

  wl_surface* child = wl_compositor_create_surface(c.compositor);
  wl_subsurface* sub = wl_subcompositor_get_subsurface(c.subcompositor, child, surface);
  wp_viewport* viewport = wp_viewporter_get_viewport(c.viewporter, child);
  wp_viewport_set_source(viewport, wl_fixed_from_int(16), wl_fixed_from_int(16),
                         wl_fixed_from_int(32), wl_fixed_from_int(32));
  wp_viewport_set_destination(viewport, 48, 48);
  Buffer* child_buffer = new_buffer(c, 64, 64);
  fill(child_buffer, 0xffcc3333);
  wl_surface_attach(child, child_buffer->buffer, 0, 0);
  wl_surface_damage(child, 0, 0, 64, 64);
  wl_subsurface_set_position(sub, 20, 30);
  wl_surface_commit(child);  // synchronized: applied with the parent's next commit

  wl_surface* scaled = wl_compositor_create_surface(c.compositor);
  wl_subsurface* scaled_sub = wl_subcompositor_get_subsurface(c.subcompositor, scaled, surface);
  Buffer* scaled_buffer = new_buffer(c, 40, 20);
  fill(scaled_buffer, 0xff33cc33);
  wl_surface_set_buffer_scale(scaled, 2);
  wl_surface_set_buffer_transform(scaled, WL_OUTPUT_TRANSFORM_90);
  wl_surface_attach(scaled, scaled_buffer->buffer, 0, 0);
  wl_surface_damage(scaled, 0, 0, 10, 20);
  wl_subsurface_set_position(scaled_sub, 150, 10);
  wl_surface_commit(scaled);

  wl_surface_commit(surface);  // the initial commit, no buffer: asks for a configure
  while (!c.configured)
    if (wl_display_dispatch(c.display) < 0) fail("lost the compositor before the first configure");

  for (int frame = 1; frame <= frames; ++frame) {
    while (!c.frame_done)
      if (wl_display_dispatch(c.display) < 0) fail("lost the compositor");
    if (crash_after > 0 && frame == crash_after + 1) {
      // A client dying with its surfaces mapped (no core file left behind).
      const rlimit no_core{0, 0};
      setrlimit(RLIMIT_CORE, &no_core);
      raise(SIGSEGV);
    }
    const bool second_half = frame > frames / 2;
    if (frame == frames / 2 + 1) {
      wl_subsurface_set_position(sub, 100, 50);
      wl_subsurface_place_below(sub, surface);
      // A new buffer committed (cached until the parent's commit), then the
      // first buffer attached again but committed only at the next frame.
      Buffer* second = new_buffer(c, 64, 64);
      fill(second, 0xff3333cc);
      wl_surface_attach(child, second->buffer, 0, 0);
      wl_surface_damage(child, 0, 0, 64, 64);
      wl_surface_commit(child);
      wl_surface_attach(child, child_buffer->buffer, 0, 0);
      wl_surface_damage(child, 0, 0, 64, 64);
    }
    if (frame == frames / 2 + 2) wl_surface_commit(child);
    if (frame == frames * 3 / 4 + 1) {
      wl_surface_attach(scaled, nullptr, 0, 0);
      wl_surface_commit(scaled);
    }
    const int width = second_half ? 300 : 200, height = second_half ? 200 : 150;
    Buffer* b = free_buffer(c, width, height);
    fill(b, 0xff000000u | static_cast<uint32_t>(frame));
    b->busy = true;
    wl_surface_attach(surface, b->buffer, 0, 0);
    wl_surface_damage(surface, 0, 0, width, height);
    c.frame_done = false;
    wl_callback_add_listener(wl_surface_frame(surface), &kFrameListener, &c);
    wl_surface_commit(surface);
  }
  while (!c.frame_done)  // the last frame shown before leaving
    if (wl_display_dispatch(c.display) < 0) fail("lost the compositor");

  wl_subsurface_destroy(scaled_sub);
  wl_surface_destroy(scaled);
  wp_viewport_destroy(viewport);
  wl_subsurface_destroy(sub);
  wl_surface_destroy(child);
  xdg_toplevel_destroy(toplevel);
  xdg_surface_destroy(xsurface);
  wl_surface_destroy(surface);
  for (auto& b : c.buffers) {
    wl_buffer_destroy(b->buffer);
    munmap(b->pixels, b->bytes);
  }
  wl_display_roundtrip(c.display);
  wl_display_disconnect(c.display);
  printf("gltrace-surface-client: %d frames shown\n", frames);
  return 0;
}
