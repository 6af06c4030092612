// The real dlopen. The interposer exports its own dlopen (to hand GL library
// names to itself), so its internal code must never call `dlopen` by name.
#pragma once

namespace gltrace::dispatch {

void* real_dlopen(const char* filename, int flags);

// Path of the interposer's own shared object, as it was loaded.
const char* self_path();

}  // namespace gltrace::dispatch
