// The replay's pixel-store scope: the shared one (common/pixel_store.h), set
// at once for tightly packed rows in client memory, which is all the
// replay's own reads and uploads use.
#pragma once

#include "common/pixel_store.h"

namespace gltrace::glreplay {

class PixelStoreScope : public gltrace::PixelStoreScope {
 public:
  // The functions must not be null; es3: the context has the ES 3 buffer
  // binding and row parameters (ES 2 has the alignment only).
  PixelStoreScope(PFN_gltrace_glGetIntegerv get, PFN_gltrace_glPixelStorei store,
                  PFN_gltrace_glBindBuffer bind_buffer, bool es3, Direction direction)
      : gltrace::PixelStoreScope({get, store, bind_buffer}, es3, direction) {
    set_tightly_packed();
  }
};

}  // namespace gltrace::glreplay
