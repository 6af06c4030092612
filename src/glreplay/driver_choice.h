// `--driver` of replay, trim, diff-state and the viewer's state worker: which
// EGL/GLES driver a replay loads. Mesa's drivers are chosen by environment
// variables its loader reads when libEGL initializes, and GLVND picks its
// vendor library by a JSON file, so a choice is made in this process's
// environment before any EGL library is loaded (and is inherited by the
// processes it starts).
//
//   default            what the linker and GLVND find (nothing changed)
//   llvmpipe, softpipe Mesa's software rasterizers
//   zink               Mesa's GL on Vulkan, on the software Vulkan driver
//                      (lavapipe, package mesa-vulkan-drivers)
//   DIR                libEGL.so.1 and libGLESv2.so.2 from DIR (a driver
//                      built apart, as a Mesa build tree's lib directory)
//   FILE.json          a GLVND EGL vendor file (/usr/share/glvnd/egl_vendor.d)
//   .../libEGL_X.so.0  a GLVND vendor library (libEGL_nvidia.so.0)
//   .../libEGL.so.1    a libEGL of its own: its directory, as DIR
#pragma once

#include <string>

namespace gltrace::glreplay {

struct DriverChoice {
  std::string name;  // the spec as given, for messages
  std::string dir;   // where to load libEGL.so.1 and libGLESv2.so.2 from (empty: the search path)
};

// Sets up this process's environment for `spec` (see above). False with
// *error when the spec names nothing usable (a missing path, an unknown
// name, no Mesa vendor file for a Mesa driver under GLVND).
bool choose_driver(const std::string& spec, DriverChoice* choice, std::string* error);
// The same for a command: *dir is where to load the driver from; false
// after saying why on stderr ("PROGRAM: --driver ...").
bool choose_driver_for(const std::string& program, const std::string& spec, std::string* dir);

// The help text of the option, shared by every command that takes it.
extern const char kDriverOptionHelp[];

}  // namespace gltrace::glreplay
