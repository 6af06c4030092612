#include "scene.h"

#include <GLES3/gl3.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "apps/gles_app.h"

namespace gltrace::egl_fidelity {

namespace {

bool parse_size(const char* text, int* width, int* height) {
  return sscanf(text, "%dx%d", width, height) == 2 && *width > 0 && *height > 0;
}

}  // namespace

bool parse_options(const char* app, int argc, char** argv, Options* out) {
  for (int i = 1; i < argc; ++i) {
    const char* option = argv[i];
    if (strcmp(option, "--minimal-config") == 0 || strcmp(option, "--blit") == 0) {
      (option[2] == 'm' ? out->minimal_config : out->blit) = true;
      continue;
    }
    if (strcmp(option, "--query-first") == 0 || strcmp(option, "--probe-window") == 0) {
      out->query_first = true;
      out->probe_window = option[2] == 'p';
      continue;
    }
    const char* value = i + 1 < argc ? argv[++i] : "";
    int f = 0, w = 0, h = 0;
    bool ok = false;
    if (strcmp(option, "--size") == 0) {
      ok = parse_size(value, &out->width, &out->height);
    } else if (strcmp(option, "--resize") == 0) {
      ok = parse_size(value, &out->first_width, &out->first_height);
    } else if (strcmp(option, "--resize-at") == 0) {
      ok = sscanf(value, "%d:%dx%d", &f, &w, &h) == 3 && f > 0 && w > 0 && h > 0;
      if (ok) out->resizes[f] = {w, h};
    } else if (strcmp(option, "--frames") == 0) {
      out->frames = atoi(value);
      ok = out->frames > 0;
    }
    if (!ok) {
      fprintf(stderr,
              "usage: %s [--minimal-config] [--blit] [--query-first | --probe-window] [--size WxH] "
              "[--resize WxH] "
              "[--resize-at F:WxH]... [--frames N]\n",
              app);
      return false;
    }
  }
  return true;
}

bool check(const char* app, bool ok, const char* what) {
  if (!ok) fprintf(stderr, "%s: %s failed (EGL 0x%x)\n", app, what, eglGetError());
  return ok;
}

EGLConfig choose_config(const char* app, EGLDisplay dpy, bool minimal, EGLint* visual_id) {
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (minimal) {
    // What many apps ask: "some colour, some depth", and the first answer.
    const EGLint attribs[] = {EGL_RED_SIZE,
                              1,
                              EGL_GREEN_SIZE,
                              1,
                              EGL_BLUE_SIZE,
                              1,
                              EGL_DEPTH_SIZE,
                              1,
                              EGL_RENDERABLE_TYPE,
                              EGL_OPENGL_ES2_BIT,
                              EGL_NONE};
    if (!check(app, eglChooseConfig(dpy, attribs, &config, 1, &count) && count == 1,
               "eglChooseConfig"))
      return nullptr;
  } else {
    const EGLint attribs[] = {EGL_RED_SIZE,   8, EGL_GREEN_SIZE,      8,
                              EGL_BLUE_SIZE,  8, EGL_ALPHA_SIZE,      8,
                              EGL_DEPTH_SIZE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                              EGL_NONE};
    EGLConfig configs[64];
    if (!check(app, eglChooseConfig(dpy, attribs, configs, 64, &count) && count > 0,
               "eglChooseConfig"))
      return nullptr;
    for (EGLint k = 0; k < count && config == nullptr; ++k) {
      EGLint r = 0, g = 0, b = 0, a = 0;
      eglGetConfigAttrib(dpy, configs[k], EGL_RED_SIZE, &r);
      eglGetConfigAttrib(dpy, configs[k], EGL_GREEN_SIZE, &g);
      eglGetConfigAttrib(dpy, configs[k], EGL_BLUE_SIZE, &b);
      eglGetConfigAttrib(dpy, configs[k], EGL_ALPHA_SIZE, &a);
      if (r == 8 && g == 8 && b == 8 && a == 8) config = configs[k];
    }
    if (config == nullptr) {
      fprintf(stderr, "%s: no RGBA8 config\n", app);
      return nullptr;
    }
  }
  if (!check(app, eglGetConfigAttrib(dpy, config, EGL_NATIVE_VISUAL_ID, visual_id),
             "EGL_NATIVE_VISUAL_ID"))
    return nullptr;
  return config;
}

// The largest window the apps are resized to.
constexpr GLsizei kMaxSize = 512;

bool Scene::init(const char* app, bool blit) {
  using test_app::compile;
  GLuint vertex = compile(app, GL_VERTEX_SHADER,
                          "attribute vec2 position;\n"
                          "attribute vec4 color;\n"
                          "varying vec4 v_color;\n"
                          "void main() {\n"
                          "  v_color = color;\n"
                          "  gl_Position = vec4(position, 0.0, 1.0);\n"
                          "}\n");
  GLuint fragment = compile(app, GL_FRAGMENT_SHADER,
                            "precision mediump float;\n"
                            "varying vec4 v_color;\n"
                            "uniform float shade;\n"
                            "void main() {\n"
                            "  gl_FragColor = v_color * shade;\n"
                            "}\n");
  if (vertex == 0 || fragment == 0) return false;
  program_ = glCreateProgram();
  glAttachShader(program_, vertex);
  glAttachShader(program_, fragment);
  glBindAttribLocation(program_, 0, "position");
  glBindAttribLocation(program_, 1, "color");
  glLinkProgram(program_);
  GLint linked = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &linked);
  if (!linked) {
    fprintf(stderr, "%s: the program does not link\n", app);
    return false;
  }
  glUseProgram(program_);
  shade_ = glGetUniformLocation(program_, "shade");
  // Two quads of colour gradients: the second is blended over the first with
  // alpha below 1, so every pixel is a rounded mix.
  const GLfloat vertices[] = {
      // x, y, r, g, b, a
      -1.0f, -1.0f, 0.0f, 0.1f, 0.9f, 1.0f,  1.0f, -1.0f, 0.9f, 0.3f, 0.1f, 1.0f,
      -1.0f, 1.0f,  0.2f, 0.8f, 0.4f, 1.0f,  1.0f, 1.0f,  0.7f, 0.6f, 0.5f, 1.0f,
      -0.8f, -0.6f, 0.3f, 0.7f, 0.2f, 0.33f, 0.9f, -0.9f, 0.1f, 0.2f, 0.8f, 0.71f,
      -0.7f, 0.8f,  0.6f, 0.1f, 0.5f, 0.47f, 0.6f, 0.7f,  0.9f, 0.9f, 0.2f, 0.13f,
  };
  glGenBuffers(1, &buffer_);
  glBindBuffer(GL_ARRAY_BUFFER, buffer_);
  glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 6 * sizeof(GLfloat), nullptr);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 6 * sizeof(GLfloat),
                        reinterpret_cast<const void*>(2 * sizeof(GLfloat)));
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  if (blit) {
    GLuint color = 0;
    glGenRenderbuffers(1, &color);
    glBindRenderbuffer(GL_RENDERBUFFER, color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, kMaxSize, kMaxSize);
    glGenFramebuffers(1, &framebuffer_);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      fprintf(stderr, "%s: the framebuffer object is incomplete\n", app);
      return false;
    }
  }
  return glGetError() == GL_NO_ERROR;
}

void Scene::draw(int frame, int width, int height) {
  if (framebuffer_ != 0) glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glViewport(0, 0, width, height);
  glClearColor(0.1f + 0.01f * static_cast<float>(frame), 0.2f, 0.3f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glUniform1f(shade_, 1.0f - 0.05f * static_cast<float>(frame));
  glDisable(GL_BLEND);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glEnable(GL_BLEND);
  glDrawArrays(GL_TRIANGLE_STRIP, 4, 4);
  if (framebuffer_ != 0) {
    // The window is only ever blitted to.
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  }
}

}  // namespace gltrace::egl_fidelity
