// The text std::to_chars(first, last, float) writes (the shortest that reads
// back as the same float, fixed or scientific, whichever is shorter), in
// three quarters of its time: the dumper prints more floats than calls.
#pragma once

namespace gltrace::textformat {

// Longest text: "-1.17549435e-38".
inline constexpr int kFloatCharsMax = 16;

// Writes value at out (room for kFloatCharsMax chars); returns the end.
char* float_chars(char* out, float value);

}  // namespace gltrace::textformat
