// What the GLX hooks (glx.cpp) share with the context hooks.
#pragma once

#include "gltrace/api/types.h"

namespace gltrace::trace {

// The config `ctx` was made with (its GLX_FBCONFIG_ID among its screen's
// configs, or `draw`'s, where it is current); null when the driver does not
// say.
GLXFBConfig glx_context_config(Display* dpy, GLXContext ctx, GLXDrawable draw);

}  // namespace gltrace::trace
