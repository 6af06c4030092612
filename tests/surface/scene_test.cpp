// The scene model alone (no GL): what surfacereplayer's compositor is told
// to draw, in which order and where, after each kind of change.
#include "surface/scene.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace gltrace::surface {
namespace {

class SceneTest : public ::testing::Test {
 protected:
  void apply_ok(const Increment& increment) {
    std::string error;
    ASSERT_TRUE(scene_.apply(increment, &error)) << error;
  }

  std::string apply_error(const Increment& increment) {
    std::string error;
    EXPECT_FALSE(scene_.apply(increment, &error));
    return error;
  }

  void display(int32_t id, uint32_t w, uint32_t h) {
    Increment increment;
    auto* c = increment.mutable_display_creation();
    c->set_id(id);
    c->set_w(w);
    c->set_h(h);
    apply_ok(increment);
  }

  // A surface with a w x h buffer.
  void surface(int32_t id, uint32_t w, uint32_t h, int32_t parent = 0) {
    Increment increment;
    increment.mutable_surface_creation()->set_id(id);
    increment.mutable_surface_creation()->set_parent_id(parent);
    apply_ok(increment);
    auto buffer = std::make_shared<BufferImage>();
    buffer->w = w;
    buffer->h = h;
    std::string error;
    ASSERT_TRUE(scene_.post_buffer(id, buffer, &error)) << error;
  }

  // A transaction of one change; `set` fills it.
  template <typename Set>
  Increment change(int32_t id, Set set) {
    Increment increment;
    SurfaceChange* c = increment.mutable_transaction()->add_surface_change();
    c->set_id(id);
    set(c);
    return increment;
  }

  std::vector<int32_t> order(int32_t display = 0) {
    std::vector<int32_t> ids;
    for (const DrawItem& item : scene_.frame(display).items) ids.push_back(item.surface_id);
    return ids;
  }

  const DrawItem& item(int32_t id) {
    frame_ = scene_.frame(0);
    for (const DrawItem& item : frame_.items)
      if (item.surface_id == id) return item;
    static DrawItem none;
    ADD_FAILURE() << "surface " << id << " is not drawn";
    return none;
  }

  static void map(const Affine& m, float x, float y, float* ox, float* oy) {
    *ox = m.a * x + m.c * y + m.e;
    *oy = m.b * x + m.d * y + m.f;
  }

  Scene scene_;
  DisplayFrame frame_;
};

TEST_F(SceneTest, StacksByLayerThenCreation) {
  display(1, 100, 100);
  surface(1, 10, 10);
  surface(2, 10, 10);
  surface(3, 10, 10);
  EXPECT_EQ(order(), (std::vector<int32_t>{1, 2, 3}));
  apply_ok(change(1, [](SurfaceChange* c) { c->mutable_layer()->set_layer(5); }));
  apply_ok(change(3, [](SurfaceChange* c) { c->mutable_layer()->set_layer(-1); }));
  EXPECT_EQ(order(), (std::vector<int32_t>{3, 2, 1}));
}

TEST_F(SceneTest, RelativeParentsAndChildren) {
  display(1, 100, 100);
  surface(1, 10, 10);
  surface(2, 10, 10);
  surface(3, 10, 10);
  surface(4, 10, 10);
  surface(5, 10, 10, /*parent=*/1);  // a child: above its parent (layer 0)
  apply_ok(change(2, [](SurfaceChange* c) { c->mutable_layer()->set_layer(5); }));
  apply_ok(change(3, [](SurfaceChange* c) {
    c->mutable_relative_parent()->set_relative_parent_id(1);
    c->mutable_relative_parent()->set_z(-1);
  }));
  apply_ok(change(4, [](SurfaceChange* c) {
    c->mutable_relative_parent()->set_relative_parent_id(1);
    c->mutable_relative_parent()->set_z(3);
  }));
  // 3 below 1, then 1, its child 5 (z 0), 4 (z 3), then layer 5's surface 2.
  EXPECT_EQ(order(), (std::vector<int32_t>{3, 1, 5, 4, 2}));
  // Detaching (relative parent 0) stacks 4 by its layer again: before 1 (created later, layer 0).
  apply_ok(change(4, [](SurfaceChange* c) { c->mutable_relative_parent(); }));
  EXPECT_EQ(order(), (std::vector<int32_t>{3, 1, 5, 4, 2}));
  apply_ok(change(4, [](SurfaceChange* c) { c->mutable_layer()->set_layer(-2); }));
  EXPECT_EQ(order(), (std::vector<int32_t>{4, 3, 1, 5, 2}));
}

TEST_F(SceneTest, RelativeParentCycleIsCut) {
  display(1, 100, 100);
  surface(1, 10, 10);
  surface(2, 10, 10);
  apply_ok(
      change(1, [](SurfaceChange* c) { c->mutable_relative_parent()->set_relative_parent_id(2); }));
  apply_ok(
      change(2, [](SurfaceChange* c) { c->mutable_relative_parent()->set_relative_parent_id(1); }));
  EXPECT_EQ(order(), (std::vector<int32_t>{1, 2}));  // both roots, nothing lost or doubled
  EXPECT_NE(apply_error(change(1,
                               [](SurfaceChange* c) {
                                 c->mutable_relative_parent()->set_relative_parent_id(1);
                               }))
                .find("relative parent is itself"),
            std::string::npos);
}

TEST_F(SceneTest, MatrixPositionAndParentGeometry) {
  display(1, 100, 100);
  surface(1, 40, 20);
  surface(2, 4, 4, /*parent=*/1);
  apply_ok(change(1, [](SurfaceChange* c) {
    c->mutable_position()->set_x(50);
    c->mutable_position()->set_y(10);
  }));
  // A quarter turn clockwise: dsdx 0, dtdx 1, dsdy 0, dtdy -1.
  apply_ok(change(1, [](SurfaceChange* c) {
    c->mutable_matrix()->set_dtdx(1);
    c->mutable_matrix()->set_dtdy(-1);
  }));
  apply_ok(change(2, [](SurfaceChange* c) {
    c->mutable_position()->set_x(10);
    c->mutable_position()->set_y(0);
  }));
  float x = 0, y = 0;
  map(item(1).to_display, 40, 0, &x, &y);  // the top-right corner goes down
  EXPECT_FLOAT_EQ(x, 50);
  EXPECT_FLOAT_EQ(y, 50);
  map(item(1).to_display, 0, 20, &x, &y);  // the bottom-left corner goes left
  EXPECT_FLOAT_EQ(x, 30);
  EXPECT_FLOAT_EQ(y, 10);
  map(item(2).to_display, 0, 0, &x, &y);  // the child turns with its parent
  EXPECT_FLOAT_EQ(x, 50);
  EXPECT_FLOAT_EQ(y, 20);
}

TEST_F(SceneTest, SizeFromBufferCropScaleTransformOrSizeChange) {
  display(1, 100, 100);
  surface(1, 40, 20);
  EXPECT_FLOAT_EQ(item(1).width, 40);
  EXPECT_FLOAT_EQ(item(1).height, 20);
  apply_ok(change(1, [](SurfaceChange* c) {
    auto* r = c->mutable_crop()->mutable_rectangle();
    r->set_left(10);
    r->set_top(0);
    r->set_right(30);
    r->set_bottom(100);  // clamped to the buffer
  }));
  EXPECT_FLOAT_EQ(item(1).width, 20);
  EXPECT_FLOAT_EQ(item(1).height, 20);
  EXPECT_FLOAT_EQ(item(1).source[0], 0.25f);
  EXPECT_FLOAT_EQ(item(1).source[2], 0.75f);
  EXPECT_FLOAT_EQ(item(1).source[3], 1.0f);
  apply_ok(change(1, [](SurfaceChange* c) { c->mutable_crop(); }));  // no crop again
  apply_ok(change(1, [](SurfaceChange* c) { c->mutable_buffer_transform()->set_transform(3); }));
  apply_ok(change(1, [](SurfaceChange* c) { c->mutable_buffer_scale()->set_scale(2); }));
  EXPECT_FLOAT_EQ(item(1).width, 10);
  EXPECT_FLOAT_EQ(item(1).height, 20);
  apply_ok(change(1, [](SurfaceChange* c) {
    c->mutable_size()->set_w(7);
    c->mutable_size()->set_h(9);
  }));
  EXPECT_FLOAT_EQ(item(1).width, 7);
  EXPECT_FLOAT_EQ(item(1).height, 9);
}

TEST_F(SceneTest, HiddenTransparentDeletedAndOtherLayerStacksAreNotDrawn) {
  display(1, 100, 100);
  surface(1, 10, 10);
  surface(2, 10, 10, /*parent=*/1);
  surface(3, 10, 10);
  surface(4, 10, 10);
  apply_ok(change(1, [](SurfaceChange* c) { c->mutable_hidden_flag()->set_hidden_flag(true); }));
  apply_ok(change(3, [](SurfaceChange* c) { c->mutable_alpha()->set_alpha(0); }));
  apply_ok(change(4, [](SurfaceChange* c) { c->mutable_layer_stack()->set_layer_stack(2); }));
  EXPECT_EQ(order(), std::vector<int32_t>{});  // 2 hidden with its parent
  apply_ok(change(1, [](SurfaceChange* c) { c->mutable_hidden_flag()->set_hidden_flag(false); }));
  EXPECT_EQ(order(), (std::vector<int32_t>{1, 2}));
  Increment deletion;
  deletion.mutable_surface_deletion()->set_id(1);
  apply_ok(deletion);
  EXPECT_EQ(order(), std::vector<int32_t>{});  // a child whose parent is gone is not drawn
  Increment stack;
  auto* d = stack.mutable_transaction()->add_display_change();
  d->set_id(1);
  d->mutable_layer_stack()->set_layer_stack(2);
  apply_ok(stack);
  EXPECT_EQ(order(), std::vector<int32_t>{4});
}

TEST_F(SceneTest, ProjectionAndVsyncDisplay) {
  display(7, 200, 100);
  surface(1, 10, 10);
  Increment projection;
  auto* d = projection.mutable_transaction()->add_display_change();
  d->set_id(7);
  d->mutable_projection()->set_orientation(1);
  auto* viewport = d->mutable_projection()->mutable_viewport();
  viewport->set_right(100);
  viewport->set_bottom(100);
  apply_ok(projection);
  float x = 0, y = 0;
  map(item(1).to_display, 0, 0, &x, &y);  // the viewport's top-left goes to the frame's top-right
  EXPECT_FLOAT_EQ(x, 200);
  EXPECT_FLOAT_EQ(y, 0);
  EXPECT_EQ(scene_.vsync_display(0)->id, 7);  // 0: the oldest display
  EXPECT_EQ(scene_.vsync_display(3), nullptr);
}

TEST_F(SceneTest, BadReferencesAndSizesAreErrors) {
  display(1, 100, 100);
  surface(1, 10, 10);
  EXPECT_NE(apply_error(change(9, [](SurfaceChange* c) { c->mutable_alpha(); }))
                .find("surface 9, which does not exist"),
            std::string::npos);
  Increment twice;
  twice.mutable_surface_creation()->set_id(1);
  EXPECT_NE(apply_error(twice).find("created twice"), std::string::npos);
  Increment orphan;
  orphan.mutable_surface_creation()->set_id(2);
  orphan.mutable_surface_creation()->set_parent_id(5);
  EXPECT_NE(apply_error(orphan).find("child of surface 5"), std::string::npos);
  Increment big;
  big.mutable_display_creation()->set_id(2);
  big.mutable_display_creation()->set_w(8192);
  big.mutable_display_creation()->set_h(8192);
  EXPECT_NE(apply_error(big).find("pixels in all"), std::string::npos);
  EXPECT_NE(
      apply_error(change(1,
                         [](SurfaceChange* c) {
                           c->mutable_position()->set_x(std::numeric_limits<float>::infinity());
                         }))
          .find("not finite"),
      std::string::npos);
  std::string error;
  EXPECT_FALSE(scene_.post_buffer(3, std::make_shared<BufferImage>(), &error));
}

TEST(SurfaceColourTest, IsTheDocumentedFormula) {
  // Hue 137: green with some blue; the value steps down with each update.
  EXPECT_EQ(surface_colour(1, 0), (std::array<uint8_t, 3>{0, 255, 72}));
  EXPECT_EQ(surface_colour(1, 4), surface_colour(1, 0));
  EXPECT_EQ(surface_colour(1, 2), (std::array<uint8_t, 3>{0, 191, 54}));
  EXPECT_EQ(surface_colour(-1, 0), surface_colour(359, 0));
}

}  // namespace
}  // namespace gltrace::surface
