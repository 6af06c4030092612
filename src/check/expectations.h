// `gltrace check`'s expectations file: which traces a rendering CI replays,
// and what each must show on each device. TOML, written to review well:
//
//   tolerance = "channel=2"       # for every trace (default channel=16,pixels=0.5%,edges)
//   timeout = 120                                 # seconds a replay may take
//
//   [devices.llvmpipe]            # a device: globs over the driver's strings
//   renderer = "llvmpipe*"        # (renderer, version, vendor; all given match)
//
//   [[traces]]
//   name = "demo"                 # for reports; the trace is its hash
//   path = "traces/demo.gltrace"  # relative to this file
//   hash = "xxh3-128:..."         # of its bytes (--update records it): a changed file fails
//   frames = [9]                  # default: the last frame
//
//   [traces.expect.llvmpipe]      # per device; none: the trace's own images
//   checksums = ["xxh3:..."]      # one per frame: the replayed pixels, exact
//   goldens = ["goldens/..png"]   # one per frame, with the tolerance
//   tolerance = "channel=2"       # this device's, over the default
//   label = "flaky"               # skip, flaky, broken, crash, hang, slow
//   note = "why"
//
// `gltrace check --update` writes the file back in this form (its comments
// do not survive: a note says why a label is there).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "glreplay/image_tolerance.h"

namespace gltrace::check {

// What the driver says of itself (GL_VENDOR, GL_RENDERER, GL_VERSION).
struct DriverIdentity {
  std::string vendor, renderer, version;
  // "RENDERER; VERSION; VENDOR", as the replay prints it.
  std::string text() const;
};

struct Device {
  std::string name;
  // fnmatch(3) globs; an empty one matches anything.
  std::string renderer, version, vendor;
  bool matches(const DriverIdentity& driver) const;
};

enum class Label : uint8_t { kNone, kSkip, kFlaky, kBroken, kCrash, kHang, kSlow };
const char* label_name(Label label);
bool parse_label(const std::string& text, Label* out);

struct Expectation {
  std::string device;
  std::vector<std::string> checksums;  // per frame of the trace's `frames`
  std::vector<std::string> goldens;    // paths relative to the file, per frame
  std::string tolerance;               // empty: the file's
  Label label = Label::kNone;
  std::string note;
};

struct TraceEntry {
  std::string name;
  std::string path;  // as written (relative to the file's directory)
  std::string hash;
  // Frame numbers; kLastFrame is the trace's last.
  std::vector<uint64_t> frames;
  std::optional<double> timeout;
  std::vector<Expectation> expect;

  const Expectation* expectation(const std::string& device) const;
  Expectation& expectation_for_update(const std::string& device);
};

inline constexpr uint64_t kLastFrame = UINT64_MAX;

struct Expectations {
  std::string path;  // the file read
  std::string dir;   // its directory: where relative paths start
  // What rasterizers' rounding needs (measured on llvmpipe, softpipe and
  // zink: bench/check_corpus.py); "exact" in the file asks for none.
  std::string tolerance = glreplay::kDefaultCiTolerance;
  double timeout = 300;
  std::vector<Device> devices;
  std::vector<TraceEntry> traces;

  std::string resolve(const std::string& relative) const;
  // The device `driver` is; null when none matches. Two matching is an
  // error (*error says which), as is a name used twice.
  const Device* device_of(const DriverIdentity& driver, std::string* error) const;
  // A device made for `driver` by --update: named after the renderer's
  // first word, matching its renderer and version exactly.
  const Device& add_device(const DriverIdentity& driver);
};

// False with *error ("FILE: line L: why") for a file that is not TOML or
// that holds what this format does not know.
bool read_expectations(const std::string& path, Expectations* out, std::string* error);
// The file's text as read_expectations reads it back.
std::string expectations_text(const Expectations& e);
bool write_expectations(const Expectations& e, std::string* error);

// "xxh3-128:HEX" of a file's bytes; false with *error when unreadable.
bool hash_file(const std::string& path, std::string* hash, std::string* error);
// "xxh3:HEX" of an image's size and RGBA8 pixels.
std::string image_checksum(uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba);

}  // namespace gltrace::check
