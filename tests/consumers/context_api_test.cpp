// How readers name a traced context's API (consumers/context_api.h).
#include "consumers/context_api.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace gltrace {
namespace {

// A context's API: by client_type where the record has it, else (older
// traces) by its GL_VERSION string.
TEST(ContextApi, ByClientTypeElseByTheVersionString) {
  auto text = [](int32_t client_type, int32_t client_version, std::string_view gl_version) {
    format::Context c;
    c.client_type = client_type;
    c.client_version = client_version;
    c.gl_version = gl_version;
    consumers::ContextApi api = consumers::context_api(c);
    return api.name + " | " + api.short_text();
  };
  EXPECT_EQ(text(0x30A2, 4, "4.6 (Core Profile) Mesa 22.3.6"), "OpenGL | GL 4.6 core");
  EXPECT_EQ(text(0x30A0, 3, "OpenGL ES 3.2 Mesa 22.3.6"), "OpenGL ES | ES 3");
  EXPECT_EQ(text(0, 2, "OpenGL ES 3.2 Mesa 22.3.6"), "OpenGL ES | ES 2");
  EXPECT_EQ(text(0, 1, "4.5 (Compatibility Profile) Mesa 22.3.6"), "OpenGL | GL 4.5 compatibility");
  EXPECT_EQ(text(0x30A2, 1, "3.3.0 NVIDIA 550.54"), "OpenGL | GL 3.3.0");
  EXPECT_EQ(text(0, 3, ""), "OpenGL ES | ES 3");  // no GL_VERSION recorded: ES, as before
}

}  // namespace
}  // namespace gltrace
