// Readable text for recorded values: enums by name, handles in hex, pointer
// data summarised.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "format/records.h"

namespace gltrace::textformat {
class Text;
}

namespace gltrace::consumers {

// Blob sizes seen so far, so a reference can say how big its data is.
using BlobSizes = std::unordered_map<uint64_t, uint64_t>;

// Text from a trace made safe for a terminal: control characters (an
// escape sequence's ESC too) written as \n, \t, \x1b..., quotes and
// backslashes escaped, as call strings are. Without the quotes.
std::string escaped(std::string_view text);

// "glName(a = 1, b = GL_TRIANGLES) = result"
void format_call(std::string& out, const format::Call& call, const BlobSizes& blobs);
void format_call(textformat::Text& out, const format::Call& call, const BlobSizes& blobs);

// Pieces of that text, for a viewer that shows them apart: "a = 1, b =
// GL_TRIANGLES" (what is between the parentheses), one argument's value, and
// the result (nothing for a void function).
void format_call_arguments(std::string& out, const format::Call& call, const BlobSizes& blobs);
void format_argument(std::string& out, const format::Call& call, size_t index,
                     const BlobSizes& blobs);
void format_result(std::string& out, const format::Call& call, const BlobSizes& blobs);

}  // namespace gltrace::consumers
