// gltrace-outputs-app: a small ES 3.2 program (surfaceless EGL, pbuffer) that
// asks the driver through every getter whose output size the registry leaves
// to a rule (COMPSIZE, or none): indexed state, uniform values of several
// types, a uniform block's active uniforms, uniform indices, offsets and
// program resources, internal-format samples, a pointer. It prints each value
// ("NAME: v v v") and renders with what it read: the uniform block is filled
// at the offsets the driver gave, the offset is the one read back.
//   gltrace-outputs-app [FRAMES]
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/gles_app.h"

namespace test_app = gltrace::test_app;

namespace {

constexpr const char* kApp = "outputs_app";
constexpr int kSize = 64;

bool check(bool ok, const char* what) { return test_app::check(ok, kApp, what); }

const char* kVertex =
    "#version 310 es\n"
    "in vec2 a_pos;\n"
    "uniform vec2 u_offset[3];\n"
    "uniform mat3 u_transform;\n"
    "void main() {\n"
    "  vec3 p = u_transform * vec3(a_pos, 1.0);\n"
    "  gl_Position = vec4(p.xy + u_offset[2], 0.0, 1.0);\n"
    "}\n";
const char* kFragment =
    "#version 310 es\n"
    "precision mediump float;\n"
    "uniform Colors { vec4 u_tint; vec4 u_add; };\n"
    "uniform ivec2 u_steps;\n"
    "uniform uvec3 u_mask;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  float s = float(u_steps.x + u_steps.y) / 8.0;\n"
    "  o_color = u_tint * s + u_add + vec4(float(u_mask.z & 1u) * 0.25);\n"
    "}\n";

template <typename T>
void print(const char* name, const T* values, int count) {
  printf("%s:", name);
  for (int i = 0; i < count; ++i) {
    if constexpr (std::is_floating_point_v<T>)
      printf(" %g", static_cast<double>(values[i]));
    else
      printf(" %lld", static_cast<long long>(values[i]));
  }
  printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int frames = argc > 1 ? atoi(argv[1]) : 2;
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLConfig config = nullptr;
  if (!test_app::open_surfaceless(kApp, &dpy, &config)) return 2;
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 2,
                                    EGL_NONE};
  EGLSurface surface = EGL_NO_SURFACE;
  EGLContext context = EGL_NO_CONTEXT;
  if (!test_app::make_pbuffer_current(kApp, dpy, config, kSize, kSize, context_attribs,
                                      "ES 3.2 context setup", &surface, &context))
    return 2;

  // Indexed state.
  GLint work_groups[3] = {}, work_group_size[3] = {};
  for (GLuint i = 0; i < 3; ++i) {
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &work_groups[i]);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &work_group_size[i]);
  }
  print("glGetIntegeri_v GL_MAX_COMPUTE_WORK_GROUP_COUNT", work_groups, 3);
  print("glGetIntegeri_v GL_MAX_COMPUTE_WORK_GROUP_SIZE", work_group_size, 3);
  glColorMaski(0, GL_TRUE, GL_FALSE, GL_TRUE, GL_TRUE);
  GLboolean mask[4] = {9, 9, 9, 9};
  glGetBooleani_v(GL_COLOR_WRITEMASK, 0, mask);
  print("glGetBooleani_v GL_COLOR_WRITEMASK", mask, 4);
  glColorMaski(0, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);

  void* callback = &callback;
  glGetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &callback);
  printf("glGetPointerv GL_DEBUG_CALLBACK_FUNCTION: %d\n", callback == nullptr ? 0 : 1);

  GLuint program = test_app::link(kApp, kVertex, kFragment);
  if (!check(program != 0, "link")) return 1;
  glUseProgram(program);

  // Uniforms of several types, read back.
  GLint offset = glGetUniformLocation(program, "u_offset");
  GLint offset2 = glGetUniformLocation(program, "u_offset[2]");
  GLint transform = glGetUniformLocation(program, "u_transform");
  GLint steps = glGetUniformLocation(program, "u_steps");
  GLint mask_location = glGetUniformLocation(program, "u_mask");
  const float offsets[6] = {0.5f, 0.5f, -0.5f, 0.5f, 0.125f, -0.25f};
  glUniform2fv(offset, 3, offsets);
  const float matrix[9] = {0.75f, 0, 0, 0, 0.75f, 0, 0, 0, 1};
  glUniformMatrix3fv(transform, 1, GL_FALSE, matrix);
  glUniform2i(steps, 3, 2);
  glUniform3ui(mask_location, 4u, 2u, 1u);
  float read_offset[2] = {}, read_matrix[9] = {}, n_matrix[9] = {};
  GLint read_steps[2] = {};
  GLuint read_mask[3] = {};
  glGetUniformfv(program, offset2, read_offset);
  glGetUniformfv(program, transform, read_matrix);
  glGetnUniformfv(program, transform, sizeof n_matrix, n_matrix);
  glGetUniformiv(program, steps, read_steps);
  glGetUniformuiv(program, mask_location, read_mask);
  print("glGetUniformfv u_offset[2]", read_offset, 2);
  print("glGetUniformfv u_transform", read_matrix, 9);
  print("glGetnUniformfv u_transform", n_matrix, 9);
  print("glGetUniformiv u_steps", read_steps, 2);
  print("glGetUniformuiv u_mask", read_mask, 3);
  // The read-back offset is what the frame is drawn with.
  glUniform2fv(offset2, 1, read_offset);

  // The uniform block: its members, their indices and offsets.
  GLuint block = glGetUniformBlockIndex(program, "Colors");
  GLint active = 0, data_size = 0;
  glGetActiveUniformBlockiv(program, block, GL_UNIFORM_BLOCK_ACTIVE_UNIFORMS, &active);
  glGetActiveUniformBlockiv(program, block, GL_UNIFORM_BLOCK_DATA_SIZE, &data_size);
  if (!check(active == 2 && data_size >= 32, "the uniform block's size")) return 1;
  std::vector<GLint> block_members(static_cast<size_t>(active));
  glGetActiveUniformBlockiv(program, block, GL_UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES,
                            block_members.data());
  print("glGetActiveUniformBlockiv GL_UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES", block_members.data(),
        active);
  const GLchar* names[2] = {"u_tint", "u_add"};
  GLuint indices[2] = {};
  glGetUniformIndices(program, 2, names, indices);
  print("glGetUniformIndices", indices, 2);
  GLint member_offsets[2] = {-1, -1};
  glGetActiveUniformsiv(program, 2, indices, GL_UNIFORM_OFFSET, member_offsets);
  print("glGetActiveUniformsiv GL_UNIFORM_OFFSET", member_offsets, 2);
  const GLenum props[2] = {GL_TYPE, GL_ARRAY_SIZE};
  GLint resource[2] = {};
  GLsizei written = 0;
  GLuint offset_resource = glGetProgramResourceIndex(program, GL_UNIFORM, "u_offset[0]");
  glGetProgramResourceiv(program, GL_UNIFORM, offset_resource, 2, props, 2, &written, resource);
  print("glGetProgramResourceiv GL_TYPE GL_ARRAY_SIZE", resource, written);

  // Internal-format samples.
  GLint sample_counts = 0;
  glGetInternalformativ(GL_RENDERBUFFER, GL_RGBA8, GL_NUM_SAMPLE_COUNTS, 1, &sample_counts);
  std::vector<GLint> samples(static_cast<size_t>(sample_counts > 0 ? sample_counts : 1));
  glGetInternalformativ(GL_RENDERBUFFER, GL_RGBA8, GL_SAMPLES, sample_counts, samples.data());
  print("glGetInternalformativ GL_SAMPLES", samples.data(), sample_counts);

  // The block's data, laid out at the offsets the driver gave.
  std::vector<unsigned char> block_data(static_cast<size_t>(data_size));
  const float tint[4] = {0.8f, 0.4f, 0.2f, 1.0f}, add[4] = {0.0f, 0.1f, 0.2f, 0.0f};
  if (!check(member_offsets[0] >= 0 && member_offsets[1] >= 0 &&
                 member_offsets[0] + 16 <= data_size && member_offsets[1] + 16 <= data_size,
             "the block's member offsets"))
    return 1;
  memcpy(block_data.data() + member_offsets[0], tint, sizeof tint);
  memcpy(block_data.data() + member_offsets[1], add, sizeof add);
  GLuint buffers[2] = {};
  glGenBuffers(2, buffers);
  glBindBuffer(GL_UNIFORM_BUFFER, buffers[0]);
  glBufferData(GL_UNIFORM_BUFFER, data_size, block_data.data(), GL_STATIC_DRAW);
  glUniformBlockBinding(program, block, 1);
  glBindBufferRange(GL_UNIFORM_BUFFER, 1, buffers[0], 0, data_size);
  GLint64 bound_size = 0;
  glGetInteger64i_v(GL_UNIFORM_BUFFER_SIZE, 1, &bound_size);
  print("glGetInteger64i_v GL_UNIFORM_BUFFER_SIZE", &bound_size, 1);

  const float triangle[6] = {-0.8f, -0.8f, 0.8f, -0.8f, 0.0f, 0.8f};
  glBindBuffer(GL_ARRAY_BUFFER, buffers[1]);
  glBufferData(GL_ARRAY_BUFFER, sizeof triangle, triangle, GL_STATIC_DRAW);
  auto pos = static_cast<GLuint>(glGetAttribLocation(program, "a_pos"));
  glVertexAttribPointer(pos, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(pos);
  for (int frame = 0; frame < frames; ++frame) {
    glViewport(0, 0, kSize, kSize);
    glClearColor(0.1f * static_cast<float>(frame), 0.0f, 0.3f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    if (!check(eglSwapBuffers(dpy, surface), "eglSwapBuffers")) return 1;
  }
  if (!check(glGetError() == GL_NO_ERROR, "the calls (a GL error)")) return 1;
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, context);
  eglDestroySurface(dpy, surface);
  eglTerminate(dpy);
  return 0;
}
