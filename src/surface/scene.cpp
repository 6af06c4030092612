#include "surface/scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gltrace::surface {

// Parent and relative-parent chains deeper than this are cut: a hostile
// trace must not recurse the compositor off its stack.
constexpr int kMaxDepth = 64;

struct Scene::SurfaceState {
  int32_t id = 0;
  std::string name;
  int32_t parent_id = 0;  // SurfaceCreation.parent_id: position and z relative to it
  uint64_t order = 0;
  float x = 0, y = 0;
  uint32_t size_w = 0, size_h = 0;  // 0: follow the buffer
  float alpha = 1;
  int32_t layer = 0;
  Rectangle crop;
  // dsdx, dtdx, dsdy, dtdy (identity)
  float dsdx = 1, dtdx = 0, dsdy = 1, dtdy = 0;
  bool hidden = false;
  bool opaque = false;
  uint32_t layer_stack = 0;
  float corner_radius = 0;
  std::optional<int32_t> relative_parent;
  int32_t relative_z = 0;
  uint32_t buffer_transform = 0;
  int32_t buffer_scale = 1;
  BufferPtr buffer;
};

Scene::Scene() = default;
Scene::~Scene() = default;

std::array<uint8_t, 3> surface_colour(int32_t id, uint64_t update) {
  const int64_t hue = ((static_cast<int64_t>(id) * 137) % 360 + 360) % 360;
  const double value = 1.0 - static_cast<double>(update % 4) / 8.0;
  const double h = static_cast<double>(hue) / 60.0;
  const double x = value * (1.0 - std::fabs(std::fmod(h, 2.0) - 1.0));
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h)) {
    case 0:
      r = value, g = x;
      break;
    case 1:
      r = x, g = value;
      break;
    case 2:
      g = value, b = x;
      break;
    case 3:
      g = x, b = value;
      break;
    case 4:
      r = x, b = value;
      break;
    default:
      r = value, b = x;
      break;
  }
  auto byte = [](double v) { return static_cast<uint8_t>(std::lround(v * 255.0)); };
  return {byte(r), byte(g), byte(b)};
}

Affine Affine::then(const Affine& o) const {
  return {o.a * a + o.c * b, o.b * a + o.d * b,       o.a * c + o.c * d,
          o.b * c + o.d * d, o.a * e + o.c * f + o.e, o.b * e + o.d * f + o.f};
}

namespace {

bool empty(const Rectangle& r) { return r.right() <= r.left() || r.bottom() <= r.top(); }

bool finite(float v) { return std::isfinite(v); }

}  // namespace

bool Scene::apply(const Increment& increment, std::string* error) {
  switch (increment.increment_case()) {
    case Increment::kTransaction: {
      for (const SurfaceChange& change : increment.transaction().surface_change())
        if (!apply_surface_change(change, error)) return false;
      for (const DisplayChange& change : increment.transaction().display_change())
        if (!apply_display_change(change, error)) return false;
      return true;
    }
    case Increment::kSurfaceCreation: {
      const SurfaceCreation& c = increment.surface_creation();
      if (surfaces_.count(c.id()) != 0) {
        *error = "surface " + std::to_string(c.id()) + " is created twice";
        return false;
      }
      if (c.parent_id() != 0 && surfaces_.count(c.parent_id()) == 0) {
        *error = "surface " + std::to_string(c.id()) + " is created as a child of surface " +
                 std::to_string(c.parent_id()) + ", which does not exist";
        return false;
      }
      auto surface = std::make_unique<SurfaceState>();
      surface->id = c.id();
      surface->name = c.name();
      surface->parent_id = c.parent_id();
      surface->order = created_++;
      surfaces_[c.id()] = std::move(surface);
      return true;
    }
    case Increment::kSurfaceDeletion:
      if (surfaces_.erase(increment.surface_deletion().id()) == 0) {
        *error = "deletion of surface " + std::to_string(increment.surface_deletion().id()) +
                 ", which does not exist";
        return false;
      }
      return true;
    case Increment::kDisplayCreation: {
      const DisplayCreation& c = increment.display_creation();
      if (displays_.count(c.id()) != 0) {
        *error = "display " + std::to_string(c.id()) + " is created twice";
        return false;
      }
      if (!display_size_ok(c.id(), c.w(), c.h(), error)) return false;
      auto display = std::make_unique<DisplayState>();
      display->id = c.id();
      display->name = c.name();
      display->width = c.w();
      display->height = c.h();
      display->order = created_++;
      displays_[c.id()] = std::move(display);
      return true;
    }
    case Increment::kDisplayDeletion:
      if (displays_.erase(increment.display_deletion().id()) == 0) {
        *error = "deletion of display " + std::to_string(increment.display_deletion().id()) +
                 ", which does not exist";
        return false;
      }
      return true;
    case Increment::kPowerModeUpdate: {
      auto it = displays_.find(increment.power_mode_update().id());
      if (it == displays_.end()) {
        *error = "power mode of display " + std::to_string(increment.power_mode_update().id()) +
                 ", which does not exist";
        return false;
      }
      it->second->power_mode = increment.power_mode_update().mode();
      return true;
    }
    case Increment::kBufferUpdate:
    case Increment::kVsyncEvent:
    case Increment::INCREMENT_NOT_SET:
      return true;
  }
  return true;
}

bool Scene::apply_surface_change(const SurfaceChange& change, std::string* error) {
  auto it = surfaces_.find(change.id());
  const std::string name = "surface " + std::to_string(change.id());
  if (it == surfaces_.end()) {
    *error = "a transaction changes " + name + ", which does not exist";
    return false;
  }
  SurfaceState& s = *it->second;
  auto bad = [&](const std::string& what) {
    *error = name + ": " + what;
    return false;
  };
  switch (change.SurfaceChange_case()) {
    case SurfaceChange::kPosition:
      if (!finite(change.position().x()) || !finite(change.position().y()))
        return bad("position is not finite");
      s.x = change.position().x();
      s.y = change.position().y();
      break;
    case SurfaceChange::kSize:
      s.size_w = change.size().w();
      s.size_h = change.size().h();
      break;
    case SurfaceChange::kAlpha:
      if (!finite(change.alpha().alpha())) return bad("alpha is not finite");
      s.alpha = std::clamp(change.alpha().alpha(), 0.0f, 1.0f);
      break;
    case SurfaceChange::kLayer:
      s.layer = change.layer().layer();
      break;
    case SurfaceChange::kCrop:
      s.crop = change.crop().rectangle();
      break;
    case SurfaceChange::kMatrix: {
      const MatrixChange& m = change.matrix();
      if (!finite(m.dsdx()) || !finite(m.dtdx()) || !finite(m.dsdy()) || !finite(m.dtdy()))
        return bad("matrix is not finite");
      s.dsdx = m.dsdx();
      s.dtdx = m.dtdx();
      s.dsdy = m.dsdy();
      s.dtdy = m.dtdy();
      break;
    }
    case SurfaceChange::kHiddenFlag:
      s.hidden = change.hidden_flag().hidden_flag();
      break;
    case SurfaceChange::kOpaqueFlag:
      s.opaque = change.opaque_flag().opaque_flag();
      break;
    case SurfaceChange::kLayerStack:
      s.layer_stack = change.layer_stack().layer_stack();
      break;
    case SurfaceChange::kCornerRadius:
      if (!finite(change.corner_radius().corner_radius()) ||
          change.corner_radius().corner_radius() < 0)
        return bad("corner radius is not a finite number >= 0");
      s.corner_radius = change.corner_radius().corner_radius();
      break;
    case SurfaceChange::kRelativeParent: {
      const int32_t parent = change.relative_parent().relative_parent_id();
      if (parent == change.id()) return bad("relative parent is itself");
      // 0 (no id) detaches, as an unset field would.
      if (parent != 0 && surfaces_.count(parent) == 0)
        return bad("relative parent " + std::to_string(parent) + " does not exist");
      s.relative_parent = parent == 0 ? std::nullopt : std::optional<int32_t>(parent);
      s.relative_z = change.relative_parent().z();
      break;
    }
    case SurfaceChange::kBufferTransform:
      if (change.buffer_transform().transform() > 7)
        return bad("buffer transform " + std::to_string(change.buffer_transform().transform()) +
                   " is not a wl_output transform (0-7)");
      s.buffer_transform = change.buffer_transform().transform();
      break;
    case SurfaceChange::kBufferScale:
      if (change.buffer_scale().scale() < 1 || change.buffer_scale().scale() > 64)
        return bad("buffer scale " + std::to_string(change.buffer_scale().scale()) +
                   " is not 1 to 64");
      s.buffer_scale = change.buffer_scale().scale();
      break;
    case SurfaceChange::SURFACECHANGE_NOT_SET:
      break;
  }
  return true;
}

bool Scene::display_size_ok(int32_t id, uint32_t width, uint32_t height, std::string* error) const {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (width == 0 || height == 0 || width > kMaxDisplaySide || height > kMaxDisplaySide) {
    *error = "display " + std::to_string(id) + " is " + size + ": sides must be 1 to " +
             std::to_string(kMaxDisplaySide);
    return false;
  }
  // Each display is an image the compositor keeps: their pixels are bounded
  // in all, not only one by one.
  uint64_t pixels = uint64_t{width} * height;
  for (const auto& [other, display] : displays_)
    if (other != id) pixels += uint64_t{display->width} * display->height;
  if (pixels > kMaxDisplayPixels) {
    *error = "display " + std::to_string(id) + " is " + size + ": the displays would have " +
             std::to_string(pixels) + " pixels in all, more than the " +
             std::to_string(kMaxDisplayPixels) + " the replay supports";
    return false;
  }
  return true;
}

bool Scene::apply_display_change(const DisplayChange& change, std::string* error) {
  auto it = displays_.find(change.id());
  if (it == displays_.end()) {
    *error =
        "a transaction changes display " + std::to_string(change.id()) + ", which does not exist";
    return false;
  }
  DisplayState& d = *it->second;
  switch (change.DisplayChange_case()) {
    case DisplayChange::kLayerStack:
      d.layer_stack = change.layer_stack().layer_stack();
      break;
    case DisplayChange::kSize:
      if (!display_size_ok(change.id(), change.size().w(), change.size().h(), error)) return false;
      d.width = change.size().w();
      d.height = change.size().h();
      break;
    case DisplayChange::kProjection:
      d.orientation = ((change.projection().orientation() % 4) + 4) % 4;
      d.viewport = change.projection().viewport();
      d.frame = change.projection().frame();
      break;
    case DisplayChange::kSurface:  // which buffer queue a virtual display fills: nothing to draw
    case DisplayChange::DISPLAYCHANGE_NOT_SET:
      break;
  }
  return true;
}

bool Scene::post_buffer(int32_t surface_id, BufferPtr buffer, std::string* error) {
  auto it = surfaces_.find(surface_id);
  if (it == surfaces_.end()) {
    *error = "a buffer update for surface " + std::to_string(surface_id) + ", which does not exist";
    return false;
  }
  it->second->buffer = std::move(buffer);
  return true;
}

const DisplayState* Scene::vsync_display(int32_t display_id) const {
  auto it = displays_.find(display_id);
  if (it != displays_.end()) return it->second.get();
  if (display_id != 0 || displays_.empty()) return nullptr;
  const DisplayState* oldest = nullptr;
  for (const auto& [id, display] : displays_)
    if (oldest == nullptr || display->order < oldest->order) oldest = display.get();
  return oldest;
}

const Scene::SurfaceState* Scene::geometry_parent(const SurfaceState& surface) const {
  if (surface.parent_id == 0) return nullptr;
  auto it = surfaces_.find(surface.parent_id);
  return it == surfaces_.end() ? nullptr : it->second.get();
}

const Scene::SurfaceState* Scene::z_parent(const SurfaceState& surface) const {
  auto parent_of = [this](const SurfaceState& s) -> const SurfaceState* {
    if (s.relative_parent) {
      auto it = surfaces_.find(*s.relative_parent);
      if (it != surfaces_.end()) return it->second.get();
    }
    return geometry_parent(s);
  };
  const SurfaceState* parent = parent_of(surface);
  if (parent == nullptr) return nullptr;
  // A chain that comes back to itself or goes on too long makes its surface
  // a root (drawn by its layer) rather than looping.
  const SurfaceState* walk = parent;
  for (int depth = 0; walk != nullptr; ++depth) {
    if (walk == &surface || depth >= kMaxDepth) return nullptr;
    walk = parent_of(*walk);
  }
  return parent;
}

void Scene::collect(const SurfaceState& surface, const DisplayState& display,
                    const std::multimap<const SurfaceState*, const SurfaceState*>& children,
                    std::vector<DrawItem>* out) const {
  std::vector<const SurfaceState*> kids;
  auto range = children.equal_range(&surface);
  for (auto it = range.first; it != range.second; ++it) kids.push_back(it->second);
  // Z among its siblings: the relative z under a relative parent, else the layer.
  auto key = [](const SurfaceState* s) { return s->relative_parent ? s->relative_z : s->layer; };
  std::sort(kids.begin(), kids.end(), [&](const SurfaceState* a, const SurfaceState* b) {
    return key(a) != key(b) ? key(a) < key(b) : a->order < b->order;
  });
  size_t k = 0;
  for (; k < kids.size() && key(kids[k]) < 0; ++k) collect(*kids[k], display, children, out);

  // The surface itself, with its parents' geometry, alpha and visibility.
  Affine to_stack;
  float alpha = 1;
  bool hidden = false;
  bool attached = true;
  uint32_t layer_stack = surface.layer_stack;
  const SurfaceState* s = &surface;
  for (int depth = 0; s != nullptr; ++depth) {
    if (depth >= kMaxDepth) {
      attached = false;
      break;
    }
    Affine local{s->dsdx, s->dtdx, s->dtdy, s->dsdy, 0, 0};
    to_stack = to_stack.then(local).then(Affine::translate(s->x, s->y));
    alpha *= s->alpha;
    hidden = hidden || s->hidden;
    layer_stack = s->layer_stack;
    if (s->parent_id != 0 && geometry_parent(*s) == nullptr) attached = false;  // parent gone
    s = geometry_parent(*s);
  }
  const BufferImage* buffer = surface.buffer.get();
  if (attached && !hidden && alpha > 0 && buffer != nullptr && layer_stack == display.layer_stack) {
    // The buffer area shown: the crop (buffer pixels), clamped to the buffer.
    float left = 0, top = 0, right = static_cast<float>(buffer->w),
          bottom = static_cast<float>(buffer->h);
    if (!empty(surface.crop)) {
      left = std::clamp(static_cast<float>(surface.crop.left()), 0.0f, right);
      top = std::clamp(static_cast<float>(surface.crop.top()), 0.0f, bottom);
      right = std::clamp(static_cast<float>(surface.crop.right()), 0.0f, right);
      bottom = std::clamp(static_cast<float>(surface.crop.bottom()), 0.0f, bottom);
    }
    float width = right - left, height = bottom - top;
    if (surface.buffer_transform % 2 == 1) std::swap(width, height);
    width /= static_cast<float>(surface.buffer_scale);
    height /= static_cast<float>(surface.buffer_scale);
    if (surface.size_w != 0 && surface.size_h != 0) {
      width = static_cast<float>(surface.size_w);
      height = static_cast<float>(surface.size_h);
    }
    if (width > 0 && height > 0 && right > left && bottom > top) {
      // Layer stack space to display pixels: the viewport onto the frame,
      // turned by quarter turns (clockwise).
      const float dw = static_cast<float>(display.width), dh = static_cast<float>(display.height);
      auto rect = [&](const Rectangle& r, float* x, float* y, float* w, float* h) {
        if (empty(r)) {
          *x = 0, *y = 0, *w = dw, *h = dh;
        } else {
          *x = static_cast<float>(r.left()), *y = static_cast<float>(r.top());
          *w = static_cast<float>(r.right()) - *x, *h = static_cast<float>(r.bottom()) - *y;
        }
      };
      float vx, vy, vw, vh, fx, fy, fw, fh;
      rect(display.viewport, &vx, &vy, &vw, &vh);
      rect(display.frame, &fx, &fy, &fw, &fh);
      static const Affine kTurns[4] = {
          {1, 0, 0, 1, 0, 0}, {0, 1, -1, 0, 1, 0}, {-1, 0, 0, -1, 1, 1}, {0, -1, 1, 0, 0, 1}};
      Affine projection = Affine{1 / vw, 0, 0, 1 / vh, -vx / vw, -vy / vh}
                              .then(kTurns[display.orientation])
                              .then(Affine{fw, 0, 0, fh, fx, fy});
      DrawItem item;
      item.surface_id = surface.id;
      item.width = width;
      item.height = height;
      item.to_display = to_stack.then(projection);
      const float bw = static_cast<float>(buffer->w), bh = static_cast<float>(buffer->h);
      item.source = {left / bw, top / bh, right / bw, bottom / bh};
      item.buffer_transform = surface.buffer_transform;
      item.alpha = alpha;
      item.opaque = surface.opaque;
      item.corner_radius = surface.corner_radius;
      item.buffer = surface.buffer;
      out->push_back(std::move(item));
    }
  }
  for (; k < kids.size(); ++k) collect(*kids[k], display, children, out);
}

DisplayFrame Scene::frame(int32_t display_id) const {
  DisplayFrame frame;
  const DisplayState* display = vsync_display(display_id);
  if (display == nullptr) return frame;
  frame.display_id = display->id;
  frame.live_displays = display_ids();
  frame.width = display->width;
  frame.height = display->height;
  frame.powered = display->power_mode != 0;
  if (!frame.powered) return frame;
  std::multimap<const SurfaceState*, const SurfaceState*> children;
  std::vector<const SurfaceState*> roots;
  for (const auto& [id, surface] : surfaces_) {
    const SurfaceState* parent = z_parent(*surface);
    if (parent != nullptr)
      children.emplace(parent, surface.get());
    else
      roots.push_back(surface.get());
  }
  std::sort(roots.begin(), roots.end(), [](const SurfaceState* a, const SurfaceState* b) {
    return a->layer != b->layer ? a->layer < b->layer : a->order < b->order;
  });
  for (const SurfaceState* root : roots) collect(*root, *display, children, &frame.items);
  return frame;
}

std::vector<int32_t> Scene::display_ids() const {
  std::vector<int32_t> ids;
  for (const auto& [id, display] : displays_) ids.push_back(id);
  return ids;
}

void Scene::clear() {
  surfaces_.clear();
  displays_.clear();
  created_ = 0;
}

std::string Scene::describe() const {
  std::string text;
  char line[512];
  for (const auto& [id, d] : displays_) {
    std::snprintf(line, sizeof line, "display %d '%s' %ux%u layer stack %u power mode %d\n", id,
                  d->name.c_str(), d->width, d->height, d->layer_stack, d->power_mode);
    text += line;
  }
  for (const auto& [id, s] : surfaces_) {
    std::snprintf(
        line, sizeof line,
        "surface %d '%s' at (%g, %g) layer %d alpha %g%s layer stack %u buffer %s\n", id,
        s->name.c_str(), s->x, s->y, s->layer, s->alpha, s->hidden ? " hidden" : "", s->layer_stack,
        s->buffer ? (std::to_string(s->buffer->w) + "x" + std::to_string(s->buffer->h)).c_str()
                  : "none");
    text += line;
  }
  return text.empty() ? "no displays and no surfaces\n" : text;
}

}  // namespace gltrace::surface
