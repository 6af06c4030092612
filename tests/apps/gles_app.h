// What the small GLES test apps share: a surfaceless EGL display with an
// RGBA8 ES 3 pbuffer config, shader compiling, failure messages naming the app.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

namespace gltrace::test_app {

// An app's only option, --frames N, into *frames (left as it is when not
// given); false (and a usage line naming the app) on anything else.
bool frames_option(const char* app, int argc, char** argv, int* frames);

// Prints "APP: WHAT failed (EGL 0x..., GL 0x...)" when !ok; returns ok.
bool check(bool ok, const char* app, const char* what);

// Mesa's surfaceless platform, initialized, ES bound; a config with RGBA8,
// pbuffers and ES 3. False (and a message) when any of it fails.
bool open_surfaceless(const char* app, EGLDisplay* display, EGLConfig* config);

// A width x height pbuffer (*surface) and a context made with
// context_attribs (*context), made current together. False (and a message
// naming `what`) when any of it fails.
bool make_pbuffer_current(const char* app, EGLDisplay display, EGLConfig config, int width,
                          int height, const EGLint* context_attribs, const char* what,
                          EGLSurface* surface, EGLContext* context);

// A compiled shader, or 0 (its log printed) when it does not compile.
GLuint compile(const char* app, GLenum type, const char* source);

// A GLSL ES 3.00 vertex shader of one triangle that covers the surface
// (three vertices from gl_VertexID, no attributes).
inline constexpr char kFullSurfaceVertex[] =
    "#version 300 es\n"
    "const vec2 corners[3] = vec2[](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));\n"
    "void main() { gl_Position = vec4(corners[gl_VertexID], 0.0, 1.0); }\n";

// A linked program of the two sources.
GLuint link(const char* app, const char* vertex, const char* fragment);

}  // namespace gltrace::test_app
