// libgltrace.so: the preload library and, under the names libEGL.so.1,
// libGLESv2.so.2, libGLESv1_CM.so.1 and GLVND's libGL.so.1, libGLX.so.0 and
// libOpenGL.so.0, the drop-in driver. It exports every EGL, GLX and GL entry
// point (dispatch) and puts the layer chain (layers) above the real driver at
// the first call.
#include "common/process.h"
#include "dispatch/dispatch.h"
#include "layers/chain.h"

namespace {

__attribute__((constructor)) void register_layer_chain() {
  // Before main: apps may rewrite their argv (/proc/self/cmdline) early.
  gltrace::remember_command_line_at_load();
  // Never destroyed: the app may still call GL from its own exit handlers.
  static auto* chain = new gltrace::layers::LayerChain();
  gltrace::dispatch::set_chain_builder(chain);
}

}  // namespace
