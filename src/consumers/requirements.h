// What a trace relies on from the driver: the GLES version it needs, the
// extensions it uses and the implementation limits (GL_MAX_*) it goes up
// to, found in one pass over its calls. `gltrace info --requirements` prints
// them; the replay checks them against its driver before replaying. Which
// function belongs to which version or extension, and which parameter
// counts against which limit, is the generated table's
// (gltrace/api/requirements.h, from the registry and spec/api.toml).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "format/records.h"

namespace gltrace::consumers {

// A GLES version as major * 10 + minor (30: ES 3.0); 0 for none.
using EsVersion = int;
std::string es_version_text(EsVersion version);  // "OpenGL ES 3.0"

// The call that needs the most of something (the first such).
struct NeedSource {
  uint32_t function = 0;  // FunctionId
  uint64_t seq = 0;
};

struct VersionNeed {
  EsVersion version = 0;
  NeedSource source;
};

struct ExtensionNeed {
  // Any one of them serves (a function several extensions define).
  std::vector<std::string> any_of;
  struct Use {
    uint32_t function = 0;  // FunctionId; glShaderSource for a shader's #extension
    bool shader = false;    // an #extension line, not a call of the extension's function
    uint64_t calls = 0;
    uint64_t first_seq = 0;
  };
  std::vector<Use> uses;
};

struct LimitNeed {
  uint32_t pname = 0;  // GL_MAX_*: the driver's must be at least `value`
  int64_t value = 0;
  NeedSource source;
};

struct Requirements {
  // The highest version each asks for: contexts (eglCreateContext), shaders
  // (#version), functions (the first call of the newest version's).
  VersionNeed context, shaders, functions;
  uint64_t newest_functions = 0;          // distinct functions of functions.version
  std::vector<ExtensionNeed> extensions;  // by name
  std::vector<LimitNeed> limits;          // by name
  uint64_t calls = 0;                     // calls read

  EsVersion version() const;
};

// Reads the needs from each call. Calls that recorded a GL error (error
// mode) needed nothing the driver gave.
class RequirementsScan : public format::Consumer {
 public:
  // `stop`: when it turns true the scan asks to stop (read_trace* then
  // return early).
  explicit RequirementsScan(const std::atomic<bool>* stop = nullptr);
  ~RequirementsScan() override;
  void on_call(const format::Call& call) override;
  // Only the calls whose values a need reads: a scan at most of a replay's
  // own decoding cost.
  bool wants_values(uint32_t function) const override;
  Requirements result() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Scans the trace at `path`; false with *error when it is unreadable (a
// trace cut short by a crash reads as far as it goes) or *stop turned true.
bool scan_requirements(const std::string& path, Requirements* requirements, std::string* error,
                       const std::atomic<bool>* stop = nullptr);

// Every GL_MAX_* a scan may name, for a driver to answer.
std::vector<uint32_t> limit_pnames();

// The GL_MAX_* enum's name ("GL_MAX_SAMPLES").
std::string limit_name(uint32_t pname);

// "requires:" / "extensions:" / "limits:" lines, each ending in '\n'.
std::string requirements_text(const Requirements& requirements);
// The same as one JSON object.
std::string requirements_json(const Requirements& requirements);

// What a driver offers, as the replay reads it from a current context.
struct DriverCapabilities {
  EsVersion version = 0;  // from GL_VERSION; 0: unknown
  std::string version_text;
  std::set<std::string> extensions;
  std::map<uint32_t, int64_t> limits;  // by pname; a pname it could not answer is absent
};

// What `driver` lacks of `requirements`, a line each: "OpenGL ES 3.2 (it has
// OpenGL ES 3.1; ...)", "GL_OES_EGL_image (glEGLImageTargetTexture2DOES, 3
// calls)", "GL_MAX_SAMPLES >= 8 (it has 4; glRenderbufferStorageMultisample,
// call 12)". Limits the driver did not answer are not judged.
std::vector<std::string> missing_requirements(const Requirements& requirements,
                                              const DriverCapabilities& driver);

// What a driver made to a --portable profile (spec/portable_profiles.toml,
// gltrace/api/profiles.h) offers: its version, its extensions, its at_most
// limits; nullopt when there is no profile of that name.
std::optional<DriverCapabilities> profile_capabilities(const std::string& profile);

// The version of a GL_VERSION string ("OpenGL ES 3.2 Mesa ..." is 32); 0
// when it names none.
EsVersion parse_gl_version(const std::string& gl_version);

}  // namespace gltrace::consumers
