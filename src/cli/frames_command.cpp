// `gltrace frames`: the framebuffers a trace captured, as PNG files.
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/frame_end.h"
#include "consumers/png.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "frames";

struct Wanted {
  uint64_t frame;
  uint64_t seq;
  uint32_t width, height;
  bool after_draw;  // origin "draw": several per frame
};

// Pass 1: which blobs hold which frames.
class ImageIndex : public format::Consumer {
 public:
  ImageIndex(uint64_t first, uint64_t last) : first_(first), last_(last) {}
  void on_call(const format::Call& call) override {
    if (consumers::ends_frame(call)) ++frames;
  }
  bool wants_values(uint32_t /*function*/) const override { return false; }
  void on_frame(const format::Frame& frame) override {
    if (!numbered || frame.number < first_frame) first_frame = frame.number;
    last_frame = std::max(last_frame, frame.number);
    numbered = true;
  }
  void on_image(const format::Image& image) override {
    if (images == 0 || image.frame < first_image_frame) first_image_frame = image.frame;
    last_image_frame = std::max(last_image_frame, image.frame);
    ++images;
    if (image.frame >= first_ && image.frame <= last_)
      wanted[image.blob].push_back(
          {image.frame, image.seq, image.width, image.height, image.origin == "draw"});
  }
  std::unordered_map<uint64_t, std::vector<Wanted>> wanted;
  // All the trace holds, to say so when the range asked for is empty.
  uint64_t frames = 0;  // counted as every command does (consumers::ends_frame)
  uint64_t first_frame = 0, last_frame = 0;  // of the Frame records
  bool numbered = false;
  uint64_t images = 0, first_image_frame = 0, last_image_frame = 0;

 private:
  uint64_t first_, last_;
};

// Pass 2: write each wanted blob as it goes by.
class PngWriter : public format::Consumer {
 public:
  PngWriter(std::unordered_map<uint64_t, std::vector<Wanted>> wanted, std::string dir)
      : wanted_(std::move(wanted)), dir_(std::move(dir)) {}
  bool wants_values(uint32_t /*function*/) const override { return false; }
  void on_blob(const format::Blob& blob) override {
    auto it = wanted_.find(blob.id);
    if (it == wanted_.end()) return;
    for (const Wanted& w : it->second) {
      if (blob.data.size() != uint64_t{w.width} * w.height * 4) {
        fprintf(stderr, "gltrace frames: frame %" PRIu64 ": image size does not match %ux%u\n",
                w.frame, w.width, w.height);
        ++errors;
        continue;
      }
      char name[64];
      if (w.after_draw)
        snprintf(name, sizeof name, "/frame-%06" PRIu64 "-call-%08" PRIu64 ".png", w.frame, w.seq);
      else
        snprintf(name, sizeof name, "/frame-%06" PRIu64 ".png", w.frame);
      std::string error;
      if (consumers::write_png(dir_ + name, w.width, w.height,
                               reinterpret_cast<const uint8_t*>(blob.data.data()), &error))
        ++written;
      else
        fprintf(stderr, "gltrace frames: %s\n", error.c_str()), ++errors;
    }
    wanted_.erase(it);
  }
  size_t written = 0, errors = 0;

 private:
  std::unordered_map<uint64_t, std::vector<Wanted>> wanted_;
  std::string dir_;
};

}  // namespace

namespace {

struct FramesOptions {
  std::string path, dir, frames;
};

int frames(const FramesOptions& o, const CommandLine& line) {
  const std::string& path = o.path;
  const std::string& dir = o.dir;
  uint64_t first = 0, last = UINT64_MAX;
  if (!o.frames.empty() && !parse_range(o.frames, &first, &last))
    return line.usage_error("--frames needs a range like 2-5, not '" + o.frames + "'");
  mkdir(dir.c_str(), 0755);
  ImageIndex index(first, last);
  {
    format::ChunkReader reader;
    if (!open_trace(kName, path, &reader)) return kExitFailure;
    format::ReadStatus status;
    // No read-ahead in either pass: the chunks are mostly pixels, and only
    // the image being written needs its chunk decoded.
    bool ok = read_trace_showing_progress(kName, path, reader, index, &status, ReadAhead::kNone);
    if (int s = finish_reading(kName, path, ok, status); s != kExitOk) return s;
  }
  if (index.wanted.empty() && index.images != 0) {
    std::string range = last == UINT64_MAX ? std::to_string(first) + "-"
                        : first == last    ? std::to_string(first)
                                           : std::to_string(first) + "-" + std::to_string(last);
    fprintf(stderr,
            "gltrace frames: no image in frames %s: %s has frames %" PRIu64 "-%" PRIu64
            ", with %" PRIu64 " images in frames %" PRIu64 "-%" PRIu64 "\n",
            range.c_str(), path.c_str(), index.first_frame, index.last_frame, index.images,
            index.first_image_frame, index.last_image_frame);
    return kExitFailure;
  }
  if (index.wanted.empty()) {
    fprintf(stderr,
            "gltrace frames: %s holds no framebuffer images in its %" PRIu64
            " frames (trace with --framebuffer swap or draw)\n",
            path.c_str(), index.frames);
    return kExitFailure;
  }
  uint64_t frames_in_trace = index.frames;
  PngWriter writer(std::move(index.wanted), dir);
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  format::ReadStatus status;
  bool ok = read_trace_showing_progress(kName, path, reader, writer, &status, ReadAhead::kNone);
  printf("%zu frames written to %s, of the trace's %" PRIu64 " frames\n", writer.written,
         dir.c_str(), frames_in_trace);
  int s = finish_reading(kName, path, ok, status);
  return s != kExitOk ? s : writer.errors != 0 ? kExitFailure : kExitOk;
}

}  // namespace

void register_frames(Commands& commands) {
  auto options = std::make_shared<FramesOptions>();
  CommandLine& line =
      commands.add(kName, "the framebuffers a trace captured, as PNG files",
                   [options](const CommandLine& line) { return frames(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Writes every framebuffer TRACE captured (gltrace trace --framebuffer ...):\n"
      "DIR/frame-NNNNNN.png at frame ends (swaps; an off-screen program's glFinish or\n"
      "read-back),\n"
      "DIR/frame-NNNNNN-call-SEQ.png after draws.\n"
      "Reads the trace twice, keeping in memory only the images still to be written;\n"
      "a progress line goes to stderr when it is a terminal.");
  app.add_option("-o,--output", options->dir, "the directory (created if missing)")
      ->type_name("DIR")
      ->required();
  app.add_option("--frames", options->frames, "only frames N to M (N-, -M, N also work)")
      ->type_name("N-M");
  app.add_option("TRACE", options->path, "the trace")->required();
}

}  // namespace gltrace::cli
