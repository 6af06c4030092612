// Sizes the registry can only describe as COMPSIZE(...): pixel-store state,
// pname tables. Declarations of the per-function ones are generated
// (gltrace/api/trace_decls.h); this is what they share.
#pragma once

#include <cstdint>

#include "common/image_size.h"
#include "common/param_sizes.h"

namespace gltrace::trace {

// Helpers of the length rules that need no GL state, shared with the
// replay's checks (src/common/).
using gltrace::at_most;
using gltrace::clear_buffer_values;
using gltrace::map_components;
using gltrace::map_dimensions;
using gltrace::path_coord_bytes;
using gltrace::path_gen_coeffs;
using gltrace::path_metric_count;
using gltrace::path_name_bytes;
using gltrace::path_spacing_count;
using gltrace::pixel_bytes;
using gltrace::shading_rate_locations;
using gltrace::transform_values;

// glGetIntegerv(pname) of the driver below the trace layer (never recorded).
int32_t driver_integer(uint32_t pname);

// How many values glGet*/gl*Parameter* read or write for pname; 1 when the
// pname is not in the table (never more than the app's buffer holds).
int64_t pname_count(uint32_t pname);

// How many values glGetUniform{f,i,ui}v write for `location` of `program`:
// the components of the uniform's type (16 for a mat4), 0 when the location
// names no active uniform (the call fails and writes nothing).
int64_t uniform_components(uint32_t program, int32_t location);

// How many values glGetActiveUniformBlockiv writes for pname: the block's
// active uniform count for GL_UNIFORM_BLOCK_ACTIVE_UNIFORM_INDICES, else 1.
int64_t uniform_block_param_count(uint32_t program, uint32_t block, uint32_t pname);

// Bytes `count` indices of `type` take in client memory, or -1 when an
// element array buffer is bound (the pointer is then an offset into it).
// (hooks/client_arrays.cpp)
int64_t index_bytes(int32_t count, uint32_t type);

// Bytes an image of this size/format/type takes in client memory under the
// current pixel-unpack (or pack) state, or -1 when a pixel buffer object is
// bound (the pointer is then an offset into it).
int64_t unpack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height,
                          int64_t depth);
int64_t pack_image_size(uint32_t format, uint32_t type, int64_t width, int64_t height);

// Values glGetPixelMap*v writes for `map` (its GL_PIXEL_MAP_*_SIZE), or -1
// when a pixel-pack buffer is bound (the pointer is an offset into it).
int64_t pixel_map_size(uint32_t map);

// The size to record for a texture upload's data: `size`, or -1 when a
// pixel-unpack buffer is bound (the pointer is an offset), or
// kTextureDataNotCaptured when texture data capture is off.
inline constexpr int64_t kTextureDataNotCaptured = -2;
int64_t texture_data_size(int64_t size);

}  // namespace gltrace::trace
