// The library in use: builds a small surface trace in memory (one display,
// two surfaces, one moved across the other, a VSync per frame), replays it
// with the seed's Replayer constructor that takes a loaded Trace, and writes
// each composited frame to a directory.
//
//   surface-replay-example OUT_DIR
#include <cstdio>

#include "gltrace/surface_replayer.h"
#include "surface/surface.pb.h"

namespace {

using gltrace::surface::Increment;

Increment* at(gltrace::surface::Trace& trace, int64_t ms) {
  Increment* increment = trace.add_increment();
  increment->set_time_stamp(ms * 1000000);
  return increment;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  gltrace::surface::Trace trace;
  auto* display = at(trace, 0)->mutable_display_creation();
  display->set_id(1);
  display->set_name("example");
  display->set_w(320);
  display->set_h(240);
  for (int id : {1, 2}) {
    auto* surface = at(trace, 0)->mutable_surface_creation();
    surface->set_id(id);
    surface->set_name(id == 1 ? "background" : "sprite");
  }
  // The sprite above the background.
  auto* layer = at(trace, 0)->mutable_transaction()->add_surface_change();
  layer->set_id(2);
  layer->mutable_layer()->set_layer(1);
  for (int frame = 0; frame < 30; ++frame) {
    const int64_t ms = frame * 16;
    auto* move = at(trace, ms)->mutable_transaction()->add_surface_change();
    move->set_id(2);
    move->mutable_position()->set_x(static_cast<float>(frame * 8));
    move->mutable_position()->set_y(80);
    for (int id : {1, 2}) {
      auto* update = at(trace, ms)->mutable_buffer_update();
      update->set_id(id);
      update->set_w(id == 1 ? 320 : 64);
      update->set_h(id == 1 ? 240 : 64);
      update->set_frame_number(static_cast<uint64_t>(frame));
    }
    at(trace, ms)->mutable_vsync_event()->set_display_id(1);
  }
  gltrace::surface::ReplayerSettings settings;
  settings.output_dir = argv[1];
  gltrace::surface::Replayer replayer(trace, /*replay_manually=*/false, /*num_threads=*/2,
                                      /*wait=*/true, /*stop_here=*/-1, settings);
  gltrace::surface::ReplayResult result = replayer.replay();
  std::printf("%s\n", result.message.c_str());
  return result.ok ? 0 : 1;
}
