// Readable text for recorded values: enums by name, handles in hex, pointer
// data summarised.
#pragma once

#include <string>
#include <unordered_map>

#include "format/records.h"

namespace gltrace::consumers {

// Blob sizes seen so far, so a reference can say how big its data is.
using BlobSizes = std::unordered_map<uint64_t, uint64_t>;

// "glName(a = 1, b = GL_TRIANGLES) = result"
void format_call(std::string& out, const format::Call& call, const BlobSizes& blobs);

}  // namespace gltrace::consumers
