// `gltrace surface record` and `gltrace surface from-gl`: the words after
// `surface` (argv[0] is "record" or "from-gl").
#pragma once

namespace gltrace::cli {

int surface_record_main(int argc, char** argv);
int surface_from_gl_main(int argc, char** argv);

extern const char kUsage_surface_record[];
extern const char kUsage_surface_from_gl[];

}  // namespace gltrace::cli
