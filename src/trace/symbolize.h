// Call stacks in error reports, with function names and source lines.
//
// Symbolized with elfutils' libdw (its libdwfl: ELF symbols, DWARF lines,
// separate debug files by build id), loaded with dlopen when the first
// report is made: the trace layer, loaded into every traced app, does not
// load libdw or read any debug information unless an error is reported.
// Without libdw, or without symbols, a frame is its module and offset.
#pragma once

#include <string>

namespace gltrace::trace {

// The calling thread's stack, below the frames of the trace layer and the
// interposer, one "    at ..." line per frame:
//   at FUNCTION (FILE:LINE) in MODULE+0xOFFSET   (debug information)
//   at FUNCTION in MODULE+0xOFFSET               (a symbol table only)
//   at MODULE+0xOFFSET                           (nothing more known)
// Not for the hot path: reads ELF and DWARF files (cached after the first).
std::string describe_call_stack();

}  // namespace gltrace::trace
