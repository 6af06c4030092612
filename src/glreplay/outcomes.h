// `--outcomes FILE`: what each call answered on this replay's driver, for
// `gltrace diverge` (src/diverge), which runs a replay per side and looks
// for the first call whose answer differs: between two drivers, or from what
// the trace recorded. A line of JSON per call that answered something: its
// result (Args::note_result), the outputs the driver wrote (glGet*,
// glReadPixels, statuses), the GL error it raised (the replay reads the
// error after every GL call), and the trace's recorded result and outputs
// beside them. The app's glGetError calls get the first error raised on
// their thread since the previous one, as the app's did. Values are
// canonical text, so two replays' lines compare as strings; long ones are
// "N values, xxh3 HEX" of that text. What glReadPixels read as 8-bit RGBA is
// also an image (FILE.images/CALL-PARAM.png, and -recorded.png for the
// trace's), for a comparison with a tolerance.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "glreplay/args.h"
#include "glreplay/call.h"

namespace gltrace::glreplay {

class OutcomeWriter {
 public:
  OutcomeWriter() = default;
  ~OutcomeWriter();
  OutcomeWriter(const OutcomeWriter&) = delete;
  OutcomeWriter& operator=(const OutcomeWriter&) = delete;

  bool open(const std::string& path, std::string* error);
  // After a call the replay ran (`args`: null for a call not run);
  // `gl_error`: what glGetError said after it (0 for EGL calls); `failure`:
  // why the replay could not run it ("" when it could), written as its
  // "not_replayed".
  void record(const ReplayCall& call, const Args* args, uint32_t gl_error,
              const std::string& failure);
  // The app's glGetError, which the replay does not run.
  void record_get_error(const ReplayCall& call);
  // Flushes; false when the file could not be written.
  bool close(std::string* error);

 private:
  void write_line(const nlohmann::json& line);
  // Writes RGBA8 pixels (rows bottom first) as a PNG beside the file (in
  // FILE.images/) and names it in (*out)[key].
  void write_image(const std::string& name, uint32_t width, uint32_t height, const void* rgba,
                   size_t bytes, nlohmann::json* out, const char* key);

  FILE* file_ = nullptr;
  std::string path_;
  std::string images_dir_;  // made at the first image
  // Per recorded thread: the first GL error raised since its last glGetError.
  std::unordered_map<uint32_t, uint32_t> pending_error_;
};

}  // namespace gltrace::glreplay
