// What the replayed compositor shows: the displays and surfaces of a surface
// trace as its increments left them, and, for one display, the list of
// quads to draw back to front. Pure logic (no GL), so it is tested alone;
// surfacereplayer's executor applies increments to it in trace order and
// hands each VSync's draw list to the GLES compositor.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "surface/surface.pb.h"

namespace gltrace::surface {

// Beyond these a buffer or display is refused (GL textures of llvmpipe and
// most drivers stop at 16384; memory is bounded separately).
inline constexpr uint32_t kMaxBufferSide = 8192;
inline constexpr uint32_t kMaxDisplaySide = 8192;
inline constexpr uint64_t kMaxDisplayPixels = uint64_t{kMaxDisplaySide} * kMaxDisplaySide;

// One buffer's pixels: premultiplied RGBA, rows top first, w*4 bytes each.
struct BufferImage {
  uint32_t w = 0;
  uint32_t h = 0;
  bool has_alpha = false;  // false: every alpha byte is 255
  std::vector<uint8_t> rgba;
};
using BufferPtr = std::shared_ptr<const BufferImage>;

// The seed's random colour, made deterministic: hue (137 * id) mod 360
// degrees, full saturation, and a value that steps 1, 7/8, 6/8, 5/8 with the
// surface's buffer updates (update n of the surface: value 1 - (n mod 4)/8),
// so every update shows. docs/surface.md gives the formula; tests recompute it.
std::array<uint8_t, 3> surface_colour(int32_t id, uint64_t update);

// x' = a*x + c*y + e, y' = b*x + d*y + f.
struct Affine {
  float a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;
  Affine then(const Affine& outer) const;  // outer after this
  static Affine translate(float x, float y) { return {1, 0, 0, 1, x, y}; }
};

// One surface drawn on one display, back to front.
struct DrawItem {
  int32_t surface_id = 0;
  float width = 0;    // the surface's size in its own pixels
  float height = 0;   // (before its matrix and its parents')
  Affine to_display;  // surface pixel (0..width, 0..height) to display pixel
  // Buffer area shown, normalized (left, top, right, bottom), after the crop.
  std::array<float, 4> source{0, 0, 1, 1};
  uint32_t buffer_transform = 0;  // wl_output transform, 0-7
  float alpha = 1;
  bool opaque = false;  // ignore the buffer's alpha
  float corner_radius = 0;
  BufferPtr buffer;
};

struct DisplayFrame {
  int32_t display_id = 0;
  // Every display that exists now: the compositor drops what it keeps for
  // the others.
  std::vector<int32_t> live_displays;
  uint32_t width = 0;
  uint32_t height = 0;
  bool powered = true;  // power mode OFF (0) shows black
  std::vector<DrawItem> items;
};

struct DisplayState {
  int32_t id = 0;
  std::string name;
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t layer_stack = 0;
  int32_t orientation = 0;  // 0-3: quarter turns
  Rectangle viewport;       // empty: the whole display
  Rectangle frame;          // empty: the whole display
  int32_t power_mode = 2;   // Android's NORMAL
  uint64_t order = 0;
};

class Scene {
 public:
  Scene();
  ~Scene();
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  // Applies a transaction, creation, deletion or power mode update. Buffer
  // updates go through post_buffer(); VSyncs through frame(). False with
  // *error (naming the surface or display) when it refers to something that
  // does not exist or is out of range; the scene is then unchanged by the
  // offending change (earlier changes of the transaction stay).
  bool apply(const Increment& increment, std::string* error);
  bool post_buffer(int32_t surface_id, BufferPtr buffer, std::string* error);

  // The display a VSync is for: the one with this id, or for id 0 when none
  // has it, the oldest display. Null when there is none.
  const DisplayState* vsync_display(int32_t display_id) const;
  DisplayFrame frame(int32_t display_id) const;

  // The ids of the displays that exist.
  std::vector<int32_t> display_ids() const;

  // Back to an empty scene (loop mode).
  void clear();

  // A line per surface for `info`.
  std::string describe() const;

  bool has_surface(int32_t id) const { return surfaces_.count(id) != 0; }
  size_t surface_count() const { return surfaces_.size(); }

 private:
  struct SurfaceState;
  bool apply_surface_change(const SurfaceChange& change, std::string* error);
  bool apply_display_change(const DisplayChange& change, std::string* error);
  // Sides from 1 to kMaxDisplaySide, and all displays (this one at this
  // size) within kMaxDisplayPixels.
  bool display_size_ok(int32_t id, uint32_t width, uint32_t height, std::string* error) const;
  // The surface whose z order this one is in (relative parent, else parent),
  // or null for a root; cycles are cut.
  const SurfaceState* z_parent(const SurfaceState& surface) const;
  const SurfaceState* geometry_parent(const SurfaceState& surface) const;
  void collect(const SurfaceState& surface, const DisplayState& display,
               const std::multimap<const SurfaceState*, const SurfaceState*>& children,
               std::vector<DrawItem>* out) const;

  std::map<int32_t, std::unique_ptr<SurfaceState>> surfaces_;
  std::map<int32_t, std::unique_ptr<DisplayState>> displays_;
  uint64_t created_ = 0;  // creation order, the tie-break of equal layers
};

}  // namespace gltrace::surface
