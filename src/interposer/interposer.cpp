// libgltrace.so: the preload library and, under the names libEGL.so.1,
// libGLESv2.so.2 and libGLESv1_CM.so.1, the drop-in driver. It exports every
// EGL/GLES entry point (dispatch) and puts the layer chain (layers) above the
// real driver at the first EGL/GLES call.
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
